"""The account API on the emulator's host: account SCIM (groups, users, service principals)
and the workspace's permission assignments. The account's admins are the workspace's
admins (one identity provider serves both). Reads are open to every principal signed in
(a read-only preview principal reads the account's groups): the service asks for an account
admin or a reader role, which the emulator does not model."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Response
from fastapi.responses import JSONResponse

from workspace_emulator.errors import InvalidParameter
from workspace_emulator.platform.areas.identity.accounts.model import (
    AccountDirectory,
    AccountGroup,
    AccountServicePrincipal,
    Principal,
)
from workspace_emulator.platform.areas.identity.scim import resources as scim
from workspace_emulator.platform.areas.identity.scim.account import AccountUser
from workspace_emulator.platform.areas.identity.scim.routes import (
    PatchBody,  # the SCIM PatchOp, as the workspace's
)
from workspace_emulator.platform.auth import AdminDep, CallerDep, WorkspaceDep
from workspace_emulator.platform.directory import Group
from workspace_emulator.platform.wire import Open, ok
from workspace_emulator.platform.workspace import Workspace

ACCOUNT = "/api/2.0/accounts/{account_id}"
scim_router = APIRouter(prefix=f"{ACCOUNT}/scim/v2", tags=["account scim"])
assignments_router = APIRouter(
    prefix=f"{ACCOUNT}/workspaces/{{workspace_id}}/permissionassignments",
    tags=["workspace assignment"])


class ScimValue(Open):
    value: str | None = None


class AccountGroupBody(Open):
    schemas: list[str] | None = None
    displayName: str | None = None
    members: list[ScimValue] | None = None
    externalId: str | None = None


class AccountUserBody(Open):
    schemas: list[str] | None = None
    userName: str | None = None
    displayName: str | None = None


class AccountServicePrincipalBody(Open):
    schemas: list[str] | None = None
    applicationId: str | None = None
    displayName: str | None = None




class AssignmentBody(Open):
    permissions: list[Any] | None = None


def _list_params(
    filter: str | None = None,
    startIndex: Annotated[int | None, Query(ge=-(2**31), le=2**31 - 1)] = None,
    count: Annotated[int | None, Query(ge=-(2**31), le=2**31 - 1)] = None,
    attributes: str | None = None,
    excludedAttributes: str | None = None,
    sortBy: str | None = None,
    sortOrder: str | None = None,
) -> dict[str, Any]:
    return {"filter_text": filter, "start_index": startIndex, "count": count}


def _account(ws: Workspace, account_id: str) -> AccountDirectory:
    accounts: AccountDirectory = ws.accounts
    accounts.check_path(account_id)
    return accounts


def _render_group(group: AccountGroup, accounts: AccountDirectory) -> dict:
    members = []
    for member_id in group.member_ids:
        principal = accounts.principal(member_id)
        if principal is not None:
            members.append({"value": principal.id, "display": principal.display_name,
                            "$ref": f"{_ref_kind(principal)}/{principal.id}"})
    resource: dict[str, Any] = {
        "schemas": [scim.GROUP_SCHEMA], "id": group.id, "displayName": group.display_name,
        "members": members, "meta": {"resourceType": "Group"}}
    if group.external_id:
        resource["externalId"] = group.external_id
    return resource


def _ref_kind(principal: Principal) -> str:
    return {"group": "Groups", "user": "Users"}.get(principal.kind, "ServicePrincipals")


def _render_user(user: AccountUser) -> dict:
    return {"schemas": [scim.USER_SCHEMA], "id": user.id, "userName": user.user_name,
            "displayName": user.display_name, "active": True,
            "emails": [{"value": user.user_name, "type": "work", "primary": True}]}


def _render_service_principal(principal: AccountServicePrincipal) -> dict:
    return {"schemas": [scim.SP_SCHEMA], "id": principal.id,
            "applicationId": principal.application_id,
            "displayName": principal.display_name, "active": principal.active}


def _member_ids(members: Any) -> tuple[str, ...]:
    if members is None:
        return ()
    found = []
    for member in members:
        value = member.get("value") if isinstance(member, dict) else None
        if not isinstance(value, str) or not value:
            raise InvalidParameter("every entry of 'members' needs a string 'value'")
        found.append(value)
    return tuple(found)


def _group_fields(request: dict) -> tuple[str, tuple[str, ...], str | None]:
    scim.require_schema(request, scim.GROUP_SCHEMA)
    name = request.get("displayName")
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameter("'displayName' is required")
    return name, _member_ids(request.get("members")), request.get("externalId")


# --- groups -----------------------------------------------------------------------------

@scim_router.get("/Groups")
async def list_groups(account_id: str, params: Annotated[dict, Depends(_list_params)],
                      ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    accounts = _account(ws, account_id)
    return ok(scim.list_response([_render_group(g, accounts) for g in accounts.groups()],
                                 **params))


@scim_router.post("/Groups", status_code=201)
async def create_group(account_id: str, body: AccountGroupBody, ws: WorkspaceDep,
                       _: AdminDep) -> JSONResponse:
    accounts = _account(ws, account_id)
    group = accounts.create_group(*_group_fields(body.as_request()))
    return ok(_render_group(group, accounts), status_code=201)


@scim_router.get("/Groups/{group_id}")
async def get_group(account_id: str, group_id: str, ws: WorkspaceDep,
                    _: CallerDep) -> JSONResponse:
    accounts = _account(ws, account_id)
    return ok(_render_group(accounts.group(group_id), accounts))


@scim_router.put("/Groups/{group_id}")
async def replace_group(account_id: str, group_id: str, body: AccountGroupBody,
                        ws: WorkspaceDep, _: AdminDep) -> JSONResponse:
    accounts = _account(ws, account_id)
    group = accounts.change_group(group_id, *_group_fields(body.as_request()))
    return ok(_render_group(group, accounts))


@scim_router.patch("/Groups/{group_id}")
async def patch_group(account_id: str, group_id: str, body: PatchBody, ws: WorkspaceDep,
                      _: AdminDep) -> JSONResponse:
    """displayName, externalId and members (add/remove/replace)."""
    accounts = _account(ws, account_id)
    current = accounts.group(group_id)
    as_workspace_group = Group(current.id, current.display_name, (), current.external_id)
    spec = scim.patched_group_spec(as_workspace_group, current.member_ids, body.as_request())
    group = accounts.change_group(group_id, spec.display_name, spec.member_ids or (),
                                  spec.external_id)
    return ok(_render_group(group, accounts))


@scim_router.delete("/Groups/{group_id}", status_code=204)
async def delete_group(account_id: str, group_id: str, ws: WorkspaceDep,
                       _: AdminDep) -> Response:
    _account(ws, account_id).delete_group(group_id)
    return Response(status_code=204)


# --- users ------------------------------------------------------------------------------

@scim_router.get("/Users")
async def list_users(account_id: str, params: Annotated[dict, Depends(_list_params)],
                     ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    accounts = _account(ws, account_id)
    return ok(scim.list_response([_render_user(u) for u in accounts.users()], **params))


@scim_router.post("/Users", status_code=201)
async def create_user(account_id: str, body: AccountUserBody, ws: WorkspaceDep,
                      _: AdminDep) -> JSONResponse:
    request = body.as_request()
    scim.require_schema(request, scim.USER_SCHEMA)
    user_name = request.get("userName")
    if not isinstance(user_name, str) or not user_name.strip():
        raise InvalidParameter("'userName' is required")
    user = _account(ws, account_id).create_user(user_name, request.get("displayName"))
    return ok(_render_user(user), status_code=201)


@scim_router.get("/Users/{user_id}")
async def get_user(account_id: str, user_id: str, ws: WorkspaceDep,
                   _: CallerDep) -> JSONResponse:
    return ok(_render_user(_account(ws, account_id).user(user_id)))


@scim_router.delete("/Users/{user_id}", status_code=204)
async def delete_user(account_id: str, user_id: str, ws: WorkspaceDep,
                      _: AdminDep) -> Response:
    _account(ws, account_id).delete_user(user_id)
    return Response(status_code=204)


# --- service principals -----------------------------------------------------------------

@scim_router.get("/ServicePrincipals")
async def list_service_principals(
    account_id: str, params: Annotated[dict, Depends(_list_params)], ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    accounts = _account(ws, account_id)
    return ok(scim.list_response(
        [_render_service_principal(p) for p in accounts.service_principals()], **params))


@scim_router.post("/ServicePrincipals", status_code=201)
async def create_service_principal(account_id: str, body: AccountServicePrincipalBody,
                                   ws: WorkspaceDep, _: AdminDep) -> JSONResponse:
    request = body.as_request()
    scim.require_schema(request, scim.SP_SCHEMA)
    principal = _account(ws, account_id).create_service_principal(
        request.get("applicationId"), request.get("displayName"))
    return ok(_render_service_principal(principal), status_code=201)


@scim_router.get("/ServicePrincipals/{principal_id}")
async def get_service_principal(account_id: str, principal_id: str, ws: WorkspaceDep,
                                _: CallerDep) -> JSONResponse:
    return ok(_render_service_principal(
        _account(ws, account_id).service_principal(principal_id)))


@scim_router.delete("/ServicePrincipals/{principal_id}", status_code=204)
async def delete_service_principal(account_id: str, principal_id: str, ws: WorkspaceDep,
                                   _: AdminDep) -> Response:
    _account(ws, account_id).delete_service_principal(principal_id)
    return Response(status_code=204)


# --- workspace assignment ---------------------------------------------------------------

def _render_assignment(principal: Principal, permissions: list[str]) -> dict:
    name_field = {"group": "group_name", "user": "user_name"}.get(
        principal.kind, "service_principal_name")
    return {"principal": {"principal_id": int(principal.id),
                          "display_name": principal.display_name,
                          name_field: principal.name},
            "permissions": permissions}


def _assignments(ws: Workspace, account_id: str, workspace_id: str) -> AccountDirectory:
    accounts: AccountDirectory = ws.accounts
    accounts.check_path(account_id, workspace_id)
    return accounts


@assignments_router.get("")
async def list_assignments(account_id: str, workspace_id: str, ws: WorkspaceDep,
                           _: CallerDep) -> JSONResponse:
    accounts = _assignments(ws, account_id, workspace_id)
    return ok({"permission_assignments": [
        _render_assignment(p, perms) for p, perms in accounts.assignments()]})


@assignments_router.get("/permissions")
async def permission_levels(account_id: str, workspace_id: str, ws: WorkspaceDep,
                            _: CallerDep) -> JSONResponse:
    _assignments(ws, account_id, workspace_id)
    return ok({"permissions": [
        {"permission_level": "USER", "description": "Can use the workspace."},
        {"permission_level": "ADMIN", "description": "Can administer the workspace."}]})


@assignments_router.put("/principals/{principal_id}")
async def assign(account_id: str, workspace_id: str, principal_id: str,
                 body: AssignmentBody, ws: WorkspaceDep, _: AdminDep) -> JSONResponse:
    """"ADMIN" wins over "USER"; other values are ignored; none removes the assignment."""
    accounts = _assignments(ws, account_id, workspace_id)
    principal, permissions = accounts.assign(principal_id, list(body.permissions or []))
    return ok(_render_assignment(principal, permissions))


@assignments_router.delete("/principals/{principal_id}")
async def unassign(account_id: str, workspace_id: str, principal_id: str, ws: WorkspaceDep,
                   _: AdminDep) -> JSONResponse:
    _assignments(ws, account_id, workspace_id).unassign(principal_id)
    return ok({})
