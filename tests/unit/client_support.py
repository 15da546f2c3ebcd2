"""Helpers for the client and token unit tests: connections, token bodies, fake clocks,
and a scripted urllib3 transport.

``responses`` replaces ``HTTPAdapter.send`` and emulates urllib3's status retries itself, but
it never sleeps between attempts and never retries connection errors. Tests of backoff,
``Retry-After`` waits and connection errors therefore use ``ScriptedTransport``, which
replaces only ``HTTPConnectionPool._make_request``: the request goes through the real
requests adapter and the real urllib3 retry loop, and no socket is opened.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from responses import matchers
from urllib3.connectionpool import HTTPConnectionPool
from urllib3.response import HTTPResponse

from providers.client import retry
from providers.client.connection import Connection

BASE_URL = "https://adb-123.example.net"
AUTH_URL = "https://127.0.0.1:9443"  # loopback: the legacy form sends its token request there only
TENANT = "tenant-1"
CLIENT_ID = "client-1"
CLIENT_SECRET = "very-secret-value-1234"
RESOURCE = "2ff814a6-3304-4ab8-85cb-cd0e6f879c1d"
TOKEN_URL = f"{AUTH_URL}/{TENANT}/oauth2/token"
# WorkspaceAuth proves an Azure AD token with SCIM Me (the workspace may refuse a principal of
# the tenant it does not know): its URL and an answer.
SCIM_ME = f"{BASE_URL}/api/2.0/preview/scim/v2/Me"
ME = {"applicationId": CLIENT_ID, "displayName": "iac"}
ACCESS_TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOi.fake-access-token"


def connection(**overrides: Any) -> Connection:
    values: dict[str, Any] = {
        "base_url": BASE_URL,
        "auth_url": AUTH_URL,
        "tenant_id": TENANT,
        "client_id": CLIENT_ID,
        "client_secret": CLIENT_SECRET,
        "resource": RESOURCE,
        "wire_form": "legacy",  # the tests' token mocks are its GET; the default is public
        "rate_limit_per_second": 0,
    }
    values.update(overrides)
    return Connection(**values)


def body_is(body: dict) -> list:
    """A `responses` match on a JSON body of exactly `body`."""
    return [matchers.json_params_matcher(body, strict_match=True)]


def token_body(
    access_token: str = ACCESS_TOKEN,
    *,
    expires_on: float | None = None,
    resource: str = RESOURCE,
    now: float | None = None,
) -> dict[str, str]:
    """An identity provider's answer; `now` is its clock (the real one unless given)."""
    now = int(time.time() if now is None else now)
    expires = int(expires_on) if expires_on is not None else now + 3599
    return {
        "token_type": "Bearer",
        "expires_in": str(expires - now),
        "ext_expires_in": str(expires - now),
        "expires_on": str(expires),
        "not_before": str(now),
        "resource": resource,
        "access_token": access_token,
    }


@dataclass
class FakeClock:
    """A clock that only moves when something sleeps on it."""

    now: float = 1_000.0
    sleeps: list[float] = field(default_factory=list)

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def use_fake_retry_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    clock = FakeClock()
    monkeypatch.setattr(retry, "monotonic", clock)
    monkeypatch.setattr(retry, "sleep", clock.sleep)
    return clock


@dataclass
class Answer:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    takes_seconds: float = 0.0


Step = Answer | BaseException


class ScriptedTransport:
    """Answers each attempt with the next step of the script (an Answer or an exception)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, clock: FakeClock | None = None) -> None:
        self.script: list[Step] = []
        self.attempts: list[tuple[str, str]] = []
        self.clock = clock
        transport = self

        def fake_make_request(
            pool: HTTPConnectionPool, conn: Any, method: str, url: str, **kwargs: Any
        ) -> HTTPResponse:
            return transport._answer(pool, method, url, kwargs)

        monkeypatch.setattr(HTTPConnectionPool, "_make_request", fake_make_request)

    def then(self, *steps: Step) -> ScriptedTransport:
        self.script.extend(steps)
        return self

    def _answer(
        self, pool: HTTPConnectionPool, method: str, url: str, kwargs: dict[str, Any]
    ) -> HTTPResponse:
        self.attempts.append((method, url))
        if not self.script:
            raise AssertionError(f"unexpected attempt {len(self.attempts)}: {method} {url}")
        step = self.script.pop(0)
        if isinstance(step, BaseException):
            raise step
        if self.clock is not None:
            self.clock.now += step.takes_seconds
        data = b"" if step.body is None else json.dumps(step.body).encode()
        headers = {"Content-Type": "application/json", **step.headers}
        return HTTPResponse(
            body=io.BytesIO(data),
            headers=headers,
            status=step.status,
            reason="scripted",
            preload_content=False,
            decode_content=False,
            request_method=method,
            request_url=url,
            pool=pool,
            connection=kwargs.get("response_conn"),
        )


ErrorFactory = Callable[[], BaseException]
