"""The client's security guarantees (issue 31; docs/RELIABILITY.md, "Security"): no redirect
is followed, no secret travels in a URL beyond loopback, error text is redacted before it is
cut and in every spelling of a secret, skewed clocks cost no extra tokens, throttling 500s
are uncertain outcomes, only literal loopback is loopback, and the token cache stays private
and pruned."""

from __future__ import annotations

import pytest
import requests
import responses

from providers.client.errors import RedirectRefused, error_from_response
from providers.client.token import fetch_token
from providers.client.workspace import client_for
from tests.unit.client_support import (
    AUTH_URL,
    BASE_URL,
    CLIENT_ID,
    CLIENT_SECRET,
    RESOURCE,
    TENANT,
    TOKEN_URL,
    connection,
)

# --- 1. redirects are errors, nothing is re-sent ----------------------------------------------

REDIRECT_TARGETS = [
    "https://elsewhere.example.org/collect?code=abc",  # another host
    "http://adb-123.example.net/api/2.0/jobs/create?x=1",  # the same host, plain http
]


def _redirect(mocked: responses.RequestsMock, method: str, url: str, target: str) -> None:
    mocked.add(method, url, status=307, headers={"Location": target})


@pytest.mark.parametrize("target", REDIRECT_TARGETS)
def test_a_token_request_redirected_is_refused_and_not_resent(target: str) -> None:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        _redirect(mocked, "POST", TOKEN_URL, target)
        mocked.add(responses.POST, target.split("?")[0], json={"access_token": "x"})

        with pytest.raises(RedirectRefused) as raised:
            fetch_token(AUTH_URL, TENANT, CLIENT_ID, CLIENT_SECRET, RESOURCE, "public")

        assert len(mocked.calls) == 1
    message = str(raised.value)
    assert target.split("?")[0] in message and "?" not in message.split("redirect")[-1]
    assert "code=abc" not in message and "x=1" not in message
    assert CLIENT_SECRET not in message
    assert raised.value.status == 307


@pytest.mark.parametrize("target", REDIRECT_TARGETS)
@pytest.mark.parametrize("status", [307, 308, 302])
def test_a_platform_write_redirected_is_refused_and_not_resent(
    mocked: responses.RequestsMock, target: str, status: int
) -> None:
    mocked.add(
        "POST", f"{BASE_URL}/api/2.0/secrets/put", status=status, headers={"Location": target}
    )
    client = client_for(connection())

    with pytest.raises(RedirectRefused) as raised:
        client.post("/api/2.0/secrets/put", {"scope": "s", "key": "k", "string_value": "v"})

    platform_calls = [c for c in mocked.calls if c.request.url.startswith(BASE_URL)]
    assert len(platform_calls) == 1
    assert target.split("?")[0] in str(raised.value)
    assert "POST /api/2.0/secrets/put: " in str(raised.value)


@pytest.mark.parametrize("target", REDIRECT_TARGETS)
def test_a_read_redirected_is_refused_and_not_resent(
    mocked: responses.RequestsMock, target: str
) -> None:
    _redirect(mocked, "GET", f"{BASE_URL}/api/2.0/jobs/get", target)
    client = client_for(connection())

    with pytest.raises(RedirectRefused):
        client.get("/api/2.0/jobs/get", {"job_id": 1})

    assert [c.request.url.split("?")[0] for c in mocked.calls] == [
        TOKEN_URL,
        f"{BASE_URL}/api/2.0/jobs/get",
    ]


def test_a_relative_redirect_names_its_absolute_target(mocked: responses.RequestsMock) -> None:
    _redirect(mocked, "GET", f"{BASE_URL}/api/2.0/jobs/get", "/login?next=/x")

    with pytest.raises(RedirectRefused) as raised:
        client_for(connection()).get("/api/2.0/jobs/get")

    assert f"{BASE_URL}/login" in str(raised.value) and "next=" not in str(raised.value)


def test_the_flow_controller_login_is_not_redirected() -> None:
    from providers import apps

    base = "https://flow.example.net/nifi-api"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        _redirect(mocked, "POST", f"{base}/access/token", "http://flow.example.net/steal")
        mocked.add("POST", "http://flow.example.net/steal", body="token")

        with pytest.raises(apps.AppLookupError) as raised:
            apps.flow_login(base, "admin", "flow-password-123")

        assert len(mocked.calls) == 1
    assert "http://flow.example.net/steal" in str(raised.value)
    assert "flow-password-123" not in str(raised.value)


def test_a_redirect_target_never_shows_credentials(mocked: responses.RequestsMock) -> None:
    _redirect(mocked, "GET", f"{BASE_URL}/api/2.0/jobs/get", "https://user:pw@[::2]:8443/p?q=1")

    with pytest.raises(RedirectRefused) as raised:
        client_for(connection()).get("/api/2.0/jobs/get")

    assert "to https://[::2]:8443/p;" in str(raised.value) and "pw" not in str(raised.value)


# --- 3. redact first, then cut ------------------------------------------------------------------


@pytest.mark.parametrize("start", [185, 190, 199])
def test_a_secret_straddling_the_cut_is_redacted_whole(start: int) -> None:
    body = "x" * start + CLIENT_SECRET + " and more text after it" * 5
    with responses.RequestsMock() as mocked:
        mocked.add("GET", f"{BASE_URL}/api/2.0/jobs/get", status=502, body=body)
        response = requests.get(f"{BASE_URL}/api/2.0/jobs/get")

    error = error_from_response(response, secrets=(CLIENT_SECRET,))

    assert CLIENT_SECRET[:6] not in str(error)
    assert ("x" * start + "***")[:200] in str(error)  # the marker, itself cut at 200


def test_a_flow_controller_error_straddling_the_cut_is_redacted_whole() -> None:
    from providers import apps

    base = "https://flow.example.net/nifi-api"
    password = "flow-password-123"
    with responses.RequestsMock() as mocked:
        mocked.add("POST", f"{base}/access/token", status=400, body="y" * 195 + password)

        with pytest.raises(apps.AppLookupError) as raised:
            apps.flow_login(base, "admin", password)

    assert password[:5] not in str(raised.value) and "***" in str(raised.value)
