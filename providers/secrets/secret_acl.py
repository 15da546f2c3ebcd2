"""SecretAcl: READ, WRITE or MANAGE for one principal (a user name, a group name or a
service principal's application id) on a secret scope.

A put grants or changes the principal's permission, so a create after an interrupted one
converges, and a changed permission is an in-place update; another scope or principal
replaces the resource. Destroy deletes the principal's entry (take care with the entry that
lets the deploying principal itself manage the scope). The id is `<scope>/<principal>`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from providers.core.kind import PRINCIPALS, Adoption, DrillChange, NameReference, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.secrets.names import scope_name, scope_names
from providers.secrets.secrets_api import SecretsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

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
        SecretsApi(client).put_acl(args.scope, args.principal, args.permission)
        return f"{args.scope}/{args.principal}", spec, {}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        scope, principal = split_id(id_)
        found = SecretsApi(client).get_acl(scope, principal)  # gone: NotFound, read as gone
        return {"scope": scope, "principal": principal, "permission": found["permission"]}, {}

    def update_object(self, client, id_, recorded, args: SecretAclModel, spec: Spec):
        SecretsApi(client).put_acl(args.scope, args.principal, args.permission)
        return spec, {}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        SecretsApi(client).delete_acl(*split_id(id_))


def split_id(id_: str) -> tuple[str, str]:
    """`<scope>/<principal>` -> (scope, principal); a scope holds no '/'."""
    scope, _, principal = id_.partition("/")
    if not scope or not principal:
        raise ValueError(f"a SecretAcl's id is <scope>/<principal>, got {id_!r}")
    return scope, principal


def _secret_acls(client: Any) -> Any:
    for scope in scope_names(client):
        for acl in SecretsApi(client).list_acls(scope):
            yield f"{scope}/{acl['principal']}", f"{scope}: {acl['principal']}"


KIND = declare(
    name="SecretAcl",
    provider=SecretAclProvider,
    config_key="secretAcls",
    names={
        "scope": NameReference("scope", ("secretScopes",)),
        "principal": NameReference("principal", PRINCIPALS),
    },
    references={"secret_scope": Reference(target_key="secretScopes", field="scope")},
    doc="docs/secret-acl.md",
    summary="READ, WRITE or MANAGE for one principal on a secret scope",
    import_id="<scope>/<principal>",
    inventory=_secret_acls,
    # The principal an ACL names: a user name or an application id, never a SCIM id.
    adoption=Adoption(principal_of=lambda id_: id_.split("/", 1)[1]),
    drill=DrillChange(
        lambda acl: {**acl, "permission": "READ" if acl.get("permission") == "WRITE" else "WRITE"}
    ),
)
