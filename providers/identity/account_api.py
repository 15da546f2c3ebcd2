"""The account API (`AccountGroupsApi(client)`, `WorkspaceAssignmentApi(client)`) through an
account connection: one with an account id (providers/client/connection.py), whose host is
the account host. Every path is under /api/2.0/accounts/<account id>/."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls
from providers.client.errors import WorkspaceError
from providers.client.wire import SCIM_ME
from providers.identity.groups_api import GROUP_SCHEMA
from providers.identity.scim_api import PATCH_OP_SCHEMA, list_resources, quoted

Resources = list[dict[str, Any]]  # (`list` is a method's name in the classes below)
# The workspace's host metadata (unauthenticated on the service) and the header in which
# the workspace's answers name it: where the official SDK finds a workspace's id.
HOST_METADATA = "/.well-known/databricks-config"
ORG_ID_HEADER = "X-Databricks-Org-Id"


class NotAnAccountConnection(ValueError):
    """An account-level call made with a workspace's connection."""


def account_id_of(client: Calls) -> str | None:
    """The account the client reaches: its connection's, or the one the audit names
    (`workspace:accountId`, WorkspaceClient.account_id)."""
    return getattr(client, "account_id", None) or getattr(
        getattr(client, "connection", None), "account_id", None)


def account_path(client: Calls, tail: str) -> str:
    account_id = account_id_of(client)
    if account_id is None:
        raise NotAnAccountConnection(
            "this call is the account's: give the connection of a WorkspaceAuth with an "
            "account_id (in a stack: workspace:accountHost and workspace:accountId)")
    return f"/api/2.0/accounts/{quote(account_id, safe='')}{tail}"


class AccountGroupsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"AccountGroupsApi({self.client!r})"

    def _groups(self) -> str:
        return account_path(self.client, "/scim/v2/Groups")

    def list(self, scim_filter: str | None = None) -> Resources:
        return list_resources(self.client, self._groups(), scim_filter)

    def named(self, display_name: str) -> Resources:
        """The account's groups named exactly `display_name`."""
        listed = self.list(f"displayName eq {quoted(display_name)}")
        return [g for g in listed if g.get("displayName") == display_name]

    def get(self, group_id: str) -> dict[str, Any]:
        return self.client.get(f"{self._groups()}/{quote(group_id, safe='')}")

    def create(self, resource: Mapping[str, Any]) -> dict[str, Any]:
        """Not repeated after a lost answer (a second group of the name answers 409)."""
        return self.client.post(self._groups(), {"schemas": [GROUP_SCHEMA], **resource})

    def patch(self, group_id: str, operations: Sequence[Mapping[str, Any]]) -> None:
        body = {"schemas": [PATCH_OP_SCHEMA], "Operations": [dict(op) for op in operations]}
        self.client.patch(f"{self._groups()}/{quote(group_id, safe='')}", body)

    def delete(self, group_id: str) -> None:
        self.client.delete(f"{self._groups()}/{quote(group_id, safe='')}")


class AccountPrincipalsApi:
    """The account's users and service principals, found by name."""

    def __init__(self, client: Calls) -> None:
        self.client = client

    def user_named(self, user_name: str) -> Resources:
        listed = list_resources(self.client, account_path(self.client, "/scim/v2/Users"),
                                f"userName eq {quoted(user_name)}")
        return [u for u in listed if str(u.get("userName", "")).lower() == user_name.lower()]

    def service_principal_of(self, application_id: str) -> Resources:
        listed = list_resources(
            self.client, account_path(self.client, "/scim/v2/ServicePrincipals"),
            f"applicationId eq {quoted(application_id)}")
        return [p for p in listed if p.get("applicationId") == application_id]


class WorkspaceAssignmentApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"WorkspaceAssignmentApi({self.client!r})"

    def _base(self, workspace_id: int) -> str:
        return account_path(self.client, f"/workspaces/{int(workspace_id)}/permissionassignments")

    def list(self, workspace_id: int) -> Resources:
        """[{principal: {principal_id, display_name, group_name | user_name |
        service_principal_name}, permissions}] of the workspace."""
        found = self.client.get(self._base(workspace_id)).get("permission_assignments")
        return list(found or [])

    def of(self, workspace_id: int, principal_id: str) -> dict[str, Any] | None:
        return next((a for a in self.list(workspace_id)
                     if str((a.get("principal") or {}).get("principal_id")) == principal_id),
                    None)

    def set(self, workspace_id: int, principal_id: str, permissions: Sequence[str]) -> None:
        """Sets the principal's permissions (a PUT: repeating it is no change)."""
        self.client.put(f"{self._base(workspace_id)}/principals/{int(principal_id)}",
                        {"permissions": list(permissions)})

    def delete(self, workspace_id: int, principal_id: str) -> None:
        self.client.delete(f"{self._base(workspace_id)}/principals/{int(principal_id)}")


def workspace_id_of(client: Any) -> int | None:
    """The id of the workspace `client` (a workspace's) reaches, which the account's
    assignments name: its host metadata's `workspace_id`, else the `X-Databricks-Org-Id`
    header of its SCIM Me answer (as the official SDK finds it); None where neither says."""
    try:
        found = client.get(HOST_METADATA).get("workspace_id")
    except WorkspaceError:
        found = None
    if found is None or not str(found).isdigit():
        found = client.transfer("GET", SCIM_ME).headers.get(ORG_ID_HEADER)
    return int(found) if found is not None and str(found).isdigit() else None
