"""The groups and users areas of the REST API (SCIM).

A group's membership changes only through PATCH operations that name the members they add
or remove: a PUT of the whole group would drop members added elsewhere meanwhile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls
from providers.client.wire import SCIM_BASE
from providers.identity.scim_api import PATCH_OP_SCHEMA, list_resources, quoted

GROUPS_PATH = f"{SCIM_BASE}/Groups"
USERS_PATH = f"{SCIM_BASE}/Users"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
# What the workspace's SCIM calls a group of the account assigned to it (identity
# federation) in `meta.resourceType`; one of its own is a `WorkspaceGroup`.
ACCOUNT_GROUP_TYPE = "Group"
# Names the class's own `list` method would shadow in its annotations.
Resources = list[dict[str, Any]]


def is_account_group(group: Mapping[str, Any]) -> bool:
    """Whether a group the workspace's SCIM answers is an account group assigned to it."""
    return (group.get("meta") or {}).get("resourceType") == ACCOUNT_GROUP_TYPE


class GroupsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"GroupsApi({self.client!r})"

    def list(self, scim_filter: str | None = None) -> list[dict[str, Any]]:
        return list_resources(self.client, GROUPS_PATH, scim_filter)

    def named(self, display_name: str) -> Resources:
        """The groups whose display name is exactly `display_name` (the service's `eq`
        ignores case)."""
        listed = self.list(f"displayName eq {quoted(display_name)}")
        return [g for g in listed if g.get("displayName") == display_name]

    def get(self, group_id: str) -> dict[str, Any]:
        return self.client.get(_path(GROUPS_PATH, group_id))

    def create(self, resource: Mapping[str, Any]) -> dict[str, Any]:
        """Make the group; the resource made. Not repeated after a lost answer (a second
        group of the same name answers 409)."""
        return self.client.post(GROUPS_PATH, {"schemas": [GROUP_SCHEMA], **resource})

    def patch(self, group_id: str, operations: Sequence[Mapping[str, Any]]) -> None:
        """Apply SCIM PatchOp operations (`{op, path, value}`)."""
        body = {"schemas": [PATCH_OP_SCHEMA], "Operations": [dict(op) for op in operations]}
        self.client.patch(_path(GROUPS_PATH, group_id), body)

    def add_member(self, group_id: str, member_id: str) -> None:
        self.patch(group_id, [{"op": "add", "path": "members", "value": [{"value": member_id}]}])

    def remove_member(self, group_id: str, member_id: str) -> None:
        self.patch(group_id, [{"op": "remove", "path": f"members[value eq {quoted(member_id)}]"}])

    def delete(self, group_id: str) -> None:
        self.client.delete(_path(GROUPS_PATH, group_id))


class UsersApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"UsersApi({self.client!r})"

    def named(self, user_name: str) -> list[dict[str, Any]]:
        """The users whose user name is `user_name` (user names ignore case)."""
        listed = list_resources(self.client, USERS_PATH, f"userName eq {quoted(user_name)}")
        return [u for u in listed if str(u.get("userName", "")).lower() == user_name.lower()]

    def get(self, user_id: str) -> dict[str, Any]:
        return self.client.get(_path(USERS_PATH, user_id))


def _path(base: str, resource_id: str) -> str:
    return f"{base}/{quote(str(resource_id), safe='')}"
