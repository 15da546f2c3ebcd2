"""Secrets and secret ACLs, driven by the official SDK over real HTTP: put, list, get, delete,
the access-control list, its enforcement, and a request log that never holds a value."""

from __future__ import annotations

import base64
import json

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import InvalidParameterValue, NotFound, PermissionDenied
from databricks.sdk.service import workspace

from tests.emulator.support import add_service_principal, api_as, expect_error, unique
from workspace_emulator.testing import fetch_token, request_log

VALUE = "s3cr3t-" + "v" * 20


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture
def scope(sdk) -> str:
    name = unique("scope")
    sdk.secrets.create_scope(name)
    return name


def sdk_as(emulator, application: dict) -> WorkspaceClient:
    token = fetch_token(emulator, application["client_id"], application["client_secret"])
    return WorkspaceClient(host=emulator.base_url, token=token)


def test_put_list_get_delete(sdk, scope):
    sdk.secrets.put_secret(scope, "text", string_value=VALUE)
    raw = bytes(range(256))
    sdk.secrets.put_secret(scope, "blob", bytes_value=base64.b64encode(raw).decode())
    listed = {s.key: s.last_updated_timestamp for s in sdk.secrets.list_secrets(scope)}
    assert set(listed) == {"text", "blob"} and all(isinstance(t, int) for t in listed.values())
    assert base64.b64decode(sdk.secrets.get_secret(scope, "text").value) == VALUE.encode()
    assert base64.b64decode(sdk.secrets.get_secret(scope, "blob").value) == raw
    sdk.secrets.put_secret(scope, "text", string_value="changed")  # an overwrite
    assert base64.b64decode(sdk.secrets.get_secret(scope, "text").value) == b"changed"
    sdk.secrets.delete_secret(scope, "text")
    assert [s.key for s in sdk.secrets.list_secrets(scope)] == ["blob"]
    with pytest.raises(NotFound):
        sdk.secrets.delete_secret(scope, "text")
    with pytest.raises(NotFound):
        sdk.secrets.get_secret(scope, "text")


def test_refusals_name_the_field_and_never_the_value(sdk, scope):
    for bad in (
        dict(key="bad key!", string_value=VALUE),
        dict(key="k", string_value=VALUE, bytes_value=base64.b64encode(b"x").decode()),
        dict(key="k"),
        dict(key="k", bytes_value=VALUE + "!not base64"),
        dict(key="k", string_value=VALUE * 7000),
    ):
        with pytest.raises(InvalidParameterValue) as refused:
            sdk.secrets.put_secret(scope, **bad)
        assert VALUE not in str(refused.value)
    with pytest.raises(NotFound):
        sdk.secrets.put_secret(unique("no-such-scope"), "k", string_value=VALUE)
    with pytest.raises(NotFound):
        sdk.secrets.list_secrets(unique("no-such-scope"))


def test_key_vault_scope_is_read_only(api, sdk):
    name = unique("kv")
    response = api.post("/api/2.0/secrets/scopes/create", json={
        "scope": name, "scope_backend_type": "AZURE_KEYVAULT",
        "backend_azure_keyvault": {
            "resource_id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups"
                           "/rg/providers/Microsoft.KeyVault/vaults/kv1",
            "dns_name": "https://kv1.vault.azure.net/"}})
    assert response.status_code == 200, response.text
    with pytest.raises(InvalidParameterValue, match="key vault"):
        sdk.secrets.put_secret(name, "k", string_value=VALUE)


