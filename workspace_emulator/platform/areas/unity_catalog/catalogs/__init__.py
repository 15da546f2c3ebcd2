"""Unity Catalog's catalogs and their workspace bindings (model.py), with the workspaces of
the metastore a binding may name. What a catalog holds is the unity_catalog area's, which
also serves the bindings path of every securable, catalogs' included."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, InitialData, Mount
from workspace_emulator.platform.areas.unity_catalog.catalogs import routes
from workspace_emulator.platform.areas.unity_catalog.catalogs.model import TABLES, Catalogs
from workspace_emulator.platform.fidelity import stateful


def _add_initial(catalogs: Catalogs, initial: InitialData) -> None:
    workspace = initial.sections["workspace"]
    for workspace_id in [initial.workspace_id, *workspace.get("other_workspace_ids", [])]:
        catalogs.add_workspace(initial.conn, workspace_id)
    for catalog in initial.section("catalogs"):
        catalogs.add_initial(initial.conn, catalog)


AREA = Area(
    name="catalogs",
    open=lambda context: Catalogs(context.db, context.directory,
                                  context.settings.metastore_id),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=70,
    support={
        "GET /unity-catalog/catalogs": stateful("initial-data and created catalogs; one page"),
        "POST /unity-catalog/catalogs": stateful(
            "admins; name stored lower case; with default and information_schema schemas"),
        "GET /unity-catalog/catalogs/{name}": stateful("any case"),
        "PATCH /unity-catalog/catalogs/{name}": stateful(
            "isolation_mode, owner, comment, properties, options, "
            "enable_predictive_optimization, new_name (schemas follow)"),
        "DELETE /unity-catalog/catalogs/{name}": stateful(
            "refused while it holds schemas unless force, which removes them"),
        "GET /unity-catalog/workspace-bindings/catalogs/{name}": stateful("legacy bindings "
                                                                          "API"),
        "PATCH /unity-catalog/workspace-bindings/catalogs/{name}": stateful(
            "assign/unassign_workspaces"),
    },
    initial_data=_add_initial,
)
