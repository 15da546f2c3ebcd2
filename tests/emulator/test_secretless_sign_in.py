"""Signing in without a secret: managed identities (App Service and IMDS endpoints), the
GitHub Actions OIDC stand-in, its ID tokens exchanged at the workspace's `/oidc/v1/token`
(token federation, the SDK's `github-oidc`) and presented to the identity provider as a
client assertion (`github-oidc-azure`)."""

from __future__ import annotations

import base64
import json

import pytest
import requests
from databricks.sdk import WorkspaceClient

from tests.conftest import emulator_fixture
from tests.emulator.support import SP_SCHEMA, Api, expect_error
from workspace_emulator.initial_data import load_initial_data
from workspace_emulator.testing import (
    EmulatorInfo,
    advance_clock,
    auth_headers,
    initial_applications,
    reset_workspace,
)

CLUSTERS = "/api/2.0/clusters/list"
TIMEOUT = 10
SUBJECT = "repo:acme/infra:environment:preview-dev"
GITHUB_ISSUER = "https://token.actions.githubusercontent.com"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_TYPE = "urn:ietf:params:oauth:token-type:jwt"
JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
AZURE_EXCHANGE_AUDIENCE = "api://AzureADTokenExchange"

IDENTITY = load_initial_data(None)["identity"]
SYSTEM_ASSIGNED, USER_ASSIGNED = (m["client_id"] for m in IDENTITY["managed_identities"])
GITHUB_DEPLOYER = next(a for a in initial_applications() if a["display_name"] ==
                       "github-deployer")["client_id"]

# Its own emulator, back at its initial data before each test (they add members).
secretless = emulator_fixture("module")


@pytest.fixture
def emulator(secretless: EmulatorInfo) -> EmulatorInfo:
    reset_workspace(secretless)
    return secretless


def _add_member(info: EmulatorInfo, application_id: str) -> None:
    response = requests.post(f"{info.base_url}/api/2.0/preview/scim/v2/ServicePrincipals",
                             json={"schemas": [SP_SCHEMA], "applicationId": application_id},
                             headers=auth_headers(info), timeout=TIMEOUT)
    assert response.status_code == 201, response.text


