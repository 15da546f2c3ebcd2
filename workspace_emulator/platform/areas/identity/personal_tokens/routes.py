"""Personal access tokens of the calling principal (model.py)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.errors import InvalidParameter, PermissionDenied
from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Int64, Open, ok

router = APIRouter(prefix="/api/2.0/token", tags=["tokens"])


class CreateTokenBody(Open):
    lifetime_seconds: Int64 | None = None
    comment: str | None = None


class DeleteTokenBody(Open):
    token_id: str


@router.post("/create")
async def create_token(body: CreateTokenBody, ws: WorkspaceDep,
                       caller: CallerDep) -> JSONResponse:
    lifetime = _lifetime_allowed(ws, body.lifetime_seconds)
    value, info = ws.personal_tokens.create(caller.application_id, lifetime, body.comment)
    return ok({"token_value": value, "token_info": info})


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