def test_acls_put_get_list_delete(api, sdk, scope, emulator):
    sdk.secrets.put_acl(scope, "analysts", workspace.AclPermission.READ)
    assert sdk.secrets.get_acl(scope, "analysts").permission == workspace.AclPermission.READ
    sdk.secrets.put_acl(scope, "analysts", workspace.AclPermission.WRITE)
    listed = {a.principal: a.permission for a in sdk.secrets.list_acls(scope)}
    # The creator MANAGEs the scope it made.
    assert listed == {"analysts": workspace.AclPermission.WRITE,
                      emulator.client_id: workspace.AclPermission.MANAGE}
    sdk.secrets.delete_acl(scope, "analysts")
    with pytest.raises(NotFound):
        sdk.secrets.get_acl(scope, "analysts")
    with pytest.raises(NotFound):
        sdk.secrets.delete_acl(scope, "analysts")
    with pytest.raises(InvalidParameterValue):
        sdk.secrets.put_acl(scope, "no-such-group", workspace.AclPermission.READ)
    expect_error(api.post("/api/2.0/secrets/acls/put", json={
        "scope": scope, "principal": "analysts", "permission": "OWN"}),
        400, "INVALID_PARAMETER_VALUE")


def test_acls_are_enforced(api, sdk, scope, emulator):
    """A principal without READ cannot read; READ lists and reads but cannot write; WRITE
    writes but cannot change the ACL; MANAGE can."""
    application, _ = add_service_principal(api, emulator)
    other = sdk_as(emulator, application)
    sdk.secrets.put_secret(scope, "k", string_value=VALUE)
    with pytest.raises(PermissionDenied) as denied:
        other.secrets.get_secret(scope, "k")
    assert VALUE not in str(denied.value)
    with pytest.raises(PermissionDenied):
        other.secrets.list_secrets(scope)

    sdk.secrets.put_acl(scope, application["client_id"], workspace.AclPermission.READ)
    assert [s.key for s in other.secrets.list_secrets(scope)] == ["k"]
    assert base64.b64decode(other.secrets.get_secret(scope, "k").value or "") == VALUE.encode()
    with pytest.raises(PermissionDenied):
        other.secrets.put_secret(scope, "k", string_value="x")

    sdk.secrets.put_acl(scope, application["client_id"], workspace.AclPermission.WRITE)
    other.secrets.put_secret(scope, "k2", string_value="x")
    with pytest.raises(PermissionDenied):
        other.secrets.put_acl(scope, "analysts", workspace.AclPermission.READ)

    # Through a group: `users` holds every principal.
    sdk.secrets.delete_acl(scope, application["client_id"])
    with pytest.raises(PermissionDenied):
        other.secrets.list_secrets(scope)
    sdk.secrets.put_acl(scope, "users", workspace.AclPermission.MANAGE)
    other.secrets.put_acl(scope, "analysts", workspace.AclPermission.READ)


def test_deleting_a_scope_takes_its_secrets_and_acls(sdk, api, emulator):
    name = unique("gone")
    sdk.secrets.create_scope(name)
    sdk.secrets.put_secret(name, "k", string_value=VALUE)
    sdk.secrets.delete_scope(name)
    sdk.secrets.create_scope(name)
    assert list(sdk.secrets.list_secrets(name)) == []
    assert {a.principal for a in sdk.secrets.list_acls(name)} == {emulator.client_id}


def test_initial_manage_principal_users(api, sdk, emulator):
    name = unique("shared")
    sdk.secrets.create_scope(name, initial_manage_principal="users")
    application, _ = add_service_principal(api, emulator)
    api_as(emulator, application).post(
        "/api/2.0/secrets/put", json={"scope": name, "key": "k", "string_value": "x"})
    assert sdk.secrets.get_acl(name, "users").permission == workspace.AclPermission.MANAGE


def test_the_request_log_never_holds_a_value(api, sdk, scope, emulator):
    sdk.secrets.put_secret(scope, "logged", string_value=VALUE)
    sdk.secrets.get_secret(scope, "logged")
    expect_error(api.post("/api/2.0/secrets/put", json={
        "scope": scope, "key": "bad key", "string_value": VALUE}), 400, "INVALID_PARAMETER_VALUE")
    log = json.dumps(request_log(emulator))
    assert "/api/2.0/secrets/put" in log
    assert VALUE not in log
    assert base64.b64encode(VALUE.encode()).decode() not in log
