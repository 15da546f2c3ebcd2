"""SCIM service principals: list/filter/page, create, get, PATCH, PUT, DELETE (both forms)."""

from __future__ import annotations

import pytest

from tests.emulator.support import (
    ADMINS_GROUP_ID,
    ANALYSTS_GROUP_ID,
    DATA_ENGINEERS_GROUP_ID,
    SP_SCHEMA,
    add_service_principal,
    api_as,
    expect_scim_error,
    unique,
)
from workspace_emulator.testing import initial_applications, register_application

BASE = "/api/2.0/preview/scim/v2/ServicePrincipals"
PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"


def _create_body(application: dict, **extra) -> dict:
    body = {"schemas": [SP_SCHEMA], "applicationId": application["client_id"],
            "displayName": application["display_name"]}
    body.update(extra)
    return body


def test_list_holds_the_bootstrap_admin(api, emulator):
    listing = api.get(BASE).json()
    assert listing["schemas"] == ["urn:ietf:params:scim:api:messages:2.0:ListResponse"]
    assert listing["totalResults"] == len(listing["Resources"]) >= 1
    bootstrap = next(r for r in listing["Resources"] if r["applicationId"] == emulator.client_id)
    assert bootstrap["active"] is True
    assert {"value": ADMINS_GROUP_ID, "display": "admins"}.items() <= \
        bootstrap["groups"][0].items()


def test_create_with_an_application_of_the_initial_data(api, emulator):
    application = initial_applications()[0]
    response = api.post(BASE, json={
        "schemas": [SP_SCHEMA], "applicationId": application["client_id"],
        "displayName": "etl", "groups": [{"value": DATA_ENGINEERS_GROUP_ID}],
        "entitlements": [{"value": "allow-cluster-create"}]})
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["schemas"] == [SP_SCHEMA]
    assert created["id"] and created["id"] != application["client_id"]
    assert created["applicationId"] == application["client_id"]
    assert created["groups"][0]["value"] == DATA_ENGINEERS_GROUP_ID
    assert created["entitlements"] == [{"value": "allow-cluster-create"}]
    duplicate = api.post(BASE, json=_create_body({**application, "display_name": "again"}))
    body = expect_scim_error(duplicate, 409)
    assert application["client_id"] in body["detail"]
    assert api.delete(f"{BASE}/{application['client_id']}").status_code == 204


def test_display_name_defaults_to_the_application_name(api, emulator):
    application = register_application(emulator, unique("named"))
    created = api.post(BASE, json={"schemas": [SP_SCHEMA],
                                   "applicationId": application["client_id"]}).json()
    assert created["displayName"] == application["display_name"]


def test_unknown_application_is_refused(api):
    response = api.post(BASE, json={"schemas": [SP_SCHEMA], "applicationId": "no-such-app"})
    body = expect_scim_error(response, 400)
    assert "identity provider" in body["detail"]


@pytest.mark.parametrize("change", [
    {"schemas": ["urn:ietf:params:scim:schemas:core:2.0:User"]},
    {"groups": [{"value": "999"}]},
    {"entitlements": [{"value": "be-superuser"}]},
    {"applicationId": None, "displayName": None},  # a name alone is enough: test_sign_in_*
    {"groups": "admins"},
    {"active": "maybe"},
])
def test_invalid_create_bodies(api, emulator, change):
    application = register_application(emulator)
    body = {k: v for k, v in {**_create_body(application), **change}.items() if v is not None}
    expect_scim_error(api.post(BASE, json=body), 400)


def test_filters_and_paging(api, emulator):
    application, created = add_service_principal(api, emulator)
    by_app = api.get(BASE, params={"filter": f'applicationId eq "{application["client_id"]}"'})
    assert [r["id"] for r in by_app.json()["Resources"]] == [created["id"]]
    by_name = api.get(BASE, params={
        "filter": f'displayName eq "{application["display_name"].upper()}"'}).json()
    assert by_name["totalResults"] == 1
    assert api.get(BASE, params={"filter": 'applicationId eq "none"'}).json()[
        "Resources"] == []
    everything = api.get(BASE).json()
    total = everything["totalResults"]
    assert total >= 2
    page = api.get(BASE, params={"startIndex": 2, "count": 1}).json()
    assert page["startIndex"] == 2 and page["itemsPerPage"] == 1
    assert page["totalResults"] == total
    assert page["Resources"][0] == everything["Resources"][1]
    beyond = api.get(BASE, params={"startIndex": total + 1}).json()
    assert beyond["Resources"] == [] and beyond["itemsPerPage"] == 0


@pytest.mark.parametrize("text", ['applicationId eq', 'foo bar "x"',
                                  'displayName eq "a" or displayName eq "b"'])
