"""SecretScope against the emulator, in both wire forms."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.secrets.secret_scope import SecretScopeProvider
from providers.secrets.secret_scopes_api import KeyVault, SecretScopesApi
from tests.providers.support import assert_check_names, failures

VAULT = {
    "resource_id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/dp"
    "/providers/Microsoft.KeyVault/vaults/dp-test-kv",
    "dns_name": "https://dp-test-kv.vault.azure.net/",
}


@pytest.fixture
def provider() -> SecretScopeProvider:
    return SecretScopeProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": f"scope-{uuid.uuid4().hex[:10]}",
        "keyvault": dict(VAULT),
        CONNECTION_KEY: connection,
    }


def listed(client: WorkspaceClient) -> dict[str, dict]:
    return {s["name"]: s for s in SecretScopesApi(client).list()}


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"name": "has space"}, "name", "1 to 128 characters"),
        ({"name": "x" * 129}, "name", "1 to 128 characters"),
        (
            {"keyvault": {**VAULT, "resource_id": "/subscriptions/nope"}},
            "keyvault.resource_id",
            "key vault resource id",
        ),
        (
            {"keyvault": {**VAULT, "dns_name": "http://kv.example.com"}},
            "keyvault.dns_name",
            "vault.azure.net",
        ),
        ({"initial_manage_principal": "admins"}, "initial_manage_principal", "'users'"),
        ({"colour": "blue"}, "colour", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "name": UNKNOWN}) == {}


def test_check_requires_a_connection(provider, props) -> None:
    assert CONNECTION_KEY in failures(
        provider, {k: v for k, v in props.items() if k != CONNECTION_KEY}
    )


def test_create_read_delete(provider, props, client) -> None:
    created = provider.create(props)
    assert created.id == props["name"]
    scope = listed(client)[props["name"]]
    assert scope["keyvault_metadata"]["dns_name"] == VAULT["dns_name"]
    assert created.outs[CONNECTION_KEY] == props[CONNECTION_KEY]

    read = provider.read(created.id, created.outs)
    assert read.id == created.id
    assert {k: read.outs[k] for k in ("name", "keyvault")} == {
        "name": props["name"],
        "keyvault": VAULT,
    }

    provider.delete(created.id, created.outs)
    assert props["name"] not in listed(client)
    assert provider.read(created.id, created.outs).id is None
    provider.delete(created.id, created.outs)  # already gone: still deleted


def test_diff_replaces_on_every_change_and_ignores_credentials(provider, props) -> None:
    outs = provider.create(props).outs
    try:
        assert not provider.diff(props["name"], outs, props).changes
        rotated = {**props, CONNECTION_KEY: {**props[CONNECTION_KEY], "client_secret": "new"}}
        assert not provider.diff(props["name"], outs, rotated).changes

        moved = provider.diff(
            props["name"],
            outs,
            {**props, "keyvault": {**VAULT, "dns_name": "https://other-kv.vault.azure.net/"}},
        )
        assert moved.changes and moved.replaces == ["keyvault"]
        assert moved.delete_before_replace  # same name cannot exist twice

        renamed = provider.diff(props["name"], outs, {**props, "name": props["name"] + "-2"})
        assert renamed.replaces == ["name"] and not renamed.delete_before_replace

        pending = provider.diff(props["name"], outs, {**props, "name": UNKNOWN})
        assert pending.changes and pending.replaces == ["name"]
    finally:
        provider.delete(props["name"], outs)


def test_create_adopts_a_scope_left_by_an_interrupted_create(provider, props, client) -> None:
    SecretScopesApi(client).create(props["name"], keyvault=KeyVault(**VAULT))
    created = provider.create(props)
    try:
        assert created.id == props["name"]
        assert list(listed(client)).count(props["name"]) == 1
    finally:
        provider.delete(created.id, created.outs)


def test_create_refuses_a_different_scope_of_the_same_name(provider, props, client) -> None:
    SecretScopesApi(client).create(props["name"])
    try:
        with pytest.raises(AlreadyExists):
            provider.create(props)
    finally:
        SecretScopesApi(client).delete(props["name"])
