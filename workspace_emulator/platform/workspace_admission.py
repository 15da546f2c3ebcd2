"""What happens to a valid token of a principal the workspace does not know.

As on the service: it is refused (401), unless the call carries the Azure management-token
pair (`X-Databricks-Azure-SP-Management-Token`: a token of the same client for the
management address; `X-Databricks-Azure-Workspace-Resource-Id`: this workspace's resource
id) and the principal holds Contributor or Owner on that resource. Then it becomes a
service principal of the workspace, in `admins`, and the call goes on.
"""

from __future__ import annotations

from collections.abc import Mapping

from workspace_emulator.errors import AlreadyExists, PermissionDenied, Unauthenticated
from workspace_emulator.identity import TokenGrant
from workspace_emulator.identity.role_assignments import WORKSPACE_MANAGING_ROLES
from workspace_emulator.platform.directory import ADMINS_GROUP, Caller, ServicePrincipalSpec
from workspace_emulator.platform.workspace import Workspace

MANAGEMENT_TOKEN_HEADER = "x-databricks-azure-sp-management-token"
RESOURCE_ID_HEADER = "x-databricks-azure-workspace-resource-id"
# The service's words for a principal it does not know; the rest says what to do.
NOT_AUTHORIZED = "User not authorized."
ADMITTED_ENTITLEMENTS = ("workspace-access", "allow-cluster-create")


def admit(ws: Workspace, grant: TokenGrant, headers: Mapping[str, str]) -> Caller:
    """The caller for a grant whose client is not an active member, or the refusal."""
    member = ws.directory.find_service_principal(grant.client_id)
    if member is not None and member.application_id == grant.client_id:
        raise PermissionDenied(
            f"Service principal {grant.client_id} is deactivated in this workspace; an admin "
            "can activate it again through SCIM ('active': true).")
    management_token = headers.get(MANAGEMENT_TOKEN_HEADER)
    resource_id = headers.get(RESOURCE_ID_HEADER)
    if not management_token and not resource_id:
        raise Unauthenticated(
            f"{NOT_AUTHORIZED} Service principal {grant.client_id} is not a member of this "
            "workspace: an admin adds it through SCIM, or, as a Contributor or Owner of the "
            "workspace's Azure resource, it sends X-Databricks-Azure-SP-Management-Token and "
            "X-Databricks-Azure-Workspace-Resource-Id to be added as an admin.")
    _check_management_token(ws, grant, management_token)
    _check_resource_id(ws, resource_id)
    if not ws.identity.role_assignments.may_manage(grant.client_id, ws.azure_resource_id):
        raise Unauthenticated(
            f"{NOT_AUTHORIZED} Service principal {grant.client_id} holds no "
            f"{' or '.join(WORKSPACE_MANAGING_ROLES)} role on {ws.azure_resource_id}, so the "
            "management token does not admit it; assign one (identity.role_assignments of the "
            "initial data) or have an admin add it through SCIM.")
    admins = ws.directory.group_by_name(ADMINS_GROUP)
    try:
        ws.directory.create_service_principal(grant.client_id, ServicePrincipalSpec(
            group_ids=(admins.id,) if admins else (), entitlements=ADMITTED_ENTITLEMENTS))
    except AlreadyExists:
        pass  # a concurrent first call admitted it
    caller = ws.directory.caller(grant.client_id)
    assert caller is not None
    return caller


def _check_management_token(ws: Workspace, grant: TokenGrant, token: str | None) -> None:
    header = "X-Databricks-Azure-SP-Management-Token"
    if not token:
        raise Unauthenticated(
            f"{NOT_AUTHORIZED} {header} is missing: send a token of the same client for "
            f"{ws.management_resource} next to X-Databricks-Azure-Workspace-Resource-Id.")
    management = ws.identity.resolve(token)
    if management is None:
        raise Unauthenticated(
            f"{NOT_AUTHORIZED} {header} is not a valid token (unknown or expired); get a new "
            f"one from the identity provider for {ws.management_resource}.")
    if management.resource != ws.management_resource:
        raise Unauthenticated(
            f"{NOT_AUTHORIZED} {header} was issued for '{management.resource}', not for the "
            f"management address {ws.management_resource}.")
    if management.client_id != grant.client_id:
        raise Unauthenticated(
            f"{NOT_AUTHORIZED} {header} belongs to another client than the bearer token; both "
            "must be tokens of the same service principal.")


def _check_resource_id(ws: Workspace, resource_id: str | None) -> None:
    header = "X-Databricks-Azure-Workspace-Resource-Id"
    if not resource_id:
        raise Unauthenticated(
            f"{NOT_AUTHORIZED} {header} is missing: send this workspace's Azure resource id "
            f"({ws.azure_resource_id}, workspace_resource_id of the start-up line).")
    if resource_id.rstrip("/").lower() != ws.azure_resource_id.rstrip("/").lower():
        raise Unauthenticated(
            f"{NOT_AUTHORIZED} {header} names {resource_id}, not this workspace "
            f"({ws.azure_resource_id}).")