def _claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def _id_token(info: EmulatorInfo, audience: str, subject: str | None = None) -> str:
    url = f"{info.github_oidc_request_url}&audience={audience}"
    if subject:
        url += f"&subject={subject}"
    response = requests.get(url, headers={"Authorization": f"bearer "
                                                           f"{info.github_oidc_request_token}"},
                            timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    return response.json()["value"]


def _exchange(info: EmulatorInfo, subject_token: str, client_id: str | None = GITHUB_DEPLOYER,
              **form: str) -> requests.Response:
    data = {"grant_type": TOKEN_EXCHANGE, "subject_token": subject_token,
            "subject_token_type": JWT_TYPE, "scope": "all-apis", **form}
    if client_id:
        data["client_id"] = client_id
    return requests.post(info.oidc_token_url, data=data, timeout=TIMEOUT)


def _expect_oauth_error(response: requests.Response, status: int, error: str) -> str:
    assert response.status_code == status, response.text
    assert response.json()["error"] == error, response.json()
    return response.json()["error_description"]


# managed identities

def test_app_service_endpoint_gives_the_system_assigned_identity_a_token(emulator):
    _add_member(emulator, SYSTEM_ASSIGNED)
    response = requests.get(emulator.managed_identity_endpoint, timeout=TIMEOUT,
                            params={"resource": emulator.resource, "api-version": "2019-08-01"},
                            headers={"X-IDENTITY-HEADER": emulator.managed_identity_header})
    assert response.status_code == 200, response.text
    answer = response.json()
    assert set(answer) == {"access_token", "expires_on", "resource", "token_type", "client_id"}
    assert answer["client_id"] == SYSTEM_ASSIGNED and answer["resource"] == emulator.resource
    assert Api(emulator.base_url, answer["access_token"]).get(CLUSTERS).status_code == 200


def test_app_service_endpoint_picks_a_user_assigned_identity_and_the_management_resource(
        emulator):
    response = requests.get(emulator.managed_identity_endpoint, timeout=TIMEOUT, params={
        "resource": emulator.management_resource, "api-version": "2019-08-01",
        "client_id": USER_ASSIGNED}, headers={"X-IDENTITY-HEADER":
                                              emulator.managed_identity_header})
    assert response.status_code == 200, response.text
    assert response.json()["client_id"] == USER_ASSIGNED
    assert response.json()["resource"] == emulator.management_resource


@pytest.mark.parametrize(("params", "header", "status", "words"), [
    ({"api-version": "2019-08-01"}, "wrong", 401, "X-IDENTITY-HEADER"),
    ({"api-version": "2019-08-01"}, None, 401, "X-IDENTITY-HEADER"),
    ({"api-version": "2017-09-01"}, "right", 400, "api-version"),
    ({"api-version": "2019-08-01", "resource": ""}, "right", 400, "'resource'"),
    ({"api-version": "2019-08-01", "resource": "https://vault.azure.net"}, "right", 400,
     "not known"),
    ({"api-version": "2019-08-01", "client_id": "no-such-identity"}, "right", 400,
     "No managed identity found for client_id 'no-such-identity'"),
])
def test_app_service_endpoint_refusals(emulator, params, header, status, words):
    headers = {} if header is None else {"X-IDENTITY-HEADER": emulator.managed_identity_header
                                         if header == "right" else header}
    response = requests.get(emulator.managed_identity_endpoint, timeout=TIMEOUT,
                            params={"resource": emulator.resource, **params}, headers=headers)
    assert response.status_code == status, response.text
    assert words in response.json()["message"]
    assert emulator.managed_identity_header not in response.text


def test_imds_endpoint(emulator):
    params = {"api-version": "2018-02-01", "resource": emulator.resource}
    refused = requests.get(emulator.imds_endpoint, params=params, timeout=TIMEOUT)
    assert "Metadata: true" in _expect_oauth_error(refused, 400, "invalid_request")
    response = requests.get(emulator.imds_endpoint, params=params, headers={"Metadata": "true"},
                            timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["client_id"] == SYSTEM_ASSIGNED and answer["token_type"] == "Bearer"
    assert int(answer["expires_on"]) > int(answer["not_before"])
    no_version = requests.get(emulator.imds_endpoint, params={"resource": emulator.resource},
                              headers={"Metadata": "true"}, timeout=TIMEOUT)
    assert "api-version" in _expect_oauth_error(no_version, 400, "invalid_request")


# the GitHub Actions stand-in

def test_github_stand_in_mints_id_tokens_for_the_subject_asked(emulator):
    claims = _claims(_id_token(emulator, "my-audience"))
    assert claims["iss"] == GITHUB_ISSUER and claims["sub"] == SUBJECT
    assert claims["aud"] == "my-audience" and claims["repository"] == "acme/infra"
    assert claims["environment"] == "preview-dev" and claims["exp"] > claims["iat"]
    other = _claims(_id_token(emulator, "x", subject="repo:acme/infra:ref:refs/heads/main"))
    assert other["sub"] == "repo:acme/infra:ref:refs/heads/main"
    assert other["ref"] == "refs/heads/main"
    refused = requests.get(f"{emulator.github_oidc_request_url}&audience=x", timeout=TIMEOUT,
                           headers={"Authorization": "bearer wrong"})
    assert refused.status_code == 401
    assert "github_oidc_request_token" in refused.json()["message"]


# token federation at the workspace's token endpoint

def test_token_exchange_of_a_matching_id_token(emulator):
    _add_member(emulator, GITHUB_DEPLOYER)
    response = _exchange(emulator, _id_token(emulator, emulator.oidc_token_url))
    assert response.status_code == 200, response.text
    answer = response.json()
    assert answer["token_type"] == "Bearer" and answer["scope"] == "all-apis"
    me = Api(emulator.base_url, answer["access_token"]).get("/api/2.0/preview/scim/v2/Me")
    assert me.json()["userName"] == GITHUB_DEPLOYER


def test_token_exchange_refusals(emulator):
    matching = _id_token(emulator, emulator.oidc_token_url)
    other_subject = _id_token(emulator, emulator.oidc_token_url,
                              subject="repo:acme/infra:environment:prod")
    description = _expect_oauth_error(_exchange(emulator, other_subject), 401, "invalid_client")
    assert description.startswith("Client authentication failed: no federation policy of "
                                  f"service principal '{GITHUB_DEPLOYER}'")
    assert "subject 'repo:acme/infra:environment:prod'" in description
    assert other_subject not in description
    other_audience = _id_token(emulator, "https://example.com")
    assert "audience 'https://example.com'" in _expect_oauth_error(
        _exchange(emulator, other_audience), 401, "invalid_client")
    not_its_policy = _exchange(emulator, matching, client_id=emulator.client_id)
    _expect_oauth_error(not_its_policy, 401, "invalid_client")
    header, payload, _ = matching.split(".")
    forged = f"{header}.{payload}.c2lnbmF0dXJl"
    assert "signature" in _expect_oauth_error(_exchange(emulator, forged), 401,
                                              "invalid_client")
    assert "client_id is required" in _expect_oauth_error(
        _exchange(emulator, matching, client_id=None), 400, "invalid_request")
    assert "subject_token_type" in _expect_oauth_error(
        _exchange(emulator, matching, subject_token_type="urn:x"), 400, "invalid_request")
    assert "not a JWT" in _expect_oauth_error(_exchange(emulator, "abc"), 401, "invalid_client")


def test_an_id_token_expires(manual):
    token = _id_token(manual, manual.oidc_token_url)
    advance_clock(manual, 300)
    assert "expired" in _expect_oauth_error(_exchange(manual, token), 401, "invalid_client")


def test_the_sdk_signs_in_with_github_oidc(emulator, monkeypatch):
    _add_member(emulator, GITHUB_DEPLOYER)
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_URL", emulator.github_oidc_request_url)
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", emulator.github_oidc_request_token)
    sdk = WorkspaceClient(host=emulator.base_url, client_id=GITHUB_DEPLOYER,
                          auth_type="github-oidc")
    assert {c.cluster_id for c in sdk.clusters.list()} >= {"0101-120000-shared01"}
    assert sdk.current_user.me().user_name == GITHUB_DEPLOYER


# a federated credential at the identity provider (github-oidc-azure)

def _assertion_grant(info: EmulatorInfo, assertion: str, **form: str) -> requests.Response:
    return requests.post(info.token_url, timeout=TIMEOUT, data={
        "grant_type": "client_credentials", "client_id": GITHUB_DEPLOYER,
        "client_assertion_type": JWT_BEARER, "client_assertion": assertion,
        "resource": info.resource, **form})


def test_a_federated_credential_signs_in_at_the_identity_provider(emulator):
    _add_member(emulator, GITHUB_DEPLOYER)
    response = _assertion_grant(emulator, _id_token(emulator, AZURE_EXCHANGE_AUDIENCE))
    assert response.status_code == 200, response.text
    token = response.json()["access_token"]
    assert Api(emulator.base_url, token).get(CLUSTERS).status_code == 200


def test_federated_credential_refusals(emulator):
    other = _id_token(emulator, AZURE_EXCHANGE_AUDIENCE, subject="repo:acme/other:ref:main")
    response = _assertion_grant(emulator, other)
    assert response.status_code == 400, response.text
    body = response.json()
    assert body["error_codes"] == [70021]
    assert body["error_description"].startswith(
        "AADSTS70021: No matching federated identity record found for presented assertion")
    wrong_audience = _assertion_grant(emulator, _id_token(emulator, emulator.oidc_token_url))
    assert wrong_audience.json()["error_codes"] == [70021]
    header, payload, _ = _id_token(emulator, AZURE_EXCHANGE_AUDIENCE).split(".")
    forged = _assertion_grant(emulator, f"{header}.{payload}.c2lnbmF0dXJl")
    assert forged.status_code == 401 and forged.json()["error_codes"] == [50013]
    wrong_type = _assertion_grant(emulator, other, client_assertion_type="urn:x")
    assert wrong_type.status_code == 400 and wrong_type.json()["error_codes"] == [700023]


def test_a_managed_identity_is_no_member_until_added(emulator):
    response = requests.get(emulator.imds_endpoint, headers={"Metadata": "true"},
                            timeout=TIMEOUT, params={"api-version": "2018-02-01",
                                                     "resource": emulator.resource})
    token = response.json()["access_token"]
    expect_error(Api(emulator.base_url, token).get(CLUSTERS), 401, "UNAUTHENTICATED")
