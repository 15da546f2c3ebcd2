"""SecretAcl: READ, WRITE or MANAGE for one principal (a user name, a group name or a
service principal's application id) on a secret scope.

A put grants or changes the principal's permission, so a create after an interrupted one
converges, and a changed permission is an in-place update; another scope or principal
replaces the resource. Destroy deletes the principal's entry (take care with the entry that
lets the deploying principal itself manage the scope). The id is `<scope>/<principal>`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from providers.client import WorkspaceClient
from providers.lifecycle import Spec, WorkspaceProvider
from providers.registry import kind_named
from providers.secret import scope_name

PERMISSIONS = ("READ", "WRITE", "MANAGE")


class SecretAclModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    scope: str
    principal: str
    permission: Literal["READ", "WRITE", "MANAGE"]

    _scope = field_validator("scope")(scope_name)

    @field_validator("principal")
    @classmethod
    def _principal_rules(cls, value: str) -> str:
        if not value or value != value.strip():
            raise ValueError(
                "must be a user name, a group name or a service principal's application id, "
                "without surrounding spaces"
            )
        return value


class SecretAclProvider(WorkspaceProvider):
    args_model = SecretAclModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"scope", "principal"})

    def create_object(self, client: WorkspaceClient, args: SecretAclModel, spec: Spec):
        client.secrets.put_acl(args.scope, args.principal, args.permission)
        return f"{args.scope}/{args.principal}", spec, {}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        scope, principal = split_id(id_)
        found = client.secrets.get_acl(scope, principal)  # gone: NotFound, read as gone
        return {"scope": scope, "principal": principal, "permission": found["permission"]}, {}

    def update_object(self, client, id_, recorded, args: SecretAclModel, spec: Spec):
        client.secrets.put_acl(args.scope, args.principal, args.permission)
        return spec, {}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        client.secrets.delete_acl(*split_id(id_))


def split_id(id_: str) -> tuple[str, str]:
    """`<scope>/<principal>` -> (scope, principal); a scope holds no '/'."""
    scope, _, principal = id_.partition("/")
    if not scope or not principal:
        raise ValueError(f"a SecretAcl's id is <scope>/<principal>, got {id_!r}")
    return scope, principal


KIND = kind_named("SecretAcl").implemented_by(SecretAclProvider)
