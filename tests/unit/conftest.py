"""Fixtures of the unit tests of the clients: the service mocked with `responses`, retries
that do not wait; a client of each wire form with its service mocked. (Each test runs in a
process state of its own, HTTP sessions included: `fresh_process_state`; no token on disk
either: `fresh_client_caches`.)"""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
import responses
from pulumi.runtime import settings

from providers.client import retry
from providers.client.workspace import WorkspaceClient, client_for
from tests.unit.client_support import TOKEN_URL, connection, token_body


@pytest.fixture(autouse=True)
def programs_under_mocks_free_their_garbage() -> Iterator[None]:
    """A program run under Pulumi's mocks that fails leaves Outputs whose exceptions nothing
    retrieved; asyncio logs each, traceback and all, when it is freed. Freed by the garbage
    collector in the middle of a later test's `ast.parse`, Python 3.11's traceback formatting
    parses again, and `ast` raises SystemError ("AST constructor recursion depth mismatch"):
    tests/unit/test_docs_examples.py failed so. A test that set mocks frees its garbage before
    the next one starts."""
    monitor = settings.get_monitor()
    yield
    if settings.get_monitor() is not monitor:
        gc.collect()


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


@pytest.fixture(params=["legacy", "public"])
def wire_form(request: pytest.FixtureRequest) -> str:
    """Each wire form in turn."""
    return str(request.param)


@pytest.fixture
def service(wire_form: str) -> Iterator[responses.RequestsMock]:
    """The service mocked; the token endpoint answers with the wire form's method. Every
    other call must be added by the test, and every call added must be made."""
    with responses.RequestsMock() as mocked:
        mocked.add("GET" if wire_form == "legacy" else "POST", TOKEN_URL, json=token_body())
        yield mocked


@pytest.fixture
def client(wire_form: str) -> WorkspaceClient:
    """A client of the wire form, on the mocked service's connection."""
    return client_for(connection(wire_form=wire_form))
