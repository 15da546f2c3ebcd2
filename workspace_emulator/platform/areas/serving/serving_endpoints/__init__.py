"""Model serving endpoints (model.py: the configuration checked as the service checks it,
the NOT_READY -> READY and config_update IN_PROGRESS -> NOT_UPDATING moves over the
transition time, the pending-config rule), their routes (routes.py), and their permissions
(`serving-endpoints`, by the endpoint's id)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.serving.serving_endpoints import routes
from workspace_emulator.platform.areas.serving.serving_endpoints.model import (
    TABLES,
    ServingEndpoints,
)
from workspace_emulator.platform.fidelity import simulated, stateful


def _open(context: AreaContext) -> ServingEndpoints:
    return ServingEndpoints(context.db, context.settings.transition_seconds)


AREA = Area(
    name="serving_endpoints",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=110,
    support={
        "GET /serving-endpoints": simulated("states settled on read; served entities by "
                                            "name; one page"),
        "POST /serving-endpoints": simulated(
            "served entities and traffic checked, names unique; NOT_READY with a pending "
            "config -> READY over the transition time"),
        "GET /serving-endpoints/{name}": simulated("config, pending_config and state "
                                                   "computed from stored timestamps"),
        "DELETE /serving-endpoints/{name}": stateful("gone from every read"),
        "PUT /serving-endpoints/{name}/config": simulated(
            "config_update IN_PROGRESS -> NOT_UPDATING, config_version + 1; refused "
            "(RESOURCE_CONFLICT) while one is in progress"),
        "PUT /serving-endpoints/{name}/ai-gateway": stateful(
            "usage tracking, rate limits, inference tables, guardrails replaced"),
        "PATCH /serving-endpoints/{name}/tags": stateful("add_tags, delete_tags"),
    },
    permission_objects={"serving-endpoints": ServingEndpoints.exists},
)
