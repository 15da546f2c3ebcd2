"""The SCIM users area (`UsersApi(client)`): the reads beside the groups' (groups.py), and the
writes the User kind makes (a workspace-local user, or an account user assigned where the
workspace is identity-federated: the service decides, the call is the same)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from providers.identity import groups_api as groups
from providers.identity.groups_api import USERS_PATH
from providers.identity.scim_api import PATCH_OP_SCHEMA, list_resources

USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
Resources = list[dict[str, Any]]  # (`list` is a method's name in the class below)


class UsersApi(groups.UsersApi):
    def list(self) -> Resources:
        return list_resources(self.client, USERS_PATH)

    def create(self, resource: Mapping[str, Any]) -> dict[str, Any]:
        """Add the user; the resource made. Not repeated after a lost answer (a second try
        answers 409: user names are unique in a workspace, regardless of case)."""
        return self.client.post(USERS_PATH, {"schemas": [USER_SCHEMA], **resource})

    def patch(self, user_id: str, operations: Sequence[Mapping[str, Any]]) -> None:
        """Apply SCIM PatchOp operations (`{op, path, value}`)."""
        body = {"schemas": [PATCH_OP_SCHEMA], "Operations": [dict(op) for op in operations]}
        self.client.patch(_path(user_id), body)

    def delete(self, user_id: str) -> None:
        """Remove the user from the workspace (an account user stays in the account)."""
        self.client.delete(_path(user_id))


def _path(user_id: str) -> str:
    return f"{USERS_PATH}/{quote(str(user_id), safe='')}"


