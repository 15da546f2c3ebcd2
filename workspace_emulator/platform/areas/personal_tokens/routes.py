"""Personal access tokens of the calling principal (model.py)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

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
    value, info = ws.personal_tokens.create(caller.application_id, body.lifetime_seconds,
                                            body.comment)
    return ok({"token_value": value, "token_info": info})


@router.get("/list")
async def list_tokens(ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok({"token_infos": ws.personal_tokens.of(caller.application_id)})


@router.post("/delete")
async def delete_token(body: DeleteTokenBody, ws: WorkspaceDep,
                       caller: CallerDep) -> JSONResponse:
    ws.personal_tokens.delete(caller.application_id, body.token_id)
    return ok()
