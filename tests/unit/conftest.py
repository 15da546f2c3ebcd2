"""Fixtures of the unit tests of the clients: the service mocked with `responses`, retries
that do not wait, fresh HTTP sessions; a client of each wire form with its service mocked.
(Clean client caches: `fresh_client_caches`.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import responses

from providers.client import http, retry
from providers.client.workspace import WorkspaceClient, client_for
from tests.unit.client_support import TOKEN_URL, connection, token_body


@pytest.fixture
def mocked(fresh_client_caches: None) -> Iterator[responses.RequestsMock]:
    """`responses` in force, the token endpoint answering; every other call must be added
    by the test, and every call added must be made."""
    with responses.RequestsMock() as rsps:
        rsps.get(TOKEN_URL, json=token_body())
        yield rsps


@pytest.fixture
def no_retry_sleep(monkeypatch: pytest.MonkeyPatch) -> None:
    """Retries go at once: the client's backoff sleeps return immediately."""
    monkeypatch.setattr(retry, "sleep", lambda seconds: None)


@pytest.fixture
def fresh_http_sessions(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions are cached per policy, and the environment's settings per environment; a test
    that patches urllib3 or requests starts from new ones."""
    monkeypatch.setattr(http, "_sessions", {})
    monkeypatch.setattr(http, "_ENVIRONMENT_SETTINGS", {})


@pytest.fixture(params=["seed", "public"])
def wire_form(request: pytest.FixtureRequest) -> str:
    """Each wire form in turn."""
    return str(request.param)


@pytest.fixture
def service(wire_form: str) -> Iterator[responses.RequestsMock]:
    """The service mocked; the token endpoint answers with the wire form's method. Every
    other call must be added by the test, and every call added must be made."""
    with responses.RequestsMock() as mocked:
        mocked.add("GET" if wire_form == "seed" else "POST", TOKEN_URL, json=token_body())
        yield mocked


@pytest.fixture
def client(wire_form: str) -> WorkspaceClient:
    """A client of the wire form, on the mocked service's connection."""
    return client_for(connection(wire_form=wire_form))
