"""Instance pools (model.py: settings checked and filled in as the service does, what an
edit may change, statistics, ACTIVE or DELETED), their routes (routes.py), and their
permissions (`instance-pools`). Opened before the clusters, which must name an existing
pool and tell the pools how many of them run from each."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, Mount
from workspace_emulator.platform.areas.compute.instance_pools import routes
from workspace_emulator.platform.areas.compute.instance_pools.model import TABLES, InstancePools
from workspace_emulator.platform.fidelity import stateful

AREA = Area(
    name="instance_pools",
    open=lambda context: InstancePools(context.db),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=95,
    support={
        "POST /instance-pools/create": stateful("settings validated, defaults filled in, "
                                                "names unique; ACTIVE"),
        "POST /instance-pools/edit": stateful("replaces the editable settings; node type and "
                                              "cloud settings cannot change"),
        "GET /instance-pools/get": stateful("a deleted pool shows DELETED; stats: idle "
                                            "instances and running clusters"),
        "GET /instance-pools/list": stateful("the pools not deleted, with stats"),
        "POST /instance-pools/delete": stateful("DELETED; clusters can no longer name it"),
    },
    permission_objects={"instance-pools": InstancePools.exists},
)
