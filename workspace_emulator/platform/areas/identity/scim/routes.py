"""SCIM: service principals and groups (full CRUD, PATCH of members), users (read), Me."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Response
from fastapi.responses import JSONResponse

from workspace_emulator.errors import InvalidParameter
from workspace_emulator.platform.areas.identity.scim import resources as scim
from workspace_emulator.platform.auth import AdminDep, CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok
from workspace_emulator.platform.workspace import Workspace

router = APIRouter(prefix="/api/2.0/preview/scim/v2", tags=["scim"])
ORG_ID_HEADER = "X-Databricks-Org-Id"


class ScimValue(Open):
    value: str | None = None


class ServicePrincipalBody(Open):
    schemas: list[str] | None = None
    applicationId: str | None = None
    displayName: str | None = None
    active: bool | None = None
    groups: list[ScimValue] | None = None
    entitlements: list[ScimValue] | None = None
    externalId: str | None = None


class UserBody(Open):
    schemas: list[str] | None = None
    userName: str | None = None
    displayName: str | None = None
    active: bool | None = None
    entitlements: list[ScimValue] | None = None
    externalId: str | None = None


class GroupBody(Open):
    schemas: list[str] | None = None
    displayName: str | None = None
    members: list[ScimValue] | None = None
    entitlements: list[ScimValue] | None = None
    externalId: str | None = None


class PatchOperation(Open):
    op: str
    path: str | None = None
    value: Any = None


class PatchBody(Open):
    schemas: list[str] | None = None
    Operations: list[PatchOperation]


def _list_params(
    filter: str | None = None,
    startIndex: Annotated[int | None, Query(ge=-(2**31), le=2**31 - 1)] = None,
    count: Annotated[int | None, Query(ge=-(2**31), le=2**31 - 1)] = None,
    attributes: str | None = None,
    excludedAttributes: str | None = None,
) -> dict[str, Any]:
    return {"filter_text": filter, "start_index": startIndex, "count": count}


@router.get("/ServicePrincipals")
async def list_service_principals(
    params: Annotated[dict, Depends(_list_params)], ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    resources = [scim.render_service_principal(p, ws.directory)
                 for p in ws.directory.service_principals()]
    return ok(scim.list_response(resources, **params))


@router.post("/ServicePrincipals", status_code=201)
async def create_service_principal(
    body: ServicePrincipalBody, ws: WorkspaceDep,
    caller: AdminDep,
) -> JSONResponse:
    """As on the service, the caller holds the new principal's manager role (its rule set,
    the access_control area's)."""
    request = body.as_request()
    scim.require_schema(request, scim.SP_SCHEMA)
    application_id = request.get("applicationId")
    if not application_id:
        application_id = _new_workspace_managed_application(ws, request.get("displayName"))
    principal = ws.access_control.made_by(caller, lambda: ws.directory.create_service_principal(
        application_id, scim.spec_from_resource(request)))
    return ok(scim.render_service_principal(principal, ws.directory), status_code=201)


def _new_workspace_managed_application(ws: Workspace, display_name: Any) -> str:
    """As the service does on AWS and GCP: a principal made with a name only gets an
    application of its own, with a new applicationId and no secret (it signs in with OAuth
    secrets made for it)."""
    if not isinstance(display_name, str) or not display_name.strip():
        raise InvalidParameter(
            "'applicationId' or 'displayName' is required: an applicationId registered with "
            "the identity provider, or a displayName alone for a new workspace-managed "
            "principal.")
    application_id = str(uuid.uuid4())
    ws.identity.register_secretless_application(application_id, display_name)
    return application_id


