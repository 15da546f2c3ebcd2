"""Lakeview dashboards (model.py: a draft at a unique path with its content in the
service's form, an etag per change, trashed on delete; its published copy), their routes
(routes.py), and their permissions (`dashboards`)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.dashboards.lakeview import routes
from workspace_emulator.platform.areas.dashboards.lakeview.model import TABLES, Dashboards
from workspace_emulator.platform.areas.sql.sql_objects import folder_checker
from workspace_emulator.platform.areas.sql.sql_warehouses.model import SqlWarehouses
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> Dashboards:
    return Dashboards(context.db, context.state(SqlWarehouses).exists, folder_checker(context))


AREA = Area(
    name="lakeview",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    support={
        "POST /lakeview/dashboards": stateful(
            "display_name required; <parent_path>/<name>.lvdash.json unique; the folder and "
            "warehouse must exist; serialized_dashboard a JSON object, kept in the service's "
            "form"),
        "GET /lakeview/dashboards": stateful("no content; show_trashed; page_size up to 100, "
                                             "page_token"),
        "GET /lakeview/dashboards/{dashboard_id}": stateful(
            "a trashed one too, lifecycle_state TRASHED"),
        "PATCH /lakeview/dashboards/{dashboard_id}": stateful(
            "display_name, serialized_dashboard, warehouse_id; a new etag and update_time; "
            "a stale etag 409 RESOURCE_CONFLICT"),
        "DELETE /lakeview/dashboards/{dashboard_id}": stateful(
            "moves the draft to the trash, unpublished"),
        "POST /lakeview/dashboards/{dashboard_id}/published": stateful(
            "copies the draft; embed_credentials (default true), the draft's warehouse or "
            "the one given"),
        "GET /lakeview/dashboards/{dashboard_id}/published": stateful(
            "404 while not published"),
        "DELETE /lakeview/dashboards/{dashboard_id}/published": stateful(
            "404 while not published"),
    },
    permission_objects={"dashboards": Dashboards.exists},
)
