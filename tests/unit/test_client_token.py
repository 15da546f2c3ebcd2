"""Tokens: both wire forms of the request, the response's string numbers, the cache."""

from __future__ import annotations

import threading
import time

import pytest
import requests
import responses
from responses import matchers

from providers.client.connection import InsecureUrlError
from providers.client.errors import IdentityError, InvalidClientCredentials, WorkspaceUnreachable
from providers.client.token import TokenCache
from providers.client.token_request import (
    MANAGEMENT_RESOURCE,
    AccessToken,
    fetch_token,
    parse_token_response,
)
from tests.unit.client_support import (
    ACCESS_TOKEN,
    AUTH_URL,
    CLIENT_ID,
    CLIENT_SECRET,
    RESOURCE,
    TENANT,
    TOKEN_URL,
    FakeClock,
    connection,
    token_body,
)

pytestmark = pytest.mark.usefixtures("fresh_client_caches")


def legacy_query(resource: str = RESOURCE) -> dict[str, str]:
    return {
        "grant_type": "client_credential",
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "resource": resource,
    }


def invalid_client() -> dict[str, object]:
    return {
        "error": "invalid_client",
        "error_description": "AADSTS7000215: Invalid client secret provided.\r\nTrace ID: x",
        "error_codes": [7000215],
        "timestamp": "2026-11-22 01:05:22Z",
        "trace_id": "x",
        "correlation_id": "y",
    }


def test_legacy_form_is_a_get_with_the_credentials_in_the_query():
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body(),
                   match=[matchers.query_param_matcher(legacy_query())])

        token = fetch_token(AUTH_URL, TENANT, CLIENT_ID, CLIENT_SECRET, RESOURCE, "legacy")

    assert token.value == ACCESS_TOKEN
    assert token.resource == RESOURCE
    assert token.expires_on == pytest.approx(time.time() + 3599, abs=5)


def test_public_form_is_a_form_encoded_post():
    form = {**legacy_query(), "grant_type": "client_credentials"}
    with responses.RequestsMock() as mocked:
        mocked.post(
            TOKEN_URL,
            json=token_body(),
            match=[matchers.urlencoded_params_matcher(form), matchers.query_string_matcher("")],
        )

        token = fetch_token(AUTH_URL, TENANT, CLIENT_ID, CLIENT_SECRET, RESOURCE, "public")

    assert token.value == ACCESS_TOKEN


def test_the_token_response_numbers_are_strings():
    body = token_body(expires_on=1_800_000_000)
    assert isinstance(body["expires_on"], str)
    token = parse_token_response(body, RESOURCE)
    # From `expires_in`, counted from receipt on the local clock (test_client_security.py)
    assert token.expires_on == pytest.approx(1_800_000_000.0, abs=5)


def test_expires_in_is_used_when_expires_on_is_missing():
    body = {"token_type": "Bearer", "expires_in": "3599", "access_token": "t"}
    assert parse_token_response(body, "r", now=lambda: 100.0).expires_on == 3699.0


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"token_type": "Bearer", "expires_on": "1"}, "no access_token"),
        ({"token_type": "Bearer", "access_token": "t"},
         "neither expires_in nor expires_on is a number"),
        ({"token_type": "mac", "access_token": "t", "expires_on": "1"},
         "token_type 'mac' is not Bearer"),
        (["not", "an", "object"], "expected a JSON object"),
    ],
)
def test_unusable_token_responses(body, problem):
    with pytest.raises(ValueError, match=f"^{problem}$"):
        parse_token_response(body, "r")


def test_an_unusable_200_never_echoes_the_body():
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json={"access_token": "leaky-token", "expires_on": "soon"})
        with pytest.raises(IdentityError) as caught:
            fetch_token(AUTH_URL, TENANT, CLIENT_ID, CLIENT_SECRET, RESOURCE, "legacy")
    assert caught.value.code == "INVALID_TOKEN_RESPONSE"
    assert "leaky-token" not in str(caught.value)


@pytest.mark.parametrize("form", ["legacy", "public"])
def test_wrong_secret_names_tenant_and_client_but_never_the_secret(form):
    with responses.RequestsMock() as mocked:
        mocked.add(
            "GET" if form == "legacy" else "POST", TOKEN_URL, status=401, json=invalid_client()
        )
        with pytest.raises(InvalidClientCredentials) as caught:
            fetch_token(AUTH_URL, TENANT, CLIENT_ID, CLIENT_SECRET, RESOURCE, form)

    error = caught.value
    assert error.status == 401 and error.code == "invalid_client"
    assert "rejected" in error.message
    assert TENANT in error.message and CLIENT_ID in error.message
    assert "client secret or client id is wrong" in error.message
    for text in (str(error), repr(error), *map(str, error.args)):
        assert CLIENT_SECRET not in text
        assert "?" not in text


def test_an_identity_provider_echoing_the_secret_is_redacted():
    body = {"error": "invalid_request", "error_description": f"bad secret {CLIENT_SECRET}"}
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, status=400, json=body)
        with pytest.raises(IdentityError) as caught:
            fetch_token(AUTH_URL, TENANT, CLIENT_ID, CLIENT_SECRET, RESOURCE, "legacy")
    assert CLIENT_SECRET not in str(caught.value)


