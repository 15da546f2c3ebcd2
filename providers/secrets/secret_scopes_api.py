"""The secret scopes area of the REST API: list, create (plain or backed by a key vault),
delete. The service lists scopes and never gets one; a key-vault scope's create body is
spelt differently in each wire form (`WireProfile.keyvault_scope_body`)."""

from __future__ import annotations

from typing import Any, NamedTuple

from providers.client.calls import Calls

SCOPES_PATH = "/api/2.0/secrets/scopes"
# What the service records for a scope created without `scope_backend_type`.
DEFAULT_BACKEND = "DATABRICKS"


class KeyVault(NamedTuple):
    resource_id: str
    dns_name: str


class SecretScopesApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"SecretScopesApi({self.client!r})"

    def list(self) -> list[dict[str, Any]]:
        return self.client.get(f"{SCOPES_PATH}/list").get("scopes") or []

    def create(
        self,
        name: str,
        *,
        keyvault: KeyVault | None = None,
        initial_manage_principal: str | None = None,
    ) -> dict[str, Any]:
        """Create the scope (backed by `keyvault` when given); the scope as the service then
        lists it, read off the request (the service stores a scope's name, backend and vault
        as given). Not repeated after a lost answer: callers look for the scope they may
        have made."""
        body: dict[str, Any]
        if keyvault is not None:
            body = self.client.wire.keyvault_scope_body(
                name, keyvault.resource_id, keyvault.dns_name, initial_manage_principal or "users"
            )
        else:
            body = {"scope": name}
            if initial_manage_principal:
                body["initial_manage_principal"] = initial_manage_principal
        self.client.post(f"{SCOPES_PATH}/create", body)
        listed: dict[str, Any] = {
            "name": name,
            "backend_type": body.get("scope_backend_type") or DEFAULT_BACKEND,
        }
        vault = body.get(self.client.wire.keyvault_field)
        if vault:
            listed["keyvault_metadata"] = dict(vault)
        return listed

    def delete(self, name: str) -> None:
        self.client.post(f"{SCOPES_PATH}/delete", {"scope": name}, idempotent=True)
