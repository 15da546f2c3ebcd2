"""The identity provider's token endpoint: both wire forms, resources, errors."""

from __future__ import annotations

import time

import pytest
import requests

from tests.emulator.support import TIMEOUT
from workspace_emulator.testing import initial_applications

IDENTITY_ERROR_FIELDS = {"error", "error_description", "error_codes", "timestamp", "trace_id",
                         "correlation_id"}


def _params(emulator, **overrides):
    params = {"grant_type": "client_credentials", "client_id": emulator.client_id,
              "client_secret": emulator.client_secret, "resource": emulator.resource}
    params.update(overrides)
    return {k: v for k, v in params.items() if v is not None}


def _check_token(body: dict, resource: str) -> None:
    assert body["token_type"] == "Bearer"
    assert body["resource"] == resource
    for field in ("expires_in", "ext_expires_in", "expires_on", "not_before"):
        assert isinstance(body[field], str) and body[field].isdigit(), field
    assert int(body["expires_in"]) == 3599
    assert abs(int(body["expires_on"]) - (time.time() + 3599)) < 60
    assert body["access_token"]


def test_public_form_post_client_credentials(emulator):
    response = requests.post(emulator.token_url, data=_params(emulator), timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    _check_token(response.json(), emulator.resource)
    assert response.headers["cache-control"] == "no-store"


def test_legacy_form_get_with_query_parameters(emulator):
    params = _params(emulator, grant_type="client_credential")
    response = requests.get(emulator.token_url, params=params, timeout=TIMEOUT)
    assert response.status_code == 200, response.text
    _check_token(response.json(), emulator.resource)


def test_legacy_form_get_with_form_body(emulator):
    params = _params(emulator, grant_type="client_credential")
    response = requests.get(emulator.token_url, data=params, timeout=TIMEOUT)
    assert response.status_code == 200, response.text


def test_management_resource_is_issued(emulator):
    params = _params(emulator, resource=emulator.management_resource)
    response = requests.post(emulator.token_url, data=params, timeout=TIMEOUT)
    assert response.status_code == 200
    assert response.json()["resource"] == emulator.management_resource


def test_v2_endpoint_takes_a_scope(emulator):
    params = _params(emulator, resource=None, scope=f"{emulator.resource}/.default")
    url = f"{emulator.auth_url}/{emulator.tenant_id}/oauth2/v2.0/token"
    response = requests.post(url, data=params, timeout=TIMEOUT)
    assert response.status_code == 200, response.text


def test_tokens_are_distinct(emulator):
    first = requests.post(emulator.token_url, data=_params(emulator), timeout=TIMEOUT).json()
    second = requests.post(emulator.token_url, data=_params(emulator), timeout=TIMEOUT).json()
    assert first["access_token"] != second["access_token"]


def test_extra_registered_applications_get_tokens(emulator):
    for application in initial_applications():
        params = _params(emulator, client_id=application["client_id"],
                         client_secret=application["client_secret"])
        assert requests.post(emulator.token_url, data=params, timeout=TIMEOUT).ok


def _expect_identity_error(response, status, error, code=None):
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == IDENTITY_ERROR_FIELDS
    assert body["error"] == error
    assert isinstance(body["error_codes"], list)
    if code:
        assert body["error_codes"] == [code]
    return body


@pytest.mark.parametrize("missing", ["grant_type", "client_id", "client_secret", "resource"])
def test_missing_parameter_is_invalid_request(emulator, missing):
    response = requests.post(emulator.token_url, data=_params(emulator, **{missing: None}),
                             timeout=TIMEOUT)
    body = _expect_identity_error(response, 400, "invalid_request", 900144)
    assert missing in body["error_description"]


def test_wrong_secret_is_invalid_client(emulator):
    response = requests.post(emulator.token_url, data=_params(emulator, client_secret="nope"),
                             timeout=TIMEOUT)
    _expect_identity_error(response, 401, "invalid_client", 7000215)


def test_unknown_client_is_invalid_client(emulator):
    response = requests.post(emulator.token_url, data=_params(emulator, client_id="nobody"),
                             timeout=TIMEOUT)
    _expect_identity_error(response, 401, "invalid_client")


def test_unknown_resource_is_invalid_request(emulator):
    response = requests.post(emulator.token_url, data=_params(emulator, resource="other"),
                             timeout=TIMEOUT)
    _expect_identity_error(response, 400, "invalid_request", 500011)


def test_unknown_tenant_is_invalid_request(emulator):
    url = f"{emulator.auth_url}/00000000-0000-0000-0000-000000000000/oauth2/token"
    response = requests.post(url, data=_params(emulator), timeout=TIMEOUT)
    _expect_identity_error(response, 400, "invalid_request", 90002)


@pytest.mark.parametrize(("method", "grant_type"), [
    ("POST", "client_credential"), ("GET", "client_credentials"), ("POST", "password")])
def test_grant_type_must_match_the_wire_form(emulator, method, grant_type):
    params = _params(emulator, grant_type=grant_type)
    response = requests.request(method, emulator.token_url, data=params, timeout=TIMEOUT)
    _expect_identity_error(response, 400, "invalid_request", 70003)


def test_unknown_path_has_identity_error_shape(emulator):
    response = requests.get(f"{emulator.auth_url}/nothing/here", timeout=TIMEOUT)
    _expect_identity_error(response, 404, "invalid_request")


def test_oversized_body_is_refused(emulator):
    response = requests.post(emulator.token_url, data={"x": "a" * (1024 * 1024 + 10)},
                             timeout=TIMEOUT)
    assert response.status_code == 413
    assert response.json()["error"] == "invalid_request"
