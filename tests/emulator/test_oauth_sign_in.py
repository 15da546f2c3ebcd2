"""Signing in with OAuth secrets: the proxy API that makes them, the workspace's discovery
document and `/oidc/v1/token`, a principal made by name only, and the official SDK's
oauth-m2m against it all."""

from __future__ import annotations

import requests
from databricks.sdk import WorkspaceClient

from tests.emulator.support import (
    SP_SCHEMA,
    Api,
    add_service_principal,
    api_as,
    expect_error,
    unique,
)
from workspace_emulator.testing import EmulatorInfo, advance_clock

CLUSTERS = "/api/2.0/clusters/list"
SCIM = "/api/2.0/preview/scim/v2/ServicePrincipals"
TIMEOUT = 10


def _secrets_path(principal_id: str) -> str:
    return f"/api/2.0/accounts/servicePrincipals/{principal_id}/credentials/secrets"


def _named_principal(api: Api) -> dict:
    """A principal made with a display name only: the workspace gives it an application."""
    response = api.post(SCIM, json={"schemas": [SP_SCHEMA], "displayName": unique("m2m")})
    assert response.status_code == 201, response.text
    return response.json()


def _new_secret(api: Api, principal: dict, **body) -> dict:
    response = api.post(_secrets_path(principal["id"]), json=body)
    assert response.status_code == 200, response.text
    return response.json()


def _oidc_token(info: EmulatorInfo, client_id: str, secret: str, **form) -> requests.Response:
    return requests.post(info.oidc_token_url, auth=(client_id, secret),
                         data={"grant_type": "client_credentials", "scope": "all-apis", **form},
                         timeout=TIMEOUT)


def _expect_oauth_error(response: requests.Response, status: int, error: str) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error", "error_description"} and body["error"] == error, body
    return body["error_description"]


# the principal and its secrets

def test_a_principal_made_by_name_gets_a_new_application_id(api):
    principal = _named_principal(api)
    application_id = principal["applicationId"]
    assert len(application_id) == 36 and application_id.count("-") == 4
    assert api.get(f"{SCIM}/{principal['id']}").json()["applicationId"] == application_id
    assert _named_principal(api)["applicationId"] != application_id


def test_a_principal_needs_an_application_id_or_a_name(api):
    response = api.post(SCIM, json={"schemas": [SP_SCHEMA]})
    assert response.status_code == 400, response.text
    assert "'applicationId' or 'displayName' is required" in response.json()["detail"]


def test_secret_create_list_delete(api):
    principal = _named_principal(api)
    created = _new_secret(api, principal, lifetime="3600s")
    assert created["secret"].startswith("dose") and created["status"] == "ACTIVE"
    assert {"id", "secret_hash", "create_time", "update_time", "expire_time"} <= set(created)
    assert created["secret_hash"] not in created["secret"]
    listed = api.get(_secrets_path(principal["id"])).json()["secrets"]
    assert [s["id"] for s in listed] == [created["id"]]
    assert "secret" not in listed[0]
    assert listed[0]["expire_time"] == created["expire_time"]
    deleted = api.delete(f"{_secrets_path(principal['id'])}/{created['id']}")
    assert deleted.status_code == 200, deleted.text
    assert api.get(_secrets_path(principal["id"])).json() == {"secrets": []}
    again = api.delete(f"{_secrets_path(principal['id'])}/{created['id']}")
    expect_error(again, 404, "RESOURCE_DOES_NOT_EXIST")


def test_secret_refusals(api, emulator):
    principal = _named_principal(api)
    for lifetime in ("0s", "-5", "forever", "63072001s"):
        body = expect_error(api.post(_secrets_path(principal["id"]), json={"lifetime": lifetime}),
                            400, "INVALID_PARAMETER_VALUE")
        assert "'lifetime'" in body["message"]
    unknown = expect_error(api.post(_secrets_path("4999999999999999"), json={}), 404,
                           "RESOURCE_DOES_NOT_EXIST")
    assert "add it through SCIM first" in unknown["message"]
    by_application = expect_error(
        api.post(_secrets_path(principal["applicationId"]), json={}), 404)
    assert f"here {principal['id']}" in by_application["message"]
    application, _ = add_service_principal(api, emulator)  # a member, not an admin
    member = api_as(emulator, application)
    expect_error(member.post(_secrets_path(principal["id"]), json={}), 403, "PERMISSION_DENIED")
    expect_error(member.get(_secrets_path(principal["id"])), 403, "PERMISSION_DENIED")


# the token endpoint

def test_discovery_document_names_the_token_endpoint(emulator):
    config = requests.get(f"{emulator.base_url}/.well-known/databricks-config",
                          timeout=TIMEOUT).json()
    document = requests.get(f"{config['oidc_endpoint']}/.well-known/oauth-authorization-server",
                            timeout=TIMEOUT).json()
    assert document["token_endpoint"] == f"{emulator.base_url}/oidc/v1/token"
    assert document["issuer"] == f"{emulator.base_url}/oidc"
    assert document["authorization_endpoint"] == f"{emulator.base_url}/oidc/v1/authorize"


