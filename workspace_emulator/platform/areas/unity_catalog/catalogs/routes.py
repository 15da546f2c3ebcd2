"""Unity Catalog: catalogs and their legacy workspace-bindings path (the current bindings
path of every securable is the unity_catalog area's)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Id64, Open, ok

router = APIRouter(prefix="/api/2.1/unity-catalog", tags=["unity-catalog"])


class CreateCatalogBody(Open):
    name: str | None = None
    comment: str | None = None
    properties: dict[str, Any] | None = None
    options: dict[str, Any] | None = None
    storage_root: str | None = None
    connection_name: str | None = None
    provider_name: str | None = None
    share_name: str | None = None


class UpdateCatalogBody(Open):
    isolation_mode: str | None = None
    owner: str | None = None
    comment: str | None = None
    new_name: str | None = None
    properties: dict[str, Any] | None = None
    options: dict[str, Any] | None = None
    enable_predictive_optimization: str | None = None


class LegacyBindingsBody(Open):
    assign_workspaces: list[Id64 | str] | None = None
    unassign_workspaces: list[Id64 | str] | None = None


@router.get("/catalogs")
async def list_catalogs(
    ws: WorkspaceDep, _: CallerDep,
) -> JSONResponse:
    return ok({"catalogs": ws.catalogs.all()})


@router.post("/catalogs")
async def create_catalog(
    body: CreateCatalogBody, ws: WorkspaceDep, caller: CallerDep,
) -> JSONResponse:
    return ok(ws.catalogs.create(body.as_request(), caller))


@router.delete("/catalogs/{name}")
async def delete_catalog(
    name: str, ws: WorkspaceDep, caller: CallerDep, force: bool = False,
) -> JSONResponse:
    ws.catalogs.delete(name, caller, force=force)
    return ok()


@router.get("/catalogs/{name}")
async def get_catalog(
    name: str, ws: WorkspaceDep, _: CallerDep,
) -> JSONResponse:
    return ok(ws.catalogs.get(name))


@router.patch("/catalogs/{name}")
async def update_catalog(
    name: str, body: UpdateCatalogBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    return ok(ws.catalogs.update(name, body.as_request(), caller))


@router.get("/workspace-bindings/catalogs/{name}", summary="Legacy bindings path")
async def get_legacy_bindings(
    name: str, ws: WorkspaceDep, _: CallerDep,
) -> JSONResponse:
    return ok({"workspaces": [b["workspace_id"] for b in ws.catalogs.bindings(name)]})


@router.patch("/workspace-bindings/catalogs/{name}", summary="Legacy bindings path")
async def update_legacy_bindings(
    name: str, body: LegacyBindingsBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    request = body.as_request()
    bindings = ws.catalogs.update_bindings(
        name, caller, assign_workspaces=request.get("assign_workspaces"),
        unassign_workspaces=request.get("unassign_workspaces"),
    )
    return ok({"workspaces": [b["workspace_id"] for b in bindings]})
