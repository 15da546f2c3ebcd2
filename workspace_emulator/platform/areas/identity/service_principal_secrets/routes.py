"""OAuth secrets of a workspace's service principals, through the workspace's proxy of the
account API (the SDK's ServicePrincipalSecretsProxyAPI). Admins only. The path names the
principal by its workspace id (SCIM `id`); the secrets belong to its application
(identity/oauth_secrets.py), so they outlive the principal's membership."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response
from fastapi.responses import JSONResponse

from workspace_emulator.errors import NotFound
from workspace_emulator.identity.oauth_secrets import parse_lifetime
from workspace_emulator.platform.auth import AdminDep, WorkspaceDep
from workspace_emulator.platform.directory import ServicePrincipal
from workspace_emulator.platform.wire import Open, ok
from workspace_emulator.platform.workspace import Workspace

router = APIRouter(prefix="/api/2.0/accounts/servicePrincipals/{service_principal_id}"
                          "/credentials/secrets", tags=["service principal secrets"])


class CreateSecretBody(Open):
    lifetime: Any = None


def _principal(ws: Workspace, service_principal_id: str) -> ServicePrincipal:
    principal = ws.directory.find_service_principal(service_principal_id)
    if principal is not None and principal.id == service_principal_id:
        return principal
    if principal is not None:
        raise NotFound(
            f"Service principal {service_principal_id} not found: the path takes the service "
            f"principal's workspace id (its SCIM 'id', here {principal.id}), not its "
            "applicationId.")
    raise NotFound(
        f"Service principal {service_principal_id} not found in this workspace; add it "
        "through SCIM first and use the 'id' it gets.")


@router.post("")
async def create_secret(service_principal_id: str, ws: WorkspaceDep, _: AdminDep,
                        body: CreateSecretBody | None = None) -> JSONResponse:
    principal = _principal(ws, service_principal_id)
    lifetime = parse_lifetime(body.lifetime if body else None)
    secret, value = ws.identity.oauth_secrets.create(principal.application_id, lifetime)
    return ok({**secret.info(), "secret": value})


@router.get("")
async def list_secrets(service_principal_id: str, ws: WorkspaceDep, _: AdminDep,
                       page_size: int | None = None, page_token: str | None = None
                       ) -> JSONResponse:
    # Every secret fits one page (a principal has a handful): no next_page_token.
    principal = _principal(ws, service_principal_id)
    return ok({"secrets": [s.info() for s in
                           ws.identity.oauth_secrets.of(principal.application_id)]})


@router.delete("/{secret_id}")
async def delete_secret(service_principal_id: str, secret_id: str, ws: WorkspaceDep,
                        _: AdminDep) -> Response:
    principal = _principal(ws, service_principal_id)
    ws.identity.oauth_secrets.delete(principal.application_id, secret_id)
    return ok()
