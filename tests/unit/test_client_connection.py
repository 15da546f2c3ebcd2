"""Connection: validation, the http:// rule, props round trip, cache key without the secret."""

from __future__ import annotations

import pickle

import pytest
from pydantic import ValidationError

from providers.client.connection import (
    Connection,
    InsecureUrlError,
    WireForm,
    require_secure_url,
)
from tests.unit.client_support import CLIENT_SECRET, connection


def test_defaults():
    conn = Connection(
        base_url="https://ws.example.net/",
        auth_url="https://login.example.net",
        tenant_id="t",
        client_id="c",
        client_secret="s",
        resource="2ff814a6-3304-4ab8-85cb-cd0e6f879c1d",
    )
    assert conn.base_url == "https://ws.example.net"
    assert conn.wire_form is WireForm.PUBLIC  # the public service's spelling
    assert (conn.timeout_seconds, conn.max_attempts, conn.max_retry_seconds) == (30, 6, 300)
    assert conn.rate_limit_per_second == 0  # no ceiling: the client adapts to 429s
    assert conn.allow_insecure_http is False


def test_the_secret_is_hidden_in_repr_and_str():
    conn = connection()
    assert CLIENT_SECRET not in repr(conn)
    assert CLIENT_SECRET not in str(conn)


def test_props_round_trip_with_the_secret_and_ignoring_unknown_keys():
    conn = connection(wire_form="public", max_attempts=3)
    props = conn.to_props()
    assert props["client_secret"] == CLIENT_SECRET
    assert props["wire_form"] == "public"
    assert all(isinstance(v, str | int | float | bool) for v in props.values())

    again = Connection.from_props({**props, "__provider": "x", "unknown": 1})
    assert again == conn


def test_from_props_accepts_pulumi_floats_for_ints():
    props = connection().to_props()
    props["max_attempts"] = 4.0
    assert Connection.from_props(props).max_attempts == 4


def test_the_same_settings_are_validated_once_and_bad_ones_every_time():
    props = connection().to_props()
    assert Connection.from_props(props) is Connection.from_props(dict(props))
    assert Connection.from_props({**props, "max_attempts": 2}).max_attempts == 2
    bad = {**props, "max_attempts": 0}
    for _ in range(2):
        with pytest.raises(ValidationError):
            Connection.from_props(bad)


def test_cache_key_is_the_identity_without_the_secret():
    a = connection()
    b = connection(client_secret="another-secret")
    assert a.cache_key() == b.cache_key()
    assert CLIENT_SECRET not in repr(a.cache_key())
    assert connection(max_attempts=2).cache_key() != a.cache_key()
    hash(a.cache_key())


def test_connection_pickles():
    conn = connection()
    assert pickle.loads(pickle.dumps(conn)) == conn


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("timeout_seconds", 0),
        ("max_attempts", 0),
        ("max_retry_seconds", -1),
        ("rate_limit_per_second", -1),
        ("tenant_id", ""),
        ("client_secret", ""),
        ("wire_form", "private"),
    ],
)
def test_bad_values_are_refused_by_field(field, value):
    with pytest.raises(ValidationError) as caught:
        connection(**{field: value})
    assert caught.value.errors()[0]["loc"] == (field,)


@pytest.mark.parametrize(
    "url", ["http://ws.example.net", "http://10.0.0.5:8080", "http://[2001:db8::1]"]
)
@pytest.mark.parametrize("allow", [False, True])
def test_http_is_refused_for_non_loopback_hosts_even_when_allowed(url, allow):
    with pytest.raises(ValidationError, match="non-loopback"):
        connection(base_url=url, allow_insecure_http=allow)


@pytest.mark.parametrize(
    "url", ["http://localhost:8080", "http://127.0.0.1:9000", "http://[::1]:80"]
)
def test_http_on_loopback_needs_allow_insecure_http(url):
    with pytest.raises(ValidationError, match="allow_insecure_http"):
        connection(auth_url=url)
    assert connection(auth_url=url, allow_insecure_http=True).auth_url == url


@pytest.mark.parametrize(
    "url",
    ["ftp://ws.example.net", "ws.example.net", "https://u:p@ws.example.net", "https://h/?a=1"],
)
def test_other_bad_urls(url):
    with pytest.raises(InsecureUrlError):
        require_secure_url(url, allow_insecure_http=True)


def test_connection_is_frozen():
    conn = connection()
    with pytest.raises(ValidationError):
        conn.max_attempts = 3  # type: ignore[misc]
