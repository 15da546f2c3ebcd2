"""Apps (model.py: settings and resources checked as the service checks them, compute
STARTING -> ACTIVE and STOPPING -> STOPPED over the transition time, deployments
IN_PROGRESS -> SUCCEEDED, or FAILED where the source folder is missing), their routes
(routes.py), and their permissions (`apps`, by the app's name)."""

from __future__ import annotations

from workspace_emulator.errors import NotFound
from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.applications.apps import routes
from workspace_emulator.platform.areas.applications.apps.model import TABLES, Apps
from workspace_emulator.platform.areas.workspace.workspace_objects.model import WorkspaceObjects
from workspace_emulator.platform.fidelity import simulated, stateful


def _open(context: AreaContext) -> Apps:
    objects = context.state(WorkspaceObjects)

    def folder_exists(path: str) -> bool:
        try:
            return objects.get_status(path).get("object_type") in ("DIRECTORY", "REPO")
        except NotFound:
            return False

    settings = context.settings
    return Apps(context.db, settings.transition_seconds, settings.base_url,
                settings.workspace_id, folder_exists)


AREA = Area(
    name="apps",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=110,
    support={
        "GET /apps": simulated("states settled on read; one page"),
        "POST /apps": simulated("name, compute size and resources checked, names unique; "
                                "compute STARTING -> ACTIVE over the transition time "
                                "(no_compute: STOPPED)"),
        "GET /apps/{name}": simulated("compute_status, app_status and deployments computed "
                                      "from stored timestamps"),
        "PATCH /apps/{name}": stateful("description, resources, compute_size, "
                                       "user_api_scopes replaced where given"),
        "DELETE /apps/{name}": stateful("gone from every read"),
        "POST /apps/{name}/start": simulated("STOPPED -> STARTING -> ACTIVE; an active one "
                                             "unchanged"),
        "POST /apps/{name}/stop": simulated("STOPPING -> STOPPED; a stopped one unchanged"),
        "GET /apps/{name}/deployments": simulated("newest first; one page"),
        "POST /apps/{name}/deployments": simulated(
            "ACTIVE compute needed; IN_PROGRESS -> SUCCEEDED over the transition time, "
            "FAILED (with its message) where the source folder is missing"),
        "GET /apps/{name}/deployments/{deployment_id}": simulated("as the app's reads"),
    },
    permission_objects={"apps": Apps.exists},
)
