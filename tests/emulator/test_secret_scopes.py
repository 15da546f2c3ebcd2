"""Secret scopes: DATABRICKS and both key-vault spellings, name rules, errors."""

from __future__ import annotations

import pytest

from tests.emulator.support import expect_error, unique

VAULT = {"resource_id": "/subscriptions/0000/resourceGroups/rg/providers/"
                        "Microsoft.KeyVault/vaults/kv-test",
         "dns_name": "https://kv-test.vault.azure.net/"}


def _scopes(api) -> dict[str, dict]:
    return {s["name"]: s for s in api.get("/api/2.0/secrets/scopes/list").json()["scopes"]}


def test_legacy_form_key_vault_scope(api):
    name = unique("kv.legacy")
    response = api.post("/api/2.0/secrets/scopes/create", json={
        "scope": name, "scope_backend_type": "CLOUD_KEYVAULT",
        "backend_cloud_keyvault": VAULT, "initial_manage_principal": "users"})
    assert response.status_code == 200 and response.json() == {}
    assert _scopes(api)[name] == {"name": name, "backend_type": "CLOUD_KEYVAULT",
                                  "keyvault_metadata": VAULT}


def test_public_form_key_vault_scope(api):
    name = unique("kv_public")
    api.post("/api/2.0/secrets/scopes/create", json={
        "scope": name, "scope_backend_type": "AZURE_KEYVAULT",
        "backend_azure_keyvault": VAULT})
    assert _scopes(api)[name]["backend_type"] == "AZURE_KEYVAULT"


def test_plain_databricks_scope_and_delete(api):
    name = unique("plain")
    api.post("/api/2.0/secrets/scopes/create", json={"scope": name})
    assert _scopes(api)[name] == {"name": name, "backend_type": "DATABRICKS"}
    assert api.post("/api/2.0/secrets/scopes/delete", json={"scope": name}).json() == {}
    assert name not in _scopes(api)
    expect_error(api.post("/api/2.0/secrets/scopes/delete", json={"scope": name}), 404,
                 "RESOURCE_DOES_NOT_EXIST")


def test_taken_name_already_exists(api):
    name = unique("taken")
    api.post("/api/2.0/secrets/scopes/create", json={"scope": name})
    expect_error(api.post("/api/2.0/secrets/scopes/create", json={"scope": name}), 400,
                 "RESOURCE_ALREADY_EXISTS")


@pytest.mark.parametrize("name", ["", "has space", "slash/es", "x" * 129, "ünïcode"])
def test_bad_names(api, name):
    expect_error(api.post("/api/2.0/secrets/scopes/create", json={"scope": name}), 400,
                 "INVALID_PARAMETER_VALUE")


def test_longest_name_is_fine(api):
    name = unique("L") + "x" * (128 - 10)
    assert len(name) == 128
    assert api.post("/api/2.0/secrets/scopes/create", json={"scope": name}).status_code == 200


@pytest.mark.parametrize("body", [
    {"scope_backend_type": "CLOUD_KEYVAULT"},
    {"scope_backend_type": "CLOUD_KEYVAULT", "backend_azure_keyvault": VAULT},
    {"scope_backend_type": "AZURE_KEYVAULT",
     "backend_azure_keyvault": {**VAULT, "resource_id": "/not/a/vault"}},
    {"scope_backend_type": "AZURE_KEYVAULT",
     "backend_azure_keyvault": {**VAULT, "dns_name": "kv-test.vault.azure.net"}},
    {"scope_backend_type": "S3"},
    {"initial_manage_principal": "admins"},
])
def test_bad_backends(api, body):
    response = api.post("/api/2.0/secrets/scopes/create", json={"scope": unique("bad"), **body})
    expect_error(response, 400, "INVALID_PARAMETER_VALUE")
