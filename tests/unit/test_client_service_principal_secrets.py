"""The client's area of a service principal's OAuth secrets (the workspace's proxy of the
account API), against the service mocked with `responses`: each call's path, method and
body, the pages of the list, the errors by status, a create that is never repeated, and
the value of a secret in no error."""

from __future__ import annotations

import pytest
import responses

from providers.client import (
    InvalidParameter,
    NotFound,
    PermissionDenied,
    ServerError,
    TemporarilyUnavailable,
    WorkspaceError,
)
from providers.identity.service_principal_secrets_api import ServicePrincipalSecretsApi
from tests.unit.client_support import BASE_URL, body_is

PRINCIPAL = "100000000000042"
SECRETS = f"{BASE_URL}/api/2.0/accounts/servicePrincipals/{PRINCIPAL}/credentials/secrets"
VALUE = "dose0123456789abcdefSECRETVALUE"
MADE = {
    "id": "7d0c1b2a3f",
    "secret": VALUE,
    "secret_hash": "a1b2c3",
    "status": "ACTIVE",
    "create_time": "2026-01-01T00:00:00Z",
    "expire_time": "2026-04-01T00:00:00Z",
}
LISTED = {k: v for k, v in MADE.items() if k != "secret"}

pytestmark = pytest.mark.usefixtures("fresh_client_caches", "no_retry_sleep")


def calls_to(mocked: responses.RequestsMock, url: str) -> int:
    return len([c for c in mocked.calls if str(c.request.url).split("?")[0] == url])


def test_create_posts_the_lifetime_and_answers_the_secret(service, client):
    service.post(SECRETS, json=MADE, match=body_is({"lifetime": "3600s"}))
    assert ServicePrincipalSecretsApi(client).create(PRINCIPAL, "3600s") == MADE


def test_create_without_a_lifetime_sends_an_empty_body(service, client):
    service.post(SECRETS, json=MADE, match=body_is({}))
    assert ServicePrincipalSecretsApi(client).create(PRINCIPAL)["secret"] == VALUE


@pytest.mark.parametrize("status", [500, 503])
def test_create_is_not_repeated_after_a_lost_answer(service, client, status):
    error = {"error_code": "TEMPORARILY_UNAVAILABLE" if status == 503 else "INTERNAL_ERROR",
             "message": "try later"}
    service.post(SECRETS, status=status, json=error)
    with pytest.raises((ServerError, TemporarilyUnavailable)):
        ServicePrincipalSecretsApi(client).create(PRINCIPAL)
    assert calls_to(service, SECRETS) == 1


@pytest.mark.parametrize(
    ("status", "code", "error"),
    [
        (400, "INVALID_PARAMETER_VALUE", InvalidParameter),
        (403, "PERMISSION_DENIED", PermissionDenied),
        (404, "RESOURCE_DOES_NOT_EXIST", NotFound),
    ],
)
def test_create_refused_raises_the_typed_error(service, client, status, code, error):
    service.post(SECRETS, status=status, json={"error_code": code, "message": "refused"})
    with pytest.raises(error, match="refused"):
        ServicePrincipalSecretsApi(client).create(PRINCIPAL, "3600s")


@pytest.mark.parametrize(
    ("answer", "missing"),
    [
        ({k: v for k, v in MADE.items() if k != "id"}, "no id"),
        ({k: v for k, v in MADE.items() if k != "secret"}, "no secret"),
        ({}, "no id and no secret"),
    ],
)
def test_an_answer_without_the_secret_or_its_id_is_refused_without_quoting_it(
    service, client, answer, missing
):
    service.post(SECRETS, json=answer)
    with pytest.raises(WorkspaceError) as caught:
        ServicePrincipalSecretsApi(client).create(PRINCIPAL)
    assert caught.value.code == "INVALID_RESPONSE"
    assert missing in str(caught.value)
    assert VALUE not in str(caught.value) and VALUE not in repr(caught.value)
    assert "a1b2c3" not in str(caught.value)


def test_an_answer_that_is_no_object_is_refused_without_quoting_it(service, client):
    service.post(SECRETS, json=[VALUE])
    with pytest.raises(WorkspaceError) as caught:
        ServicePrincipalSecretsApi(client).create(PRINCIPAL)
    assert VALUE not in str(caught.value)


def test_list_follows_the_pages(service, client):
    second = {**LISTED, "id": "second"}
    service.get(SECRETS, json={"secrets": [LISTED], "next_page_token": "p2"},
                match=[responses.matchers.query_param_matcher({})])
    service.get(SECRETS, json={"secrets": [second]},
                match=[responses.matchers.query_param_matcher({"page_token": "p2"})])
    assert ServicePrincipalSecretsApi(client).list(PRINCIPAL) == [LISTED, second]


def test_list_of_a_principal_without_secrets_is_empty(service, client):
    service.get(SECRETS, json={})
    assert ServicePrincipalSecretsApi(client).list(PRINCIPAL) == []


def test_list_of_a_missing_principal_is_not_found(service, client):
    service.get(SECRETS, status=404, json={"error_code": "RESOURCE_DOES_NOT_EXIST",
                                           "message": "no such principal"})
    with pytest.raises(NotFound):
        ServicePrincipalSecretsApi(client).list(PRINCIPAL)


def test_delete_names_the_principal_and_the_secret(service, client):
    service.delete(f"{SECRETS}/7d0c1b2a3f", status=200, json={})
    ServicePrincipalSecretsApi(client).delete(PRINCIPAL, "7d0c1b2a3f")


def test_delete_of_a_missing_secret_is_not_found(service, client):
    service.delete(f"{SECRETS}/gone", status=404,
                   json={"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "no secret"})
    with pytest.raises(NotFound):
        ServicePrincipalSecretsApi(client).delete(PRINCIPAL, "gone")


def test_ids_are_quoted_into_the_path(service, client):
    quoted = f"{BASE_URL}/api/2.0/accounts/servicePrincipals/a%2Fb/credentials/secrets/c%2Fd"
    service.delete(quoted, status=200, json={})
    ServicePrincipalSecretsApi(client).delete("a/b", "c/d")


def test_the_area_shows_no_credentials(client):
    assert "Secret" in repr(ServicePrincipalSecretsApi(client))
    assert "very-secret" not in repr(ServicePrincipalSecretsApi(client))