def test_unsupported_filters_are_refused(api, text):
    expect_scim_error(api.get(BASE, params={"filter": text}), 400)


def test_get_by_workspace_id_and_by_application_id(api, emulator):
    application, created = add_service_principal(api, emulator)
    assert api.get(f"{BASE}/{created['id']}").json() == created
    assert api.get(f"{BASE}/{application['client_id']}").json() == created
    expect_scim_error(api.get(f"{BASE}/does-not-exist"), 404)


def test_patch_operations(api, emulator):
    _, created = add_service_principal(api, emulator)
    path = f"{BASE}/{created['id']}"
    response = api.patch(path, json={"schemas": [PATCH_SCHEMA], "Operations": [
        {"op": "replace", "path": "displayName", "value": "renamed"},
        {"op": "add", "path": "groups", "value": [{"value": ANALYSTS_GROUP_ID},
                                                  {"value": DATA_ENGINEERS_GROUP_ID}]},
        {"op": "add", "path": "entitlements", "value": [{"value": "databricks-sql-access"}]},
    ]})
    assert response.status_code == 200, response.text
    patched = response.json()
    assert patched["displayName"] == "renamed"
    assert [g["value"] for g in patched["groups"]] == [ANALYSTS_GROUP_ID, DATA_ENGINEERS_GROUP_ID]
    removed = api.patch(path, json={"Operations": [
        {"op": "remove", "path": f'groups[value eq "{ANALYSTS_GROUP_ID}"]'},
        {"op": "Replace", "value": {"active": "false"}}]}).json()
    assert [g["value"] for g in removed["groups"]] == [DATA_ENGINEERS_GROUP_ID]
    assert removed["active"] is False
    assert api.get(path).json() == removed


@pytest.mark.parametrize("operations", [
    [], [{"op": "move", "path": "displayName", "value": "x"}],
    [{"op": "replace", "path": "nonsense", "value": "x"}],
    [{"op": "remove"}],
    [{"op": "add", "path": "groups", "value": [{"value": "999"}]}],
])
def test_invalid_patches_are_refused(api, emulator, operations):
    _, created = add_service_principal(api, emulator)
    response = api.patch(f"{BASE}/{created['id']}", json={"schemas": [PATCH_SCHEMA],
                                                           "Operations": operations})
    expect_scim_error(response, 400)


def test_put_replaces(api, emulator):
    application, created = add_service_principal(api, emulator, groups=(ANALYSTS_GROUP_ID,))
    replaced = api.put(f"{BASE}/{created['id']}", json={
        "schemas": [SP_SCHEMA], "applicationId": application["client_id"],
        "displayName": "replaced", "entitlements": [{"value": "workspace-access"}]}).json()
    assert replaced["displayName"] == "replaced"
    assert replaced["groups"] == []
    assert replaced["entitlements"] == [{"value": "workspace-access"}]
    other = register_application(emulator)
    expect_scim_error(api.put(f"{BASE}/{created['id']}", json={
        "schemas": [SP_SCHEMA], "applicationId": other["client_id"]}), 400)


@pytest.mark.parametrize("key", ["id", "applicationId"])
def test_delete_by_either_id(api, emulator, key):
    _, created = add_service_principal(api, emulator)
    response = api.delete(f"{BASE}/{created[key]}")
    assert response.status_code == 204 and response.content == b""
    expect_scim_error(api.get(f"{BASE}/{created['id']}"), 404)
    expect_scim_error(api.delete(f"{BASE}/{created[key]}"), 404)


def test_only_admins_change_principals(api, emulator):
    application, created = add_service_principal(api, emulator)
    member = api_as(emulator, application)
    assert member.get(BASE).status_code == 200
    other = register_application(emulator)
    expect_scim_error(member.post(BASE, json=_create_body(other)), 403)
    expect_scim_error(member.delete(f"{BASE}/{created['id']}"), 403)


def test_users_groups_and_me(api, emulator):
    users = api.get("/api/2.0/preview/scim/v2/Users",
                    params={"filter": 'userName eq "alice@example.com"'}).json()["Resources"]
    assert [u["displayName"] for u in users] == ["Alice Admin"]
    groups = api.get("/api/2.0/preview/scim/v2/Groups").json()["Resources"]
    assert {g["displayName"] for g in groups} >= {"admins", "users", "data-engineers",
                                                  "analysts"}
    assert api.get(f"/api/2.0/preview/scim/v2/Groups/{ADMINS_GROUP_ID}").json()[
        "displayName"] == "admins"
    me = api.get("/api/2.0/preview/scim/v2/Me").json()
    assert me["userName"] == emulator.client_id
