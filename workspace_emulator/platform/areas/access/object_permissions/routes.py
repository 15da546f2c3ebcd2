"""Permissions of jobs and every other object type: GET, PUT (replace direct entries), PATCH
(merge), and the levels an object allows (GET .../permissionLevels)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.areas.jobs.jobs.job_permissions import LEVELS
from workspace_emulator.platform.areas.jobs.jobs.routes import AclRequestEntry
from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Id64, Open, ok

router = APIRouter(prefix="/api/2.0/permissions", tags=["permissions"])


class AccessControlBody(Open):
    access_control_list: list[AclRequestEntry] = []


def _entries(body: AccessControlBody) -> list[dict]:
    return body.as_request().get("access_control_list", [])


@router.get("/jobs/{job_id}")
async def get_job_permissions(
    job_id: Id64, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    return ok(ws.jobs.permissions(job_id, caller))


@router.put("/jobs/{job_id}")
async def replace_job_permissions(
    job_id: Id64, body: AccessControlBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    return ok(ws.jobs.change_permissions(job_id, _entries(body), caller, replace_all=True))


@router.patch("/jobs/{job_id}")
async def update_job_permissions(
    job_id: Id64, body: AccessControlBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    return ok(ws.jobs.change_permissions(job_id, _entries(body), caller, replace_all=False))


@router.get("/jobs/{job_id}/permissionLevels")
async def job_permission_levels(
    job_id: Id64, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    ws.jobs.permissions(job_id, caller)
    return ok({"permission_levels": [{"permission_level": level} for level in LEVELS]})


# --- every other object type (model.py) -------------------------------------------------
# The types under `sql/` (queries, alerts, legacy dashboards, and the older spelling of
# warehouses) have a slash of their own, hence their own routes; `authorization/tokens` and
# `authorization/passwords` are the type `authorization` and the object `tokens`/`passwords`.


def _sql_type(sql_type: str | None, object_type: str) -> str:
    return object_type if sql_type is None else f"sql/{sql_type}"


@router.get("/sql/{sql_type}/{object_id}", include_in_schema=False)
@router.get("/{object_type}/{object_id}")
async def get_object_permissions(
    object_id: str, ws: WorkspaceDep, caller: CallerDep,
    object_type: str = "", sql_type: str | None = None,
) -> JSONResponse:
    return ok(ws.object_permissions.get(_sql_type(sql_type, object_type), object_id, caller))


@router.put("/sql/{sql_type}/{object_id}", include_in_schema=False)
@router.put("/{object_type}/{object_id}")
async def replace_object_permissions(
    object_id: str, body: AccessControlBody, ws: WorkspaceDep, caller: CallerDep,
    object_type: str = "", sql_type: str | None = None,
) -> JSONResponse:
    return ok(ws.object_permissions.change(
        _sql_type(sql_type, object_type), object_id, _entries(body), caller, replace_all=True))


@router.patch("/sql/{sql_type}/{object_id}", include_in_schema=False)
@router.patch("/{object_type}/{object_id}")
async def update_object_permissions(
    object_id: str, body: AccessControlBody, ws: WorkspaceDep, caller: CallerDep,
    object_type: str = "", sql_type: str | None = None,
) -> JSONResponse:
    return ok(ws.object_permissions.change(
        _sql_type(sql_type, object_type), object_id, _entries(body), caller, replace_all=False))


@router.get("/sql/{sql_type}/{object_id}/permissionLevels", include_in_schema=False)
@router.get("/{object_type}/{object_id}/permissionLevels")
async def object_permission_levels(
    object_id: str, ws: WorkspaceDep, caller: CallerDep,
    object_type: str = "", sql_type: str | None = None,
) -> JSONResponse:
    levels = ws.object_permissions.levels(_sql_type(sql_type, object_type), object_id, caller)
    return ok({"permission_levels": [{"permission_level": level} for level in levels]})
