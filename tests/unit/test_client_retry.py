"""Retries: counts, backoff, Retry-After, the time budget, and what a non-idempotent POST
may repeat. Backoff and connection errors run the real urllib3 retry loop on a scripted
transport (see client_support); plain status retries are also checked through ``responses``.
"""

from __future__ import annotations

import logging
from http.client import RemoteDisconnected

import pytest
import responses
from urllib3.exceptions import NewConnectionError, ProtocolError, ReadTimeoutError

from providers.client import http
from providers.client.errors import (
    RateLimited,
    ServerError,
    TemporarilyUnavailable,
    WorkspaceUnreachable,
    error_from_response,
)
from providers.client.workspace import client_for
from tests.unit.client_support import (
    BASE_URL,
    CLIENT_SECRET,
    TOKEN_URL,
    Answer,
    ScriptedTransport,
    connection,
    token_body,
    use_fake_retry_clock,
)

URL = f"{BASE_URL}/api/2.0/jobs/list"
CREATE_URL = f"{BASE_URL}/api/2.0/jobs/create"
JITTER = http.BACKOFF_JITTER


pytestmark = pytest.mark.usefixtures("fresh_client_caches")


def policy(max_attempts: int = 6, max_retry_seconds: float = 300.0) -> http.CallPolicy:
    return http.CallPolicy(
        timeout_seconds=5, max_attempts=max_attempts, max_retry_seconds=max_retry_seconds
    )


def refused() -> NewConnectionError:
    return NewConnectionError(None, "Failed to establish a new connection: [Errno 111] refused")  # type: ignore[arg-type]


def dropped() -> ProtocolError:
    return ProtocolError("Connection aborted.", RemoteDisconnected("closed without response"))


# --- backoff on the real urllib3 loop -------------------------------------------------


def test_backoff_is_exponential_with_jitter_and_bounded_by_attempts(monkeypatch):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(
        *[Answer(503, {"error_code": "TEMPORARILY_UNAVAILABLE"})] * 5, Answer(200, {"ok": 1})
    )

    response = http.send("GET", URL, policy=policy(max_attempts=6), idempotent=True)

    assert response.status_code == 200
    assert len(transport.attempts) == 6
    # urllib3: the first retry is immediate, then factor * 2**(n-1), plus up to JITTER.
    expected = [0.0, 1.0, 2.0, 4.0, 8.0]
    assert len(clock.sleeps) == len(expected)
    assert clock.sleeps[0] == 0.0
    for slept, base in zip(clock.sleeps[1:], expected[1:], strict=True):
        assert base <= slept <= base + JITTER


def test_gives_up_after_max_attempts_and_returns_the_last_answer(monkeypatch):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(
        *[Answer(500, {"error_code": "INTERNAL_ERROR", "message": "boom"})] * 3
    )

    response = http.send("GET", URL, policy=policy(max_attempts=3), idempotent=True)

    assert len(transport.attempts) == 3
    assert response.status_code == 500
    error = error_from_response(response)
    assert isinstance(error, ServerError)
    assert error.message == "boom"


def test_retry_after_is_the_wait(monkeypatch):
    clock = use_fake_retry_clock(monkeypatch)
    ScriptedTransport(monkeypatch, clock).then(
        Answer(429, {"error_code": "REQUEST_LIMIT_EXCEEDED"}, {"Retry-After": "7"}),
        Answer(503, {"error_code": "TEMPORARILY_UNAVAILABLE"}, {"Retry-After": "3"}),
        Answer(200, {}),
    )

    response = http.send("GET", URL, policy=policy(), idempotent=True)

    assert response.status_code == 200
    assert clock.sleeps == [7.0, 3.0]


def test_retry_after_beyond_the_budget_gives_up_at_once_with_rate_limited(monkeypatch):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(
        Answer(
            429,
            {"error_code": "REQUEST_LIMIT_EXCEEDED", "message": "slow down"},
            {"Retry-After": "120"},
        )
    )

    response = http.send("GET", URL, policy=policy(max_retry_seconds=60), idempotent=True)

    assert len(transport.attempts) == 1
    assert clock.sleeps == []
    error = error_from_response(response)
    assert isinstance(error, RateLimited)
    assert error.retry_after == 120
    assert error.code == "REQUEST_LIMIT_EXCEEDED"


