"""Unity Catalog: catalogs and their workspace bindings (current and legacy paths)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.errors import InvalidParameter
from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Id64, Open, ok

router = APIRouter(prefix="/api/2.1/unity-catalog", tags=["unity-catalog"])
BINDABLE = ("catalog",)


class UpdateCatalogBody(Open):
    isolation_mode: str | None = None
    owner: str | None = None
    comment: str | None = None
    new_name: str | None = None


class Binding(Open):
    workspace_id: Id64 | str | None = None
    binding_type: str | None = None


class UpdateBindingsBody(Open):
    add: list[Binding] | None = None
    remove: list[Binding] | None = None
    unassign_workspaces: list[Id64 | str] | None = None
    assign_workspaces: list[Id64 | str] | None = None


class LegacyBindingsBody(Open):
    assign_workspaces: list[Id64 | str] | None = None
    unassign_workspaces: list[Id64 | str] | None = None


def _check_bindable(securable_type: str) -> None:
    if securable_type.lower() not in BINDABLE:
        raise InvalidParameter(
            f"Securable type '{securable_type}' has no workspace bindings here; use 'catalog'.")


@router.get("/catalogs")
async def list_catalogs(
    ws: WorkspaceDep, _: CallerDep,
) -> JSONResponse:
    return ok({"catalogs": ws.catalogs.all()})


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


@router.get("/bindings/{securable_type}/{name}")
async def get_bindings(
    securable_type: str, name: str, ws: WorkspaceDep, _: CallerDep,
    max_results: int | None = None, page_token: str | None = None,
) -> JSONResponse:
    _check_bindable(securable_type)
    return ok({"bindings": ws.catalogs.bindings(name)})


@router.patch("/bindings/{securable_type}/{name}")
async def update_bindings(
    securable_type: str, name: str, body: UpdateBindingsBody,
    ws: WorkspaceDep, caller: CallerDep,
) -> JSONResponse:
    _check_bindable(securable_type)
    request = body.as_request()
    bindings = ws.catalogs.update_bindings(
        name, caller, add=request.get("add"), remove=request.get("remove"),
        unassign_workspaces=request.get("unassign_workspaces"),
        assign_workspaces=request.get("assign_workspaces"),
    )
    return ok({"bindings": bindings})


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
