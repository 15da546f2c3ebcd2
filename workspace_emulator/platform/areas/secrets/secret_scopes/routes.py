"""Secret scopes: create, delete and list (the scope model keeps them)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0")


class KeyVault(Open):
    resource_id: str | None = None
    dns_name: str | None = None


class CreateScopeBody(Open):
    scope: str
    scope_backend_type: str | None = None
    backend_cloud_keyvault: KeyVault | None = None
    backend_azure_keyvault: KeyVault | None = None
    initial_manage_principal: str | None = None


class ScopeNameBody(Open):
    scope: str


@router.get("/secrets/scopes/list", tags=["secrets"])
async def list_scopes(
    ws: WorkspaceDep, _: CallerDep,
) -> JSONResponse:
    return ok({"scopes": ws.secret_scopes.all()})


@router.post("/secrets/scopes/create", tags=["secrets"])
async def create_scope(
    body: CreateScopeBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    ws.secret_scopes.create(body.as_request(), caller.application_id)
    return ok()


@router.post("/secrets/scopes/delete", tags=["secrets"])
async def delete_scope(
    body: ScopeNameBody, ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    ws.secret_scopes.delete(body.scope)
    return ok()
