"""IP access lists: the lists and the switch that turns them on (model.py; the workspace_conf
area serves it as `enableIpAccessLists`), their routes (routes.py), and their enforcement
before the credentials of every call."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, InitialData, Mount
from workspace_emulator.platform.areas.workspace.ip_access_lists import routes
from workspace_emulator.platform.areas.workspace.ip_access_lists.model import TABLES, IpAccessLists
from workspace_emulator.platform.fidelity import stateful


def _add_initial(lists: IpAccessLists, initial: InitialData) -> None:
    for access_list in initial.section("ip_access_lists"):
        lists.add_initial(initial.conn, access_list)


AREA = Area(
    name="ip_access_lists",
    open=lambda context: IpAccessLists(context.db),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=90,
    support={
        "GET /ip-access-lists": stateful("initial-data lists"),
        "GET /ip-access-lists/{list_id}": stateful(""),
        "POST /ip-access-lists": stateful("addresses validated; a list blocking the caller "
                                          "refused"),
        "PATCH /ip-access-lists/{list_id}": stateful("as create"),
        "PUT /ip-access-lists/{list_id}": stateful("replaces the list; as create"),
        "DELETE /ip-access-lists/{list_id}": stateful(""),
    },
    initial_data=_add_initial,
    refuses_address=IpAccessLists.refuse_if_blocked,
)
