"""Unity Catalog catalogs and workspace bindings (legacy and public forms, legacy path)."""

from __future__ import annotations

import pytest

from tests.emulator.support import OTHER_WORKSPACE_IDS, WORKSPACE_ID, expect_error

UC = "/api/2.1/unity-catalog"


def test_catalogs_of_the_initial_data_are_open(api):
    catalogs = api.get(f"{UC}/catalogs").json()["catalogs"]
    assert "main" in {c["name"] for c in catalogs}
    assert {c["isolation_mode"] for c in catalogs} == {"OPEN"}
    main = api.get(f"{UC}/catalogs/main").json()
    assert {"name", "owner", "isolation_mode", "metastore_id", "created_at",
            "updated_at"} <= set(main)


def test_unknown_catalog_is_not_found(api):
    expect_error(api.get(f"{UC}/catalogs/nope"), 404, "RESOURCE_DOES_NOT_EXIST")
    expect_error(api.patch(f"{UC}/catalogs/nope", json={"isolation_mode": "ISOLATED"}), 404)
    expect_error(api.get(f"{UC}/bindings/catalog/nope"), 404)
    expect_error(api.patch(f"{UC}/bindings/catalog/nope", json={"add": []}), 404)


def test_isolation_owner_and_comment(api):
    updated = api.patch(f"{UC}/catalogs/finance", json={
        "isolation_mode": "ISOLATED", "comment": "locked", "owner": "data-engineers"}).json()
    assert updated["isolation_mode"] == "ISOLATED"
    assert updated["comment"] == "locked" and updated["owner"] == "data-engineers"
    assert api.get(f"{UC}/catalogs/finance").json() == updated
    reopened = api.patch(f"{UC}/catalogs/finance", json={"isolation_mode": "OPEN",
                                                          "owner": "admins"}).json()
    assert reopened["isolation_mode"] == "OPEN"
    assert reopened["updated_at"] >= updated["updated_at"]


@pytest.mark.parametrize("body", [{"isolation_mode": "CLOSED"}, {"owner": "nobody"},
                                  {"isolation_mode": 1}])
def test_bad_catalog_updates(api, body):
    expect_error(api.patch(f"{UC}/catalogs/main", json=body), 400, "INVALID_PARAMETER_VALUE")


def test_legacy_form_bind_and_unbind(api):
    api.patch(f"{UC}/catalogs/sandbox", json={"isolation_mode": "ISOLATED"})
    path = f"{UC}/bindings/catalog/sandbox"
    added = api.patch(path, json={"add": [
        {"workspace_id": str(WORKSPACE_ID), "binding_type": "BINDING_TYPE_READ_WRITE"},
        {"workspace_id": str(OTHER_WORKSPACE_IDS[0]), "binding_type": "BINDING_TYPE_READ_ONLY"},
    ], "remove": []})
    assert added.status_code == 200, added.text
    assert added.json()["bindings"] == [
        {"workspace_id": WORKSPACE_ID, "binding_type": "BINDING_TYPE_READ_WRITE"},
        {"workspace_id": OTHER_WORKSPACE_IDS[0], "binding_type": "BINDING_TYPE_READ_ONLY"}]
    assert api.get(path).json() == added.json()
    unbound = api.patch(path, json={"unassign_workspaces": [str(OTHER_WORKSPACE_IDS[0])]})
    assert unbound.json()["bindings"] == [
        {"workspace_id": WORKSPACE_ID, "binding_type": "BINDING_TYPE_READ_WRITE"}]


def test_public_form_add_and_remove(api):
    path = f"{UC}/bindings/catalog/main"
    api.patch(path, json={"add": [{"workspace_id": OTHER_WORKSPACE_IDS[1],
                                   "binding_type": "BINDING_TYPE_READ_WRITE"}]})
    changed = api.patch(path, json={"add": [{"workspace_id": OTHER_WORKSPACE_IDS[1],
                                             "binding_type": "BINDING_TYPE_READ_ONLY"}]})
    assert {"workspace_id": OTHER_WORKSPACE_IDS[1], "binding_type": "BINDING_TYPE_READ_ONLY"} \
        in changed.json()["bindings"]
    removed = api.patch(path, json={"remove": [{"workspace_id": OTHER_WORKSPACE_IDS[1],
                                                "binding_type": "BINDING_TYPE_READ_ONLY"}]})
    assert OTHER_WORKSPACE_IDS[1] not in {b["workspace_id"] for b in removed.json()["bindings"]}


def test_legacy_workspace_bindings_path(api):
    path = f"{UC}/workspace-bindings/catalogs/main"
    response = api.patch(path, json={"assign_workspaces": [OTHER_WORKSPACE_IDS[2]]})
    assert OTHER_WORKSPACE_IDS[2] in response.json()["workspaces"]
    assert OTHER_WORKSPACE_IDS[2] in api.get(path).json()["workspaces"]
    api.patch(path, json={"unassign_workspaces": [OTHER_WORKSPACE_IDS[2]]})
    assert OTHER_WORKSPACE_IDS[2] not in api.get(path).json().get("workspaces", [])


@pytest.mark.parametrize("body", [
    {"add": [{"workspace_id": 99, "binding_type": "BINDING_TYPE_READ_WRITE"}]},
    {"add": [{"workspace_id": "abc"}]},
    {"add": [{"workspace_id": WORKSPACE_ID, "binding_type": "BINDING_TYPE_ADMIN"}]},
    {"unassign_workspaces": ["-5"]},
    {"add": "everything"},
])
def test_bad_binding_changes(api, body):
    expect_error(api.patch(f"{UC}/bindings/catalog/main", json=body), 400,
                 "INVALID_PARAMETER_VALUE")


def test_only_catalogs_have_bindings_here(api):
    expect_error(api.get(f"{UC}/bindings/volume/main"), 400, "INVALID_PARAMETER_VALUE")
