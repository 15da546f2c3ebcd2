"""SQL warehouses (model.py: settings checked and filled in as the service does; the
STARTING -> RUNNING and STOPPING -> STOPPED moves and the auto stop played out over time),
their routes (routes.py), and their permissions (`warehouses`, also `sql/warehouses`)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.sql.sql_warehouses import routes
from workspace_emulator.platform.areas.sql.sql_warehouses.model import TABLES, SqlWarehouses
from workspace_emulator.platform.fidelity import simulated, stateful


def _open(context: AreaContext) -> SqlWarehouses:
    return SqlWarehouses(context.db, context.settings.transition_seconds,
                         context.settings.base_url)


AREA = Area(
    name="sql_warehouses",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=95,
    support={
        "GET /sql/warehouses": simulated("states settled on read; one page"),
        "POST /sql/warehouses": simulated("settings validated, defaults filled in, names "
                                          "unique; STARTING -> RUNNING over the transition "
                                          "time"),
        "GET /sql/warehouses/{warehouse_id}": simulated("state computed from stored "
                                                        "timestamps; auto stop when idle"),
        "POST /sql/warehouses/{warehouse_id}/edit": simulated(
            "changes the fields given; a running warehouse restarts where its clusters "
            "change"),
        "DELETE /sql/warehouses/{warehouse_id}": stateful("gone from every read"),
        "POST /sql/warehouses/{warehouse_id}/start": simulated(
            "STOPPED -> STARTING -> RUNNING; a running one unchanged"),
        "POST /sql/warehouses/{warehouse_id}/stop": simulated(
            "STOPPING -> STOPPED; a stopped one unchanged"),
    },
    permission_objects={"warehouses": SqlWarehouses.exists},
)
