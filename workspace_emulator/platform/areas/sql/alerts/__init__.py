"""Alerts of the SQL API (model.py: checked as the service checks them, on an active query,
changed by update mask, trashed on delete), their routes (routes.py), and their permissions
(`sql/alerts`)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.sql.alerts import routes
from workspace_emulator.platform.areas.sql.alerts.model import TABLES, Alerts
from workspace_emulator.platform.areas.sql.queries.model import Queries
from workspace_emulator.platform.areas.sql.sql_objects import folder_checker
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> Alerts:
    return Alerts(context.db, context.state(Queries).exists, folder_checker(context))


AREA = Area(
    name="alerts",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    support={
        "POST /sql/alerts": stateful("display_name, an active query, a condition (op, "
                                     "operand column, a threshold of one value but for "
                                     "IS_NULL) required; state UNKNOWN; parent_path an "
                                     "existing folder (default: the caller's home)"),
        "GET /sql/alerts": stateful("active alerts, oldest first; page_size up to 100, "
                                    "page_token"),
        "GET /sql/alerts/{alert_id}": stateful("a trashed alert too, lifecycle_state TRASHED"),
        "PATCH /sql/alerts/{alert_id}": stateful("update_mask required (fields or *): a masked "
                                           "field left out is cleared, an unmasked one kept"),
        "DELETE /sql/alerts/{alert_id}": stateful("moves the alert to the trash"),
    },
    permission_objects={"sql/alerts": Alerts.exists},
)
