"""Personal access tokens: made, listed and deleted by their principal, or by an admin on
behalf of a service principal (token management, through the official SDK), accepted as
the principal's bearer token until they expire (on the emulator's clock) or are deleted;
the official SDK signs in with one (`auth_type="pat"`). Answers are dated by the emulator's
clock."""

from __future__ import annotations

from email.utils import parsedate_to_datetime

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import NotFound

from tests.emulator.support import Api, add_service_principal, api_as, expect_error
from workspace_emulator.testing import advance_clock, fetch_token

CLUSTERS = "/api/2.0/clusters/list"


def _create(api: Api, **body) -> dict:
    response = api.post("/api/2.0/token/create", json=body)
    assert response.status_code == 200, response.text
    return response.json()


def test_create_list_and_sign_in(api, emulator):
    created = _create(api, lifetime_seconds=3600, comment="ci")
    value, info = created["token_value"], created["token_info"]
    assert value.startswith("dapi")
    assert info["comment"] == "ci"
    assert info["expiry_time"] - info["creation_time"] == 3600_000
    assert info in api.get("/api/2.0/token/list").json()["token_infos"]
    with_token = Api(emulator.base_url, value)
    assert with_token.get(CLUSTERS).status_code == 200
    me = with_token.get("/api/2.0/preview/scim/v2/Me").json()
    assert me["userName"] == emulator.client_id


def test_a_deleted_token_is_refused_from_the_next_call(api, emulator):
    created = _create(api)
    with_token = Api(emulator.base_url, created["token_value"])
    assert with_token.get(CLUSTERS).status_code == 200
    token_id = created["token_info"]["token_id"]
    assert api.post("/api/2.0/token/delete", json={"token_id": token_id}).json() == {}
    expect_error(with_token.get(CLUSTERS), 401, "UNAUTHENTICATED")
    assert token_id not in {t["token_id"] for t in api.get("/api/2.0/token/list").json()
                            ["token_infos"]}
    again = expect_error(api.post("/api/2.0/token/delete", json={"token_id": token_id}), 404,
                         "RESOURCE_DOES_NOT_EXIST")
    assert token_id in again["message"]


def test_tokens_are_their_principals_own(api, emulator):
    application, _ = add_service_principal(api, emulator)
    member = api_as(emulator, application)
    mine = _create(member)
    assert Api(emulator.base_url, mine["token_value"]).get(
        "/api/2.0/preview/scim/v2/Me").json()["userName"] == application["client_id"]
    assert [t["token_id"] for t in member.get("/api/2.0/token/list").json()["token_infos"]] \
        == [mine["token_info"]["token_id"]]
    expect_error(api.post("/api/2.0/token/delete",
                          json={"token_id": mine["token_info"]["token_id"]}), 404)


def test_a_token_of_a_principal_removed_later_is_refused(api, emulator):
    application, principal = add_service_principal(api, emulator)
    value = _create(api_as(emulator, application))["token_value"]
    api.delete(f"/api/2.0/preview/scim/v2/ServicePrincipals/{principal['id']}")
    expect_error(Api(emulator.base_url, value).get(CLUSTERS), 401, "UNAUTHENTICATED")


def test_refusals(api, emulator):
    for lifetime in (0, -1):
        body = expect_error(api.post("/api/2.0/token/create", json={"lifetime_seconds": lifetime}),
                            400, "INVALID_PARAMETER_VALUE")
        assert "'lifetime_seconds'" in body["message"]
    expect_error(api.post("/api/2.0/token/create", json={"lifetime_seconds": "soon"}), 400)
    expect_error(api.post("/api/2.0/token/delete", json={}), 400)
    expect_error(Api(emulator.base_url, "dapi" + "0" * 32).get(CLUSTERS), 401,
                 "UNAUTHENTICATED")


def test_a_token_expires_with_the_manual_clock(manual, manual_api):
    created = _create(manual_api, lifetime_seconds=120)
    with_token = Api(manual.base_url, created["token_value"])
    assert with_token.get(CLUSTERS).status_code == 200
    advance_clock(manual, 119)
    assert with_token.get(CLUSTERS).status_code == 200
    advance_clock(manual, 1)
    expect_error(with_token.get(CLUSTERS), 401, "UNAUTHENTICATED")
    listed = manual_api.get("/api/2.0/token/list").json()["token_infos"]
    assert created["token_info"]["token_id"] not in {t["token_id"] for t in listed}


def test_the_sdk_signs_in_with_a_personal_access_token(api, emulator):
    value = _create(api, lifetime_seconds=600, comment="sdk")["token_value"]
    sdk = WorkspaceClient(host=emulator.base_url, token=value, auth_type="pat")
    assert {c.cluster_id for c in sdk.clusters.list()} >= {"0101-120000-shared01"}
    made = sdk.tokens.create(comment="from the sdk", lifetime_seconds=300)
    assert made.token_info is not None and made.token_info.token_id is not None
    assert made.token_value and made.token_info.comment == "from the sdk"
    assert made.token_info.token_id in {t.token_id for t in sdk.tokens.list()}
    sdk.tokens.delete(made.token_info.token_id)
    assert made.token_info.token_id not in {t.token_id for t in sdk.tokens.list()}


def test_an_admin_makes_lists_and_deletes_a_token_on_behalf_of_a_principal(api, emulator):
    application, principal = add_service_principal(api, emulator)
    sdk = WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))
    made = sdk.token_management.create_obo_token(
        application_id=application["client_id"], lifetime_seconds=3600, comment="ci")
    assert made.token_info is not None and made.token_value is not None
    info, value = made.token_info.as_dict(), made.token_value
    assert value.startswith("dapi")
    assert info["comment"] == "ci" and info["owner_id"] == int(principal["id"])
    assert info["expiry_time"] - info["creation_time"] == 3600_000
    me = Api(emulator.base_url, value).get("/api/2.0/preview/scim/v2/Me").json()
    assert me["userName"] == application["client_id"]
    got = sdk.token_management.get(info["token_id"]).token_info
    assert got is not None and got.owner_id == int(principal["id"])
    assert info["token_id"] in {t.token_id for t in sdk.token_management.list()}
    # The principal's own list shows it, without who made it.
    own = api_as(emulator, application).get("/api/2.0/token/list").json()["token_infos"]
    assert [set(t) for t in own if t["token_id"] == info["token_id"]] == [
        {"token_id", "creation_time", "expiry_time", "comment"}]
    sdk.token_management.delete(info["token_id"])
    expect_error(Api(emulator.base_url, value).get(CLUSTERS), 401)
    with pytest.raises(NotFound):
        sdk.token_management.get(info["token_id"])


def test_on_behalf_of_tokens_are_for_admins_and_known_principals(api, emulator):
    application, _ = add_service_principal(api, emulator)
    refused = expect_error(api.post("/api/2.0/token-management/on-behalf-of/tokens",
                                    json={"application_id": "not-a-principal"}),
                           400, "INVALID_PARAMETER_VALUE")
    assert "'application_id'" in refused["message"]
    expect_error(api_as(emulator, application).post(
        "/api/2.0/token-management/on-behalf-of/tokens",
        json={"application_id": application["client_id"]}), 403, "PERMISSION_DENIED")


def test_answers_are_dated_by_the_emulators_clock(manual, manual_api):
    before = parsedate_to_datetime(manual_api.get("/api/2.0/token/list").headers["Date"])
    advance_clock(manual, 30 * 86400)
    after = parsedate_to_datetime(manual_api.get("/api/2.0/token/list").headers["Date"])
    assert 30 * 86400 <= (after - before).total_seconds() <= 30 * 86400 + 5
