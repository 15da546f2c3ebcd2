"""SecretScope: a secret scope of the workspace, plain or backed by a key vault.

The service cannot change a scope once created, so every change replaces it. A scope's
name is its natural key: a create that finds a scope of that name with the same backend
(left by an interrupted earlier create) adopts it instead of failing.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from providers.client import AlreadyExists
from providers.client.listing import Listing
from providers.client.process import Store
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import PRINCIPALS, Adoption, DrillChange, NameReference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.secrets.names import SCOPE_NAME
from providers.secrets.secret_scopes_api import KeyVault, SecretScopesApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

KEYVAULT_RESOURCE_ID = re.compile(
    r"^/subscriptions/[0-9a-fA-F-]{36}/resourceGroups/[\w.()-]{1,90}"
    r"/providers/Microsoft\.KeyVault/vaults/[A-Za-z0-9-]{3,24}$"
)
KEYVAULT_DNS_NAME = re.compile(r"^https://[A-Za-z0-9-]{3,24}\.vault\.azure\.net/?$")


class KeyVaultModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    resource_id: str
    dns_name: str

    @field_validator("resource_id")
    @classmethod
    def _resource_id_form(cls, value: str) -> str:
        if not KEYVAULT_RESOURCE_ID.match(value):
            raise ValueError(
                "must be a key vault resource id: /subscriptions/<subscription-guid>/"
                "resourceGroups/<group>/providers/Microsoft.KeyVault/vaults/<vault-name>"
            )
        return value

    @field_validator("dns_name")
    @classmethod
    def _dns_name_form(cls, value: str) -> str:
        if not KEYVAULT_DNS_NAME.match(value):
            raise ValueError("must be the vault's URI, https://<vault-name>.vault.azure.net/")
        return value if value.endswith("/") else value + "/"


class SecretScopeModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    keyvault: KeyVaultModel | None = None
    initial_manage_principal: Literal["users"] | None = Field(
        default=None, description='"users" grants MANAGE to all workspace users'
    )

    @field_validator("name")
    @classmethod
    def _name_rules(cls, value: str) -> str:
        if not SCOPE_NAME.match(value):
            raise ValueError("must be 1 to 128 characters of letters, digits, '-', '_' and '.'")
        return value


def _scopes_by_name(client: WorkspaceClient) -> dict[str, dict[str, Any]]:
    return {scope["name"]: scope for scope in SecretScopesApi(client).list() if "name" in scope}


listed_scopes = Store("secret scopes listed for reads", lambda: Listing(_scopes_by_name))


class SecretScopeProvider(WorkspaceProvider):
    args_model = SecretScopeModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(
        {"name", "keyvault", "initial_manage_principal"}
    )

    def must_delete_first(self, changed: list[str]) -> bool:
        # A scope of the same name cannot exist twice; a renamed one can.
        return "name" not in changed

    def create_object(self, client: WorkspaceClient, args: SecretScopeModel, spec: Spec):
        vault = None
        if args.keyvault:
            vault = KeyVault(args.keyvault.resource_id, args.keyvault.dns_name)

        def create() -> dict[str, Any]:
            return SecretScopesApi(client).create(
                args.name, keyvault=vault, initial_manage_principal=args.initial_manage_principal
            )

        try:
            found, _adopted = create_or_adopt(create, lambda: self._find(client, args.name))
        except AlreadyExists:
            # Made by an interrupted earlier create: adopt it if it is the declared scope.
            left = self._find(client, args.name)
            if left is None or self._spec_of(left, spec) != spec:
                raise
            found = left
        listed_scopes().forget(client)
        return args.name, self._spec_of(found, spec), {"backend_type": found.get("backend_type")}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        # The service lists scopes, never gets one: a refresh shares one list call.
        found = listed_scopes().take(client, id_)
        if found is None:
            return None
        return self._spec_of(found, recorded), {"backend_type": found.get("backend_type")}

    def update_object(self, client, id_, recorded, args, spec):
        raise AssertionError("every change of a secret scope replaces it")

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        listed_scopes().forget(client)
        SecretScopesApi(client).delete(id_)

    @staticmethod
    def _find(client: WorkspaceClient, name: str) -> dict | None:
        return next((s for s in SecretScopesApi(client).list() if s.get("name") == name), None)

    @staticmethod
    def _spec_of(listed: Mapping[str, Any], like: Mapping[str, Any]) -> Spec:
        """A listed scope in spec form. The initial principal is not observable, so the
        recorded value stands."""
        spec: Spec = {"name": listed["name"]}
        vault = listed.get("keyvault_metadata")
        if vault:
            spec["keyvault"] = {
                "resource_id": vault.get("resource_id"),
                "dns_name": vault.get("dns_name"),
            }
        if "initial_manage_principal" in like:
            spec["initial_manage_principal"] = like["initial_manage_principal"]
        return spec


def _users_manage_acl(id_: str, recorded: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The MANAGE for all users a scope's create grants: with initial_manage_principal
    `users`, which a key vault scope is always created with (providers/client)."""
    if recorded.get("initial_manage_principal") == "users" or recorded.get("keyvault"):
        return [("secret_acl", f"{id_}/users")]
    return []


def _drill_change(scope: dict[str, Any]) -> dict[str, Any]:
    """A plain scope's first manager (a replacement: every change replaces a scope); a key
    vault scope's settings are its vault's, left as they are."""
    if "keyvault" not in scope:
        scope["initial_manage_principal"] = "users"
    return scope


KIND = declare(
    name="SecretScope",
    provider=SecretScopeProvider,
    outputs={"backend_type": str},
    config_key="secretScopes",
    names={
        "initial_manage_principal": NameReference("initial_manage_principal", PRINCIPALS),
    },
    named_as=("name",),
    identity=("name",),
    doc="docs/secret-scope.md",
    summary="a secret scope, plain or backed by a key vault (every change replaces it)",
    import_id="scope name",
    import_id_rule=import_ids.one_segment,
    stack_output=("secret_scopes", lambda resource: resource.id),
    inventory=lambda client: (
        (str(scope["name"]), str(scope["name"])) for scope in SecretScopesApi(client).list()
    ),
    adoption=Adoption(makes=_users_manage_acl),
    drill=DrillChange(_drill_change),
)
