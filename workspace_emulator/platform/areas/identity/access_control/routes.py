"""The account access-control proxy's rule sets: GET (by name, with the etag read) and PUT
(the whole rule set, with the etag it was read at)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0/preview/accounts/access-control", tags=["access-control"])


class UpdateRuleSetBody(Open):
    name: str
    rule_set: dict[str, Any]


@router.get("/rule-sets")
async def get_rule_set(
    name: str, ws: WorkspaceDep, _: CallerDep, etag: str = "",
) -> JSONResponse:
    return ok(ws.access_control.get(name))


@router.put("/rule-sets")
async def update_rule_set(
    body: UpdateRuleSetBody, ws: WorkspaceDep, caller: CallerDep,
) -> JSONResponse:
    return ok(ws.access_control.update(body.name, body.rule_set, caller))
