"""The secrets of a scope and its access-control list (model.py). The bodies'
values are never echoed: errors name fields, not what they held."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0/secrets", tags=["secrets"])


class PutSecretBody(Open):
    scope: str
    key: Any = None
    string_value: Any = None
    bytes_value: Any = None


class SecretKeyBody(Open):
    scope: str
    key: str


class PutAclBody(Open):
    scope: str
    principal: str
    permission: Any = None


class AclPrincipalBody(Open):
    scope: str
    principal: str


@router.post("/put")
async def put_secret(body: PutSecretBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    ws.secrets.put(body.as_request(), caller)
    return ok()


@router.get("/list")
async def list_secrets(scope: str, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok({"secrets": ws.secrets.list_secrets(scope, caller)})


@router.get("/get")
async def get_secret(scope: str, key: str, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok(ws.secrets.get(scope, key, caller))


@router.post("/delete")
async def delete_secret(body: SecretKeyBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    ws.secrets.delete(body.scope, body.key, caller)
    return ok()


@router.post("/acls/put")
async def put_acl(body: PutAclBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    ws.secrets.put_acl(body.scope, body.principal, body.permission, caller)
    return ok()


@router.get("/acls/get")
async def get_acl(scope: str, principal: str, ws: WorkspaceDep, caller: CallerDep
                  ) -> JSONResponse:
    return ok(ws.secrets.get_acl(scope, principal, caller))


@router.get("/acls/list")
async def list_acls(scope: str, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok({"items": ws.secrets.list_acls(scope, caller)})


@router.post("/acls/delete")
async def delete_acl(body: AclPrincipalBody, ws: WorkspaceDep, caller: CallerDep
                     ) -> JSONResponse:
    ws.secrets.delete_acl(body.scope, body.principal, caller)
    return ok()