def test_time_budget_stops_retries_before_attempts_run_out(monkeypatch):
    clock = use_fake_retry_clock(monkeypatch)
    slow_failure = Answer(500, {"error_code": "INTERNAL_ERROR"}, takes_seconds=20)
    transport = ScriptedTransport(monkeypatch, clock).then(*[slow_failure] * 10)
    started = clock.now

    response = http.send(
        "GET", URL, policy=policy(max_attempts=10, max_retry_seconds=50), idempotent=True
    )

    assert response.status_code == 500
    # Budget counts from the first failure (t=20): attempts end at 20, ~41, ~63, ~85;
    # after the 4th, 63 s spent > 50 s, so no 5th attempt.
    assert len(transport.attempts) == 4
    assert clock.now - started < 20 + 50 + 20 + 2 * (1 + JITTER) + 1


def test_zero_budget_means_no_retries(monkeypatch):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(
        Answer(503, {}), Answer(503, {}), Answer(200, {})
    )
    # The first retry is immediate (0 s), so a zero budget still allows it; the second
    # would wait ~1 s and is refused.
    response = http.send("GET", URL, policy=policy(max_retry_seconds=0), idempotent=True)
    assert response.status_code == 503
    assert len(transport.attempts) == 2


# --- what may be repeated -------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_non_idempotent_post_is_not_retried_on_5xx(monkeypatch, status):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(
        Answer(status, {"error_code": "INTERNAL_ERROR"}, {"Retry-After": "1"}), Answer(200, {})
    )

    response = http.send("POST", CREATE_URL, policy=policy(), idempotent=False, json={})

    assert response.status_code == status
    assert len(transport.attempts) == 1


def test_non_idempotent_post_is_retried_on_429(monkeypatch):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(
        Answer(429, {"error_code": "REQUEST_LIMIT_EXCEEDED"}, {"Retry-After": "2"}),
        Answer(200, {"job_id": 7}),
    )

    response = http.send("POST", CREATE_URL, policy=policy(), idempotent=False, json={})

    assert response.json() == {"job_id": 7}
    assert len(transport.attempts) == 2
    assert clock.sleeps == [2.0]


def test_non_idempotent_post_is_retried_on_connect_errors(monkeypatch):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(refused(), refused(), Answer(200, {}))

    response = http.send("POST", CREATE_URL, policy=policy(), idempotent=False, json={})

    assert response.status_code == 200
    assert len(transport.attempts) == 3


@pytest.mark.parametrize(
    "failure",
    [dropped, lambda: ReadTimeoutError(None, "/", "Read timed out.")],  # type: ignore[arg-type]
    ids=["dropped", "read-timeout"],
)
def test_non_idempotent_post_is_not_retried_after_the_request_went_out(monkeypatch, failure):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(failure(), Answer(200, {}))

    with pytest.raises(WorkspaceUnreachable) as caught:
        http.send("POST", CREATE_URL, policy=policy(), idempotent=False, json={})

    assert len(transport.attempts) == 1
    assert caught.value.request_may_have_been_sent is True
    assert caught.value.status is None


@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "DELETE"])
def test_idempotent_methods_are_retried_on_5xx_and_dropped_connections(monkeypatch, method):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(
        Answer(502, None), dropped(), Answer(504, None), Answer(200, {})
    )

    # idempotent=False is ignored for anything but POST
    response = http.send(method, URL, policy=policy(), idempotent=False)

    assert response.status_code == 200
    assert len(transport.attempts) == 4


def test_post_marked_idempotent_is_retried_on_5xx(monkeypatch):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(Answer(500, {}), Answer(200, {}))

    response = http.send(
        "POST", f"{BASE_URL}/api/2.0/jobs/reset", policy=policy(), idempotent=True, json={}
    )

    assert response.status_code == 200
    assert len(transport.attempts) == 2


