"""GET, PATCH and DELETE of the typed workspace settings (model.py)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import AdminDep, CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import ok

router = APIRouter(prefix="/api/2.0/settings/types", tags=["settings"])


@router.get("/{type_name}/names/default")
async def get_setting(type_name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.typed_settings.get(type_name))


@router.patch("/{type_name}/names/default")
async def update_setting(type_name: str, body: dict[str, Any], ws: WorkspaceDep,
                         _: AdminDep) -> JSONResponse:
    return ok(ws.typed_settings.update(type_name, body))


@router.delete("/{type_name}/names/default")
async def delete_setting(type_name: str, ws: WorkspaceDep, _: AdminDep,
                         etag: str | None = None) -> JSONResponse:
    return ok(ws.typed_settings.delete(type_name, etag))
