"""Queries of the SQL API (model.py: checked as the service checks them, changed by update
mask, trashed on delete), their routes (routes.py), and their permissions (`sql/queries`)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.sql.queries import routes
from workspace_emulator.platform.areas.sql.queries.model import TABLES, Queries
from workspace_emulator.platform.areas.sql.sql_objects import folder_checker
from workspace_emulator.platform.areas.sql.sql_warehouses.model import SqlWarehouses
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> Queries:
    return Queries(context.db, context.state(SqlWarehouses).exists, folder_checker(context))


AREA = Area(
    name="queries",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    support={
        "POST /sql/queries": stateful("display_name required; the warehouse must exist; "
                                      "parameters named once, one kind of value each; "
                                      "parent_path an existing folder (default: the "
                                      "caller's home)"),
        "GET /sql/queries": stateful("active queries, oldest first; page_size up to 100, "
                                     "page_token"),
        "GET /sql/queries/{query_id}": stateful("a trashed query too, lifecycle_state TRASHED"),
        "PATCH /sql/queries/{query_id}": stateful("update_mask required (fields or *): a masked "
                                            "field left out is cleared, an unmasked one kept"),
        "DELETE /sql/queries/{query_id}": stateful("moves the query to the trash"),
    },
    permission_objects={"sql/queries": Queries.exists},
)
