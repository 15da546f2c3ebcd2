"""The caller's Git credentials (or, with `principal_id`, a service principal's, for an
admin)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.errors import PermissionDenied
from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.directory import Caller
from workspace_emulator.platform.wire import Id64, Open, ok

router = APIRouter(prefix="/api/2.0")


class CredentialBody(Open):
    git_provider: str | None = None
    git_username: str | None = None
    git_email: str | None = None
    personal_access_token: str | None = None
    name: str | None = None
    is_default_for_provider: bool | None = None
    principal_id: Id64 | None = None


def _owner(ws: Any, caller: Caller, principal_id: int | None) -> str:
    """Whose credentials a call reaches: the caller's, or a service principal's that an
    admin (a manager of every principal) names."""
    if principal_id is None or str(principal_id) == caller.principal_id:
        return caller.principal_id
    if not caller.is_admin:
        raise PermissionDenied(
            "Only a manager of the service principal may change its Git credentials.")
    return ws.directory.service_principal(str(principal_id)).id


@router.get("/git-credentials", tags=["git-credentials"])
async def list_credentials(
    ws: WorkspaceDep, caller: CallerDep, principal_id: int | None = None,
) -> JSONResponse:
    return ok({"credentials": ws.git_credentials.list(_owner(ws, caller, principal_id))})


@router.post("/git-credentials", tags=["git-credentials"])
async def create_credential(
    body: CredentialBody, ws: WorkspaceDep, caller: CallerDep,
) -> JSONResponse:
    owner = _owner(ws, caller, body.principal_id)
    return ok(ws.git_credentials.create(owner, body.as_request()))


@router.get("/git-credentials/{credential_id}", tags=["git-credentials"])
async def get_credential(
    credential_id: Id64, ws: WorkspaceDep, caller: CallerDep, principal_id: int | None = None,
) -> JSONResponse:
    return ok(ws.git_credentials.get(_owner(ws, caller, principal_id), credential_id))


@router.patch("/git-credentials/{credential_id}", tags=["git-credentials"])
async def update_credential(
    credential_id: Id64, body: CredentialBody, ws: WorkspaceDep, caller: CallerDep,
) -> JSONResponse:
    owner = _owner(ws, caller, body.principal_id)
    ws.git_credentials.update(owner, credential_id, body.as_request())
    return ok()


@router.delete("/git-credentials/{credential_id}", tags=["git-credentials"])
async def delete_credential(
    credential_id: Id64, ws: WorkspaceDep, caller: CallerDep, principal_id: int | None = None,
) -> JSONResponse:
    ws.git_credentials.delete(_owner(ws, caller, principal_id), credential_id)
    return ok()
