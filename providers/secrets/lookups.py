"""Lookups of secret scopes. (providers/lookups/__init__.py says what a lookup is.)"""

from __future__ import annotations

import pulumi

from providers.client import (
    WorkspaceClient,
)
from providers.core.lookup import (
    LookupResult,
    Result,
    exactly_one,
    lookup_output,
    only_one,
)
from providers.secrets.secret_scopes_api import SecretScopesApi


def get_secret_scope(
    connection: pulumi.Input[dict], *, name: pulumi.Input[str]
) -> pulumi.Output[Result]:
    """A secret scope by `name`, with its backend (and key vault, if it has one)."""
    exactly_one("get_secret_scope", name=name)
    return lookup_output(connection, find_secret_scope, name=name)


def find_secret_scope(client: WorkspaceClient, *, name: str) -> Result:
    named = [s for s in SecretScopesApi(client).list() if s.get("name") == name]
    return SecretScopeInfo.model_validate(
        only_one(client, named, f"secret scope named {name!r}", "name")
    ).as_output()


class KeyVaultInfo(LookupResult):
    resource_id: str
    dns_name: str


class SecretScopeInfo(LookupResult):
    name: str
    backend_type: str | None = None
    keyvault_metadata: KeyVaultInfo | None = None
