"""Pipelines (Lakeflow declarative pipelines) under /api/2.0/pipelines: model.py stores
pipelines and their updates, spec.py checks and fills in their settings, updates.py plays an
update out over time and gives its events. Opened after the workspace objects (the
notebooks and files an update loads) and Unity Catalog (the schema it publishes to); its
permissions (`pipelines`) are served by the object_permissions area, with the creator as
the owner."""

from __future__ import annotations

from workspace_emulator.errors import ServiceError
from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.pipelines.pipelines import routes
from workspace_emulator.platform.areas.pipelines.pipelines.model import TABLES, Pipelines
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import UnityCatalog
from workspace_emulator.platform.areas.workspace.workspace_objects.model import WorkspaceObjects
from workspace_emulator.platform.fidelity import simulated, stateful

# The library kind of spec.workspace_sources -> the workspace object type it must be.
SOURCE_TYPES = {"notebook": "NOTEBOOK", "file": "FILE"}


def _open(context: AreaContext) -> Pipelines:
    objects = context.state(WorkspaceObjects)
    unity_catalog = context.state(UnityCatalog)
    return Pipelines(
        context.db, context.directory, context.settings.transition_seconds,
        context.settings.workspace_id,
        source_problem=lambda path, kind: objects.object_problem(path, SOURCE_TYPES[kind]),
        schema_exists=lambda full_name: _schema_exists(unity_catalog, full_name))


def _schema_exists(unity_catalog: UnityCatalog, full_name: str) -> bool:
    try:
        unity_catalog.get_schema(full_name)
    except ServiceError:  # not there, or not a schema's name
        return False
    return True


AREA = Area(
    name="pipelines",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=85,
    support={
        "POST /pipelines": stateful(
            "settings checked as the service does (name, catalog/schema vs target/storage, "
            "serverless compute, channel, edition, clusters, libraries, run_as); a name in "
            "use 409 unless allow_duplicate_names; dry_run stores nothing and answers "
            "effective_settings"),
        "GET /pipelines/{pipeline_id}": simulated(
            "spec with id (and storage outside Unity Catalog); IDLE, RUNNING while an "
            "update is active; latest_updates, cluster_id, health"),
        "PUT /pipelines/{pipeline_id}": stateful(
            "replaces every setting; expected_last_modified not the last change 409"),
        "DELETE /pipelines/{pipeline_id}": stateful("the pipeline and its updates"),
        "GET /pipelines": stateful(
            "filter name LIKE / notebook=; order_by id or name; max_results up to 100; "
            "page_token"),
        "POST /pipelines/{pipeline_id}/updates": simulated(
            "full_refresh, refresh_selection, full_refresh_selection, validate_only; a "
            "second while one is active 409; QUEUED -> WAITING_FOR_RESOURCES -> "
            "INITIALIZING -> SETTING_UP_TABLES -> RUNNING -> COMPLETED over the transition "
            "time, FAILED when a notebook or file library or the schema is missing"),
        "GET /pipelines/{pipeline_id}/updates": simulated(
            "newest first; max_results, page_token, until_update_id"),
        "GET /pipelines/{pipeline_id}/updates/{update_id}": simulated(
            "the state at the time of the read, with config"),
        "POST /pipelines/{pipeline_id}/stop": simulated("the active update CANCELED"),
        "GET /pipelines/{pipeline_id}/events": simulated(
            "create_update and update_progress events, the failure an ERROR with its "
            "message; filter on level, id, update_id, timestamp; order_by timestamp; paged (a "
            "page_token with max_results only)"),
    },
    not_served={"Pipelines": (
        "POST /pipelines/{pipeline_id}/clone",
        "POST /pipelines/{pipeline_id}/environment/apply")},
    permission_objects={"pipelines": Pipelines.exists},
    permission_owners={"pipelines": Pipelines.owner},
)
