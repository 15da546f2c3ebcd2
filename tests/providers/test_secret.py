"""Secret against the emulator, in both wire forms: check without calls, a value compared
through its digest (never recorded), in-place updates, drift, adoption, import, delete."""

from __future__ import annotations

import base64
import json
import uuid
from typing import Any

import pulumi
import pytest
import responses
from pulumi.runtime import rpc

from providers import Secret, SecretArgs
from providers.client import NotFound, WorkspaceClient
from providers.core.digest import digest, same_value
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.secrets.secret import SecretProvider
from providers.secrets.secret_scopes_api import SecretScopesApi
from providers.secrets.secrets_api import SecretsApi
from tests.providers.resource_mocks import RecordingMocks
from tests.providers.support import failures, with_change

VALUE = "tok-" + uuid.uuid4().hex


@pytest.fixture
def provider() -> SecretProvider:
    return SecretProvider()


@pytest.fixture
def props(connection: dict[str, Any], scope: str) -> dict[str, Any]:
    return {"scope": scope, "key": "api-token", "string_value": VALUE, CONNECTION_KEY: connection}


def value_on(client: WorkspaceClient, scope: str, key: str) -> bytes:
    return base64.b64decode(SecretsApi(client).get(scope, key)["value"])


BAD = [
    ({"scope": "has space"}, "scope"),
    ({"scope": "x" * 129}, "scope"),
    ({"key": "a/b"}, "key"),
    ({"key": ""}, "key"),
    ({"bytes_value": "not base64!"}, "bytes_value"),
    ({"string_value": None}, "(inputs)"),
    ({"bytes_value": base64.b64encode(b"x").decode()}, "(inputs)"),
    ({"string_value": "v" * (128 * 1024 + 1)}, "(inputs)"),
    ({"string_value": 5}, "string_value"),
    ({"colour": "blue"}, "colour"),
]


@pytest.mark.parametrize(("change", "field"), BAD)
def test_check_names_the_field_without_a_call_or_the_value(provider, props, change, field):
    news = with_change(props, change)
    with responses.RequestsMock():  # any call to the workspace would fail the test
        found = failures(provider, news)
    assert list(found) == [field]
    assert VALUE not in json.dumps(found)


def test_check_accepts_a_string_bytes_or_unknown_value(provider, props):
    assert failures(provider, props) == {}
    as_bytes = {**props, "bytes_value": base64.b64encode(b"\x00\xff").decode()}
    del as_bytes["string_value"]
    assert failures(provider, as_bytes) == {}
    assert failures(provider, {**props, "string_value": UNKNOWN}) == {}


def test_create_writes_the_value_and_records_only_its_digest(provider, props, client, scope):
    result = provider.create(props)
    assert result.id == f"{scope}/api-token"
    assert value_on(client, scope, "api-token") == VALUE.encode()
    assert VALUE not in json.dumps(result.outs)
    assert same_value(result.outs["value_digest"], VALUE.encode())
    assert isinstance(result.outs["last_updated_timestamp"], int)


def test_bytes_value(provider, props, client, scope):
    raw = bytes(range(256))
    news = {**props, "bytes_value": base64.b64encode(raw).decode()}
    del news["string_value"]
    provider.create(news)
    assert value_on(client, scope, "api-token") == raw


def test_diff_same_value_no_change_other_value_update_other_key_replace(provider, props):
    created = provider.create(props)
    outs = created.outs
    assert provider.diff(created.id, outs, props).changes is False
    changed = provider.diff(created.id, outs, {**props, "string_value": "other"})
    assert changed.changes is True and changed.replaces == []
    assert changed.changed_keys == ["string_value"]
    unknown = provider.diff(created.id, outs, {**props, "string_value": UNKNOWN})
    assert unknown.changes is True and unknown.replaces == []
    # the same bytes given as bytes_value are the same value
    same_bytes = {**props, "bytes_value": base64.b64encode(VALUE.encode()).decode()}
    del same_bytes["string_value"]
    assert provider.diff(created.id, outs, same_bytes).changes is False
    assert provider.diff(created.id, outs, {**props, "key": "other"}).replaces == ["key"]


