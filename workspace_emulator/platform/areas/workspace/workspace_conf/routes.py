"""GET and PATCH of the workspace settings."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import AddressDep, AdminDep, CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import ok

router = APIRouter(prefix="/api/2.0")


@router.get("/workspace-conf", tags=["workspace-conf"])
async def get_workspace_conf(ws: WorkspaceDep, _: CallerDep, keys: str = "") -> JSONResponse:
    names = [key.strip() for key in keys.split(",") if key.strip()]
    return ok(ws.workspace_conf.get(names))


@router.patch("/workspace-conf", tags=["workspace-conf"])
async def set_workspace_conf(
    body: dict[str, Any], ws: WorkspaceDep, _: AdminDep, address: AddressDep,
) -> JSONResponse:
    ws.workspace_conf.set(body, address)
    return ok()
