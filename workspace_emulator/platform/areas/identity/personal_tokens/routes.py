"""Personal access tokens of the calling principal (model.py)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.errors import InvalidParameter, PermissionDenied
from workspace_emulator.platform.auth import AdminDep, CallerDep, WorkspaceDep
from workspace_emulator.platform.directory import Caller
from workspace_emulator.platform.wire import Int64, Open, ok

router = APIRouter(prefix="/api/2.0/token", tags=["tokens"])
management = APIRouter(prefix="/api/2.0/token-management", tags=["token-management"])


class CreateTokenBody(Open):
    lifetime_seconds: Int64 | None = None
    comment: str | None = None


class DeleteTokenBody(Open):
    token_id: str


class CreateOboTokenBody(Open):
    application_id: str
    lifetime_seconds: Int64 | None = None
    comment: str | None = None


def _made_by(caller: Caller, owner_id: str) -> dict[str, object]:
    return {"owner_id": int(owner_id), "created_by_id": int(caller.principal_id),
            "created_by_username": caller.application_id}


@router.post("/create")
async def create_token(body: CreateTokenBody, ws: WorkspaceDep,
                       caller: CallerDep) -> JSONResponse:
    lifetime = _lifetime_allowed(ws, body.lifetime_seconds)
    value, info = ws.personal_tokens.create(caller.application_id, lifetime, body.comment,
                                            _made_by(caller, caller.principal_id))
    public = {k: info[k] for k in ("token_id", "creation_time", "expiry_time", "comment")
              if k in info}
    return ok({"token_value": value, "token_info": public})


@management.post("/on-behalf-of/tokens")
async def create_obo_token(body: CreateOboTokenBody, ws: WorkspaceDep,
                           caller: AdminDep) -> JSONResponse:
    principal = ws.directory.find_service_principal(body.application_id)
    if principal is None or principal.application_id != body.application_id:
        raise InvalidParameter(
            f"'application_id' {body.application_id!r} is not the application id of a "
            "service principal of this workspace.")
    lifetime = _lifetime_allowed(ws, body.lifetime_seconds)
    value, info = ws.personal_tokens.create(principal.application_id, lifetime, body.comment,
                                            _made_by(caller, principal.id))
    return ok({"token_value": value, "token_info": info})


@management.get("/tokens")
async def list_managed_tokens(ws: WorkspaceDep, _: AdminDep,
                              created_by_id: int | None = None) -> JSONResponse:
    found = [t for t in ws.personal_tokens.managed()
             if created_by_id is None or t.get("created_by_id") == created_by_id]
    return ok({"token_infos": found})


@management.get("/tokens/{token_id}")
async def get_managed_token(token_id: str, ws: WorkspaceDep, _: AdminDep) -> JSONResponse:
    return ok({"token_info": ws.personal_tokens.managed_one(token_id)})


@management.delete("/tokens/{token_id}")
async def delete_managed_token(token_id: str, ws: WorkspaceDep, _: AdminDep) -> JSONResponse:
    ws.personal_tokens.delete_any(token_id)
    return ok()


def _lifetime_allowed(ws: WorkspaceDep, lifetime_seconds: int | None) -> int | None:
    """The lifetime the workspace settings allow (`enableTokensConfig`,
    `maxTokenLifetimeDays`): a longer one refused, none given the maximum."""
    if not ws.workspace_conf.tokens_enabled():
        raise PermissionDenied("Personal access tokens are disabled in this workspace "
                               "(workspace setting enableTokensConfig is \"false\").")
    days = ws.workspace_conf.max_token_lifetime_days()
    if days is None:
        return lifetime_seconds
    if lifetime_seconds is not None and lifetime_seconds > days * 86400:
        raise InvalidParameter(
            f"'lifetime_seconds' {lifetime_seconds} exceeds the workspace's maximum token "
            f"lifetime of {days} days (workspace setting maxTokenLifetimeDays).")
    return lifetime_seconds or days * 86400


@router.get("/list")
async def list_tokens(ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok({"token_infos": ws.personal_tokens.of(caller.application_id)})


@router.post("/delete")
async def delete_token(body: DeleteTokenBody, ws: WorkspaceDep,
                       caller: CallerDep) -> JSONResponse:
    ws.personal_tokens.delete(caller.application_id, body.token_id)
    return ok()
