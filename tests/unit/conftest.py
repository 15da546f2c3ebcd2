"""Fixtures of the unit tests of the clients: the service mocked with `responses`, retries
that do not wait, fresh HTTP sessions. (Clean client caches: `fresh_client_caches`.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import responses

from providers.client import http, retry
from tests.unit.client_support import TOKEN_URL, token_body


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
    """Sessions are cached per policy; a test that patches urllib3 starts from new ones."""
    monkeypatch.setattr(http, "_sessions", {})
