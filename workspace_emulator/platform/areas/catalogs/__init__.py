"""Unity Catalog's catalogs and their workspace bindings (model.py), with the workspaces of
the metastore a binding may name."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, InitialData, Mount
from workspace_emulator.platform.areas.catalogs import routes
from workspace_emulator.platform.areas.catalogs.model import TABLES, Catalogs
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
        "GET /unity-catalog/catalogs": stateful("initial-data catalogs"),
        "GET /unity-catalog/catalogs/{name}": stateful(""),
        "PATCH /unity-catalog/catalogs/{name}": stateful("isolation_mode, owner, comment"),
        "GET /unity-catalog/bindings/{securable_type}/{name}": stateful("catalog bindings"),
        "PATCH /unity-catalog/bindings/{securable_type}/{name}": stateful(
            "add/remove bindings; known workspaces only"),
        "GET /unity-catalog/workspace-bindings/catalogs/{name}": stateful("legacy bindings "
                                                                          "API"),
        "PATCH /unity-catalog/workspace-bindings/catalogs/{name}": stateful(
            "assign/unassign_workspaces"),
    },
    not_served={"Unity Catalog beyond catalogs": ("POST /unity-catalog/catalogs",
                                                  "GET /unity-catalog/schemas",
                                                  "GET /unity-catalog/tables")},
    initial_data=_add_initial,
)
