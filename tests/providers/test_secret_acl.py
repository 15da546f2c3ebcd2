"""SecretAcl against the emulator, in both wire forms."""

from __future__ import annotations

from typing import Any

import pytest
import responses

from providers.client import InvalidParameter, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.secrets.secret_acl import SecretAclProvider
from providers.secrets.secret_scopes_api import SecretScopesApi
from providers.secrets.secrets_api import SecretsApi
from tests.providers.support import failures, with_change


@pytest.fixture
def provider() -> SecretAclProvider:
    return SecretAclProvider()


@pytest.fixture
def props(connection: dict[str, Any], scope: str) -> dict[str, Any]:
    return {"scope": scope, "principal": "analysts", "permission": "READ",
            CONNECTION_KEY: connection}


def acls(client: WorkspaceClient, scope: str) -> dict[str, str]:
    return {a["principal"]: a["permission"] for a in SecretsApi(client).list_acls(scope)}


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"scope": "has space"}, "scope"),
        ({"scope": ""}, "scope"),
        ({"principal": ""}, "principal"),
        ({"principal": " analysts"}, "principal"),
        ({"permission": "OWN"}, "permission"),
        ({"permission": "read"}, "permission"),
        ({"permission": None}, "permission"),
        ({"colour": "blue"}, "colour"),
    ],
)
def test_check_names_the_bad_field_without_a_call(provider, props, change, field):
    news = with_change(props, change)
    with responses.RequestsMock():
        assert list(failures(provider, news)) == [field]


def test_check_accepts_valid_and_unknown_inputs(provider, props):
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "permission": UNKNOWN}) == {}


def test_create_read_update_delete(provider, props, client, scope, connection):
    created = provider.create(props)
    assert created.id == f"{scope}/analysts"
    assert acls(client, scope)["analysts"] == "READ"
    assert provider.read(created.id, created.outs).outs == created.outs

    news = {**props, "permission": "WRITE"}
    diff = provider.diff(created.id, created.outs, news)
    assert diff.changes is True and diff.replaces == []
    updated = provider.update(created.id, created.outs, news)
    assert acls(client, scope)["analysts"] == "WRITE"
    assert provider.diff(created.id, updated.outs, news).changes is False

    assert provider.diff(created.id, updated.outs, {**news, "principal": "users"}).replaces == [
        "principal"
    ]
    provider.delete(created.id, updated.outs)
    assert "analysts" not in acls(client, scope)
    assert connection["client_id"] in acls(client, scope)  # the creator's entry stays


def test_out_of_band_change_shows_in_refresh(provider, props, client, scope):
    created = provider.create(props)
    SecretsApi(client).put_acl(scope, "analysts", "MANAGE")
    read = provider.read(created.id, created.outs)
    assert read.outs["permission"] == "MANAGE"
    assert provider.diff(created.id, read.outs, props).changes is True


def test_gone_entry_and_gone_scope_read_as_gone(provider, props, client, scope):
    created = provider.create(props)
    SecretsApi(client).delete_acl(scope, "analysts")
    assert provider.read(created.id, created.outs).id is None
    provider.delete(created.id, created.outs)
    SecretScopesApi(client).delete(scope)
    assert provider.read(created.id, created.outs).id is None
    provider.delete(created.id, created.outs)


def test_create_after_an_interrupted_create_converges(provider, props, client, scope):
    SecretsApi(client).put_acl(scope, "analysts", "READ")  # the earlier attempt got through
    provider.create(props)
    assert acls(client, scope)["analysts"] == "READ"


def test_import_by_id(provider, props, client, scope):
    SecretsApi(client).put_acl(scope, "analysts", "READ")
    imported = provider.read(f"{scope}/analysts", {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert {k: imported.outs[k] for k in ("scope", "principal", "permission")} == {
        "scope": scope, "principal": "analysts", "permission": "READ"}
    assert provider.diff(imported.id, imported.outs, props).changes is False


def test_an_unknown_principal_fails_with_the_services_message(provider, props):
    with pytest.raises(InvalidParameter, match="no-such-group"):
        provider.create({**props, "principal": "no-such-group"})
