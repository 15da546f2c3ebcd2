"""Workspace settings: the known keys, their defaults and value checks (model.py), and
their routes (routes.py). The IP access list switch is the ip_access_lists area's."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, Mount
from workspace_emulator.platform.areas.workspace.ip_access_lists.model import IpAccessLists
from workspace_emulator.platform.areas.workspace.workspace_conf import routes
from workspace_emulator.platform.areas.workspace.workspace_conf.model import TABLES, WorkspaceConf
from workspace_emulator.platform.fidelity import stateful

AREA = Area(
    name="workspace_conf",
    open=lambda context: WorkspaceConf(context.db, context.state(IpAccessLists)),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=91,
    support={
        "GET /workspace-conf": stateful("known keys only (an unknown one refused, named); "
                                        "defaults of a new workspace"),
        "PATCH /workspace-conf": stateful("values checked per key before any is set; "
                                          "enableIpAccessLists enforced on every call, "
                                          "maxTokenLifetimeDays and enableTokensConfig on "
                                          "token creation"),
    },
)