def test_update_rewrites_in_place(provider, props, client, scope):
    created = provider.create(props)
    news = {**props, "string_value": "rotated"}
    updated = provider.update(created.id, created.outs, news)
    assert value_on(client, scope, "api-token") == b"rotated"
    assert provider.diff(created.id, updated.outs, news).changes is False


def test_refresh_keeps_the_digest_and_finds_a_value_written_by_someone_else(
    provider, props, client, scope
):
    created = provider.create(props)
    read = provider.read(created.id, created.outs)
    assert read.outs == created.outs
    SecretsApi(client).put(scope, "api-token", string_value="tampered")
    drifted = provider.read(created.id, created.outs)
    assert drifted.outs["value_digest"] == ""
    assert provider.diff(created.id, drifted.outs, props).changes is True


def test_gone_secret_and_gone_scope_read_as_gone(provider, props, client, scope):
    created = provider.create(props)
    SecretsApi(client).delete(scope, "api-token")
    assert provider.read(created.id, created.outs).id is None
    provider.delete(created.id, created.outs)  # already gone: deleted
    provider.create(props)
    SecretScopesApi(client).delete(scope)
    assert provider.read(created.id, created.outs).id is None
    provider.delete(created.id, created.outs)


def test_create_after_an_interrupted_create_converges(provider, props, client, scope):
    SecretsApi(client).put(scope, "api-token", string_value="half-made")  # the earlier attempt
    provider.create(props)
    assert [s["key"] for s in SecretsApi(client).list_secrets(scope)] == ["api-token"]
    assert value_on(client, scope, "api-token") == VALUE.encode()


def test_import_records_a_digest_of_the_value_so_the_declared_value_is_no_change(
    provider, props, client, scope
):
    SecretsApi(client).put(scope, "api-token", string_value=VALUE)
    imported = provider.read(f"{scope}/api-token", {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["scope"] == scope and imported.outs["key"] == "api-token"
    assert VALUE not in json.dumps(imported.outs)
    assert provider.diff(imported.id, imported.outs, props).changes is False


def test_delete_removes_only_its_key(provider, props, client, scope):
    SecretsApi(client).put(scope, "other", string_value="x")
    created = provider.create(props)
    provider.delete(created.id, created.outs)
    assert [s["key"] for s in SecretsApi(client).list_secrets(scope)] == ["other"]


def test_an_error_never_carries_the_value(provider, props, client):
    with pytest.raises(NotFound) as raised:
        provider.create({**props, "scope": "no-such-scope"})
    assert VALUE not in str(raised.value)


def test_a_malformed_import_id_is_refused(provider, props):
    with pytest.raises(ValueError, match="<scope>/<key>"):
        provider.read("no-key", {CONNECTION_KEY: props[CONNECTION_KEY]})


def test_digest_is_salted():
    assert digest(b"x") != digest(b"x")
    assert same_value(digest(b"x"), b"x") and not same_value(digest(b"x"), b"y")
    assert not same_value("", b"x") and not same_value("zz:00", b"x")


def test_resource_makes_the_value_a_secret(connection):
    mocks = RecordingMocks()
    pulumi.runtime.set_mocks(mocks, project="proj", stack="dev", preview=False)

    @pulumi.runtime.test
    def scenario():
        Secret("s", SecretArgs(scope="sc", key="k", string_value="plain"), connection=connection)

    scenario()
    (registered,) = mocks.registered
    # The mocks see a secret as the wire marks it: the value under the secret signature.
    assert registered.inputs["string_value"] == {
        rpc._special_sig_key: rpc._special_secret_sig,
        "value": "plain",
    }
