"""Permissions under /api/2.0/permissions: of jobs (kept with the job, areas/jobs) and of
every other object type (model.py). The objects of a type exist where an area holds them
(`Area.permission_objects`: clusters, cluster policies, repos), else as the initial data
names them; so this area comes after those in AREAS."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, InitialData, Mount
from workspace_emulator.platform.areas.access.object_permissions import routes
from workspace_emulator.platform.areas.access.object_permissions.model import (
    TABLES,
    ObjectPermissions,
)
from workspace_emulator.platform.fidelity import stateful, validated


def _open(context: AreaContext) -> ObjectPermissions:
    permissions = ObjectPermissions(context.db, context.directory)
    owners = context.permission_owners()
    for object_type, exists in context.permission_objects().items():
        permissions.serve(object_type, exists, owners.get(object_type))
    return permissions


def _add_initial(permissions: ObjectPermissions, initial: InitialData) -> None:
    for known in initial.section("permission_objects"):
        permissions.add_initial(initial.conn, known)


AREA = Area(
    name="object_permissions",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=20,
    support={
        "GET /permissions/jobs/{job_id}": stateful("owner, admins (inherited) and direct "
                                                   "grants"),
        "PUT /permissions/jobs/{job_id}": stateful("replaces the direct grants; principals "
                                                   "must exist"),
        "PATCH /permissions/jobs/{job_id}": stateful("adds or changes grants"),
        "GET /permissions/jobs/{job_id}/permissionLevels": validated("the fixed job "
                                                                     "permission levels"),
        "GET /permissions/{object_type}/{object_id}": stateful("14 object types; owner and "
                                                               "grants"),
        "PUT /permissions/{object_type}/{object_id}": stateful("replaces the grants; owner "
                                                               "rules, levels per type, "
                                                               "CAN_MANAGE needed"),
        "PATCH /permissions/{object_type}/{object_id}": stateful("adds or changes grants"),
        "GET /permissions/{object_type}/{object_id}/permissionLevels": validated(
            "the type's levels"),
    },
    initial_data=_add_initial,
)