@router.get("/ServicePrincipals/{principal_id}")
async def get_service_principal(
    principal_id: str, ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    principal = ws.directory.service_principal(principal_id)
    return ok(scim.render_service_principal(principal, ws.directory))


@router.put("/ServicePrincipals/{principal_id}")
async def replace_service_principal(
    principal_id: str, body: ServicePrincipalBody, ws: WorkspaceDep,
    _: AdminDep,
) -> JSONResponse:
    request = body.as_request()
    scim.require_schema(request, scim.SP_SCHEMA)
    current = ws.directory.service_principal(principal_id)
    if request.get("applicationId", current.application_id) != current.application_id:
        raise InvalidParameter("'applicationId' cannot be changed")
    principal = ws.directory.replace_service_principal(
        current.id, scim.spec_from_resource(request))
    return ok(scim.render_service_principal(principal, ws.directory))


@router.patch("/ServicePrincipals/{principal_id}")
async def patch_service_principal(
    principal_id: str, body: PatchBody, ws: WorkspaceDep,
    _: AdminDep,
) -> JSONResponse:
    current = ws.directory.service_principal(principal_id)
    spec = scim.patched_spec(current, body.as_request())
    principal = ws.directory.replace_service_principal(current.id, spec)
    return ok(scim.render_service_principal(principal, ws.directory))


@router.delete("/ServicePrincipals/{principal_id}", status_code=204)
async def delete_service_principal(
    principal_id: str, ws: WorkspaceDep, _: AdminDep,
) -> Response:
    """The path holds the workspace's id (public form) or the application id (seed form)."""
    ws.directory.delete_service_principal(principal_id)
    return Response(status_code=204)


@router.get("/Users")
async def list_users(
    params: Annotated[dict, Depends(_list_params)], ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    resources = [scim.render_user(u, ws.directory) for u in ws.directory.users()]
    return ok(scim.list_response(resources, **params))


@router.get("/Users/{user_id}")
async def get_user(
    user_id: str, ws: WorkspaceDep, _: CallerDep,
) -> JSONResponse:
    return ok(scim.render_user(ws.directory.user(user_id), ws.directory))


@router.post("/Users", status_code=201)
async def create_user(body: UserBody, ws: WorkspaceDep, _: AdminDep) -> JSONResponse:
    """A workspace-local user, or the account user assigned (identity federation:
    account.py)."""
    request = body.as_request()
    scim.require_schema(request, scim.USER_SCHEMA)
    user_name = request.get("userName")
    if not isinstance(user_name, str) or not user_name.strip():
        raise InvalidParameter("'userName' is required")
    user = ws.scim.add_user(user_name, scim.user_spec_from_resource(request))
    return ok(scim.render_user(user, ws.directory), status_code=201)


@router.put("/Users/{user_id}")
async def replace_user(
    user_id: str, body: UserBody, ws: WorkspaceDep, _: AdminDep,
) -> JSONResponse:
    request = body.as_request()
    scim.require_schema(request, scim.USER_SCHEMA)
    current = ws.directory.user(user_id)
    if str(request.get("userName", current.user_name)).lower() != current.user_name.lower():
        raise InvalidParameter("'userName' cannot be changed")
    user = ws.directory.replace_user(user_id, scim.user_spec_from_resource(request))
    return ok(scim.render_user(user, ws.directory))


@router.patch("/Users/{user_id}")
async def patch_user(
    user_id: str, body: PatchBody, ws: WorkspaceDep, _: AdminDep,
) -> JSONResponse:
    current = ws.directory.user(user_id)
    user = ws.directory.replace_user(
        user_id, scim.patched_user_spec(current, body.as_request()))
    return ok(scim.render_user(user, ws.directory))


@router.delete("/Users/{user_id}", status_code=204)
async def delete_user(user_id: str, ws: WorkspaceDep, _: AdminDep) -> Response:
    """Removes the user from the workspace only (an account user stays in the account)."""
    ws.directory.delete_user(user_id)
    return Response(status_code=204)


@router.get("/Groups")
async def list_groups(
    params: Annotated[dict, Depends(_list_params)], ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    resources = [scim.render_group(g, ws.directory) for g in ws.directory.groups()]
    return ok(scim.list_response(resources, **params))


@router.post("/Groups", status_code=201)
async def create_group(body: GroupBody, ws: WorkspaceDep, _: AdminDep) -> JSONResponse:
    group = ws.directory.create_group(scim.group_spec_from_resource(body.as_request()))
    return ok(scim.render_group(group, ws.directory), status_code=201)


@router.get("/Groups/{group_id}")
async def get_group(
    group_id: str, ws: WorkspaceDep, _: CallerDep,
) -> JSONResponse:
    return ok(scim.render_group(ws.directory.group(group_id), ws.directory))


@router.put("/Groups/{group_id}")
async def replace_group(
    group_id: str, body: GroupBody, ws: WorkspaceDep, _: AdminDep,
) -> JSONResponse:
    """The whole group, members included: members the body leaves out are removed."""
    group = ws.directory.change_group(group_id, scim.group_spec_from_resource(body.as_request()))
    return ok(scim.render_group(group, ws.directory))


@router.patch("/Groups/{group_id}")
async def patch_group(
    group_id: str, body: PatchBody, ws: WorkspaceDep, _: AdminDep,
) -> JSONResponse:
    current = ws.directory.group(group_id)
    members = tuple(m.id for m in ws.directory.members(group_id))
    spec = scim.patched_group_spec(current, members, body.as_request())
    group = ws.directory.change_group(group_id, spec)
    return ok(scim.render_group(group, ws.directory))


@router.delete("/Groups/{group_id}", status_code=204)
async def delete_group(group_id: str, ws: WorkspaceDep, _: AdminDep) -> Response:
    ws.directory.delete_group(group_id)
    return Response(status_code=204)


@router.get("/Me")
async def me(
    ws: WorkspaceDep, caller: CallerDep,
) -> JSONResponse:
    principal = ws.directory.service_principal(caller.principal_id)
    resource = scim.render_service_principal(principal, ws.directory)
    resource.update(schemas=[scim.USER_SCHEMA], userName=principal.application_id)
    # The service names the workspace in this header (the official SDK's get_workspace_id
    # reads it where the host metadata gave no workspace id).
    answer = ok(resource)
    answer.headers[ORG_ID_HEADER] = str(ws.workspace_id)
    return answer