@pytest.mark.parametrize("status", [400, 401, 403, 404, 409])
def test_client_errors_are_never_retried(monkeypatch, status):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(Answer(status, {}), Answer(200, {}))

    response = http.send("GET", URL, policy=policy(), idempotent=True)

    assert response.status_code == status
    assert len(transport.attempts) == 1


def test_unreachable_after_connect_retries_says_the_request_was_never_sent(monkeypatch):
    clock = use_fake_retry_clock(monkeypatch)
    transport = ScriptedTransport(monkeypatch, clock).then(*[refused() for _ in range(3)])
    url = f"{BASE_URL}/t/oauth2/token?grant_type=x&client_secret={CLIENT_SECRET}"

    with pytest.raises(WorkspaceUnreachable) as caught:
        http.send("GET", url, policy=policy(max_attempts=3), idempotent=True)

    error = caught.value
    assert len(transport.attempts) == 3
    assert error.code == "CONNECT_FAILED"
    assert error.request_may_have_been_sent is False
    assert error.path == "/t/oauth2/token"
    for text in (str(error), repr(error)):
        assert CLIENT_SECRET not in text
        assert "?" not in text.split(":", 1)[0]
    assert error.__cause__ is None and error.__suppress_context__


def test_urllib3_retry_warnings_do_not_log_secrets_from_the_query(monkeypatch, caplog):
    clock = use_fake_retry_clock(monkeypatch)
    ScriptedTransport(monkeypatch, clock).then(refused(), Answer(200, {}))
    caplog.set_level(logging.DEBUG, logger="urllib3")

    http.send(
        "GET",
        f"{BASE_URL}/t/oauth2/token",
        policy=policy(),
        idempotent=True,
        params={"client_id": "c", "client_secret": CLIENT_SECRET},
    )

    assert "Retrying" in caplog.text
    assert CLIENT_SECRET not in caplog.text
    assert "client_secret=***" in caplog.text


def test_every_call_carries_the_timeout(monkeypatch):
    seen = []
    original = http.requests.Session.request

    def spy(self, method, url, **kwargs):
        seen.append(kwargs.get("timeout"))
        return original(self, method, url, **kwargs)

    monkeypatch.setattr(http.requests.Session, "request", spy)
    with responses.RequestsMock() as mocked:
        mocked.get(URL, json={})
        http.send("GET", URL, policy=policy(), idempotent=True)
    assert seen == [5]


# --- the same through the workspace client, with `responses` ---------------------------


def test_workspace_client_raises_typed_error_after_the_retries():
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        failing = mocked.get(URL, status=503, json={"error_code": "TEMPORARILY_UNAVAILABLE"})

        with pytest.raises(TemporarilyUnavailable):
            client_for(connection(max_attempts=4)).get("/api/2.0/jobs/list")

        assert failing.call_count == 4


def test_workspace_client_does_not_repeat_a_create_on_500_but_does_on_429():
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        create = mocked.post(CREATE_URL, status=500, json={"error_code": "INTERNAL_ERROR"})

        with pytest.raises(ServerError):
            client_for(connection()).post("/api/2.0/jobs/create", {"name": "j"})
        assert create.call_count == 1

    with responses.RequestsMock() as mocked:
        limited = mocked.post(
            CREATE_URL,
            status=429,
            json={"error_code": "REQUEST_LIMIT_EXCEEDED"},
            headers={"Retry-After": "0"},
        )
        mocked.post(CREATE_URL, json={"job_id": 1})

        assert client_for(connection()).post("/api/2.0/jobs/create", {"name": "j"}) == {"job_id": 1}
        assert limited.call_count == 1
        assert len(mocked.calls) == 2


def test_workspace_client_rate_limited_when_retry_after_outlasts_the_budget():
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        limited = mocked.get(
            URL,
            status=429,
            json={"error_code": "REQUEST_LIMIT_EXCEEDED", "message": "too many"},
            headers={"Retry-After": "600"},
        )

        with pytest.raises(RateLimited) as caught:
            client_for(connection(max_retry_seconds=300)).get("/api/2.0/jobs/list")

        assert limited.call_count == 1
        assert caught.value.retry_after == 600
        assert str(caught.value) == ("GET /api/2.0/jobs/list: 429 REQUEST_LIMIT_EXCEEDED: too many")