def test_unreachable_identity_provider_never_shows_the_query():
    with responses.RequestsMock() as mocked:
        mocked.get(
            TOKEN_URL,
            body=requests.exceptions.ConnectionError(f"refused for ?client_secret={CLIENT_SECRET}"),
        )
        with pytest.raises(WorkspaceUnreachable) as caught:
            fetch_token(AUTH_URL, TENANT, CLIENT_ID, CLIENT_SECRET, RESOURCE, "legacy")
    assert CLIENT_SECRET not in str(caught.value) + repr(caught.value)


def test_http_identity_provider_is_refused():
    with pytest.raises(InsecureUrlError):
        fetch_token("http://login.example.net", TENANT, CLIENT_ID, CLIENT_SECRET, RESOURCE,
                    "legacy")


def test_access_token_repr_hides_the_value():
    token = AccessToken(value="abc.def.ghi", expires_on=1.0, resource="r")
    assert "abc.def.ghi" not in repr(token) and "abc.def.ghi" not in str(token)
    assert "expires_on=1.0" in repr(token)


# --- the cache ------------------------------------------------------------------------


def test_repeated_gets_make_one_request():
    cache = TokenCache()
    with responses.RequestsMock() as mocked:
        call = mocked.get(TOKEN_URL, json=token_body())
        tokens = [cache.get(connection()) for _ in range(5)]
    assert call.call_count == 1
    assert len({t.value for t in tokens}) == 1


def test_refetch_five_minutes_before_expiry_on_a_fake_clock():
    clock = FakeClock(now=10_000.0)
    cache = TokenCache(clock=clock)
    expires = clock.now + 3600
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body("first", expires_on=expires, now=clock.now))
        mocked.get(
            TOKEN_URL, json=token_body("second", expires_on=expires + 3600, now=expires - 300)
        )

        assert cache.get(connection()).value == "first"
        clock.now = expires - 301
        assert cache.get(connection()).value == "first"
        clock.now = expires - 300
        assert cache.get(connection()).value == "second"
        assert len(mocked.calls) == 2


def test_the_margin_is_configurable_and_never_more_than_half_the_lifetime():
    clock = FakeClock(now=0.0)
    cache = TokenCache(clock=clock, refresh_margin_seconds=60)
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body("a", expires_on=3600, now=0))
        mocked.get(TOKEN_URL, json=token_body("b", expires_on=3700, now=3600))  # lifetime 100 s
        mocked.get(TOKEN_URL, json=token_body("c", expires_on=9999, now=3650))
        assert cache.get(connection()).value == "a"
        clock.now = 3539
        assert cache.get(connection()).value == "a"
        clock.now = 3600
        assert cache.get(connection()).value == "b"
        clock.now = 3649  # refreshed at 50 s before expiry, not 60
        assert cache.get(connection()).value == "b"
        clock.now = 3650
        assert cache.get(connection()).value == "c"


def test_both_resource_variants_are_cached_apart():
    cache = TokenCache()
    with responses.RequestsMock() as mocked:
        mocked.get(
            TOKEN_URL,
            json=token_body("platform"),
            match=[matchers.query_param_matcher(legacy_query(RESOURCE))],
        )
        mocked.get(
            TOKEN_URL,
            json=token_body("management", resource=MANAGEMENT_RESOURCE),
            match=[matchers.query_param_matcher(legacy_query(MANAGEMENT_RESOURCE))],
        )
        for _ in range(2):
            platform = cache.get(connection())
            management = cache.get(connection(), MANAGEMENT_RESOURCE)
        assert len(mocked.calls) == 2
    assert (platform.value, platform.resource) == ("platform", RESOURCE)
    assert (management.value, management.resource) == ("management", MANAGEMENT_RESOURCE)


def test_invalidate_forces_a_new_request_for_that_resource_only():
    cache = TokenCache()
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body("one"))
        mocked.get(TOKEN_URL, json=token_body("management"))
        mocked.get(TOKEN_URL, json=token_body("two"))
        assert cache.get(connection()).value == "one"
        cache.get(connection(), MANAGEMENT_RESOURCE)
        cache.invalidate(connection())
        assert cache.get(connection()).value == "two"
        assert len(mocked.calls) == 3
        cache.get(connection(), MANAGEMENT_RESOURCE)
        assert len(mocked.calls) == 3


def test_invalidate_with_a_stale_token_keeps_a_newer_one():
    cache = TokenCache()
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body("one"))
        mocked.get(TOKEN_URL, json=token_body("two"))
        old = cache.get(connection())
        cache.invalidate(connection(), stale=old)
        new = cache.get(connection())
        cache.invalidate(connection(), stale=old)  # another thread's late invalidate
        assert cache.get(connection()) == new
        assert len(mocked.calls) == 2


def test_concurrent_gets_make_one_request():
    cache = TokenCache()
    results: list[AccessToken] = []
    with responses.RequestsMock() as mocked:
        call = mocked.get(TOKEN_URL, json=token_body())
        threads = [
            threading.Thread(target=lambda: results.append(cache.get(connection())))
            for _ in range(16)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert call.call_count == 1
    assert len(results) == 16


def test_failures_are_not_cached():
    cache = TokenCache()
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, status=401, json=invalid_client())
        mocked.get(TOKEN_URL, json=token_body())
        with pytest.raises(InvalidClientCredentials):
            cache.get(connection())
        assert cache.get(connection()).value == ACCESS_TOKEN


def test_the_cache_uses_the_connection_wire_form():
    cache = TokenCache()
    with responses.RequestsMock() as mocked:
        mocked.post(TOKEN_URL, json=token_body())
        cache.get(connection(wire_form="public"))
        assert mocked.calls[0].request.method == "POST"