def test_client_credentials_by_basic_and_by_form(api, emulator):
    principal = _named_principal(api)
    secret = _new_secret(api, principal)["secret"]
    client_id = principal["applicationId"]
    by_basic = _oidc_token(emulator, client_id, secret)
    assert by_basic.status_code == 200, by_basic.text
    answer = by_basic.json()
    assert answer["token_type"] == "Bearer" and answer["scope"] == "all-apis"
    assert answer["expires_in"] == 3599
    me = Api(emulator.base_url, answer["access_token"]).get("/api/2.0/preview/scim/v2/Me")
    assert me.json()["userName"] == client_id
    by_form = requests.post(emulator.oidc_token_url, timeout=TIMEOUT, data={
        "grant_type": "client_credentials", "scope": "all-apis", "client_id": client_id,
        "client_secret": secret})
    assert by_form.status_code == 200, by_form.text
    assert Api(emulator.base_url, by_form.json()["access_token"]).get(CLUSTERS).ok


def test_client_credentials_refusals_never_echo_the_secret(api, emulator):
    principal = _named_principal(api)
    secret = _new_secret(api, principal)["secret"]
    client_id = principal["applicationId"]
    wrong = secret[:-4] + "0000"
    description = _expect_oauth_error(_oidc_token(emulator, client_id, wrong), 401,
                                      "invalid_client")
    assert description.startswith("Client authentication failed: ")
    assert client_id in description and wrong not in description and secret not in description
    other = _expect_oauth_error(_oidc_token(emulator, emulator.client_id, secret), 401,
                                "invalid_client")
    assert secret not in other
    missing = requests.post(emulator.oidc_token_url, data={"grant_type": "client_credentials"},
                            timeout=TIMEOUT)
    assert "HTTP Basic" in _expect_oauth_error(missing, 401, "invalid_client")
    assert "all-apis" in _expect_oauth_error(
        _oidc_token(emulator, client_id, secret, scope="sql"), 400, "invalid_scope")
    assert "grant_type" in _expect_oauth_error(
        _oidc_token(emulator, client_id, secret, grant_type="password"), 400,
        "unsupported_grant_type")
    no_grant = requests.post(emulator.oidc_token_url, auth=(client_id, secret), timeout=TIMEOUT)
    assert "grant_type is required" in _expect_oauth_error(no_grant, 400, "invalid_request")


def test_a_deleted_secret_no_longer_signs_in(api, emulator):
    principal = _named_principal(api)
    created = _new_secret(api, principal)
    assert _oidc_token(emulator, principal["applicationId"], created["secret"]).ok
    api.delete(f"{_secrets_path(principal['id'])}/{created['id']}")
    _expect_oauth_error(_oidc_token(emulator, principal["applicationId"], created["secret"]),
                        401, "invalid_client")


def test_a_secret_expires_with_the_clock(manual, manual_api):
    principal = _named_principal(manual_api)
    created = _new_secret(manual_api, principal, lifetime="600s")
    client_id = principal["applicationId"]
    assert _oidc_token(manual, client_id, created["secret"]).ok
    advance_clock(manual, 600)
    _expect_oauth_error(_oidc_token(manual, client_id, created["secret"]), 401, "invalid_client")
    listed = manual_api.get(_secrets_path(principal["id"])).json()["secrets"]
    assert [s["status"] for s in listed] == ["EXPIRED"]


def test_a_token_of_a_principal_removed_later_is_refused(api, emulator):
    principal = _named_principal(api)
    secret = _new_secret(api, principal)["secret"]
    token = _oidc_token(emulator, principal["applicationId"], secret).json()["access_token"]
    assert api.delete(f"{SCIM}/{principal['id']}").status_code == 204
    expect_error(Api(emulator.base_url, token).get(CLUSTERS), 401, "UNAUTHENTICATED")


# the official SDK

def test_the_sdk_signs_in_with_oauth_m2m(api, emulator):
    principal = _named_principal(api)
    secret = _new_secret(api, principal)["secret"]
    sdk = WorkspaceClient(host=emulator.base_url, client_id=principal["applicationId"],
                          client_secret=secret, auth_type="oauth-m2m")
    assert {c.cluster_id for c in sdk.clusters.list()} >= {"0101-120000-shared01"}
    assert sdk.current_user.me().user_name == principal["applicationId"]


def test_the_sdk_manages_secrets_through_the_proxy_api(api, emulator):
    principal = _named_principal(api)
    admin = WorkspaceClient(host=emulator.base_url, token=api.session.headers[
        "Authorization"].removeprefix("Bearer "), auth_type="pat")
    created = admin.service_principal_secrets_proxy.create(principal["id"], lifetime="7200s")
    assert created.secret and created.status == "ACTIVE"
    assert [s.id for s in admin.service_principal_secrets_proxy.list(principal["id"])] == \
        [created.id]
    assert created.id is not None
    admin.service_principal_secrets_proxy.delete(principal["id"], created.id)
    assert list(admin.service_principal_secrets_proxy.list(principal["id"])) == []
