"""The client's adaptive limit per endpoint family: no limit until the service throttles,
then Retry-After honoured, multiplicative decrease, additive increase, the configured
ceiling never exceeded; on fake clocks, and through the real retry loop."""

from __future__ import annotations

import threading

import pytest
import responses

from providers.client import http, ratelimit
from providers.client.ratelimit import AdaptiveLimit, endpoint_family, limit_for
from providers.client.workspace import client_for
from tests.unit.client_support import (
    BASE_URL,
    TOKEN_URL,
    Answer,
    FakeClock,
    ScriptedTransport,
    connection,
    token_body,
    use_fake_retry_clock,
)

pytestmark = pytest.mark.usefixtures("fresh_client_caches")


def limit_on(clock: FakeClock, ceiling: float | None = None, **options: float) -> AdaptiveLimit:
    return AdaptiveLimit(ceiling, clock=clock, sleep=clock.sleep, **options)


# --- before any 429 ----------------------------------------------------------------------


def test_no_ceiling_and_no_429_never_waits():
    clock = FakeClock()
    limit = limit_on(clock)
    assert [limit.acquire() for _ in range(500)] == [0.0] * 500
    assert limit.rate is None
    assert clock.sleeps == []


def test_a_ceiling_allows_one_seconds_burst_then_spaces_one_over_rate():
    clock = FakeClock()
    limit = limit_on(clock, 4)

    waits = [limit.acquire() for _ in range(8)]

    assert waits[:4] == [0, 0, 0, 0]
    assert waits[4:] == pytest.approx([0.25] * 4)
    assert clock.now - 1_000.0 == pytest.approx(1.0)


def test_idle_time_refills_up_to_the_burst_only():
    clock = FakeClock()
    limit = limit_on(clock, 2)
    for _ in range(2):
        limit.acquire()
    clock.now += 60

    assert [limit.acquire() for _ in range(3)] == pytest.approx([0, 0, 0.5])


def test_a_ceiling_below_one_keeps_a_burst_of_one():
    clock = FakeClock()
    limit = limit_on(clock, 0.5)
    assert [limit.acquire() for _ in range(3)] == pytest.approx([0, 2.0, 2.0])


def test_concurrent_callers_are_spaced_not_bunched():
    slept: list[float] = []
    lock = threading.Lock()
    clock = FakeClock()

    def record(seconds: float) -> None:
        with lock:
            slept.append(seconds)

    # The clock stands still: every reservation beyond the burst must queue behind the last.
    limit = AdaptiveLimit(10, burst=1, clock=clock, sleep=record)
    threads = [threading.Thread(target=limit.acquire) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(slept) == pytest.approx([0.1 * n for n in range(1, 20)])


# --- learning from 429s ------------------------------------------------------------------


def send_at(limit: AdaptiveLimit, clock: FakeClock, per_second: float, seconds: float) -> None:
    """Calls offered at `per_second` for `seconds` (each waits for its slot)."""
    end = clock.now + seconds
    while clock.now < end:
        offered = clock.now
        limit.acquire()
        clock.now = max(clock.now, offered + 1 / per_second)


def test_the_first_429_pauses_for_retry_after_then_halves_the_rate_sent():
    clock = FakeClock()
    limit = limit_on(clock)
    send_at(limit, clock, per_second=40, seconds=1.0)

    limit.on_throttled(retry_after=2)

    rate = limit.rate
    assert rate is not None
    assert rate == pytest.approx(20, abs=1)  # half of the ~40/s sent over the last second
    paused_from = clock.now
    first = limit.acquire()
    assert first == pytest.approx(2.0)  # nothing goes before Retry-After has passed
    # Then evenly spaced at the new rate, no burst.
    assert limit.acquire() == pytest.approx(1 / rate, rel=0.1)
    assert clock.now - paused_from == pytest.approx(2.0 + 1 / rate, rel=0.05)


def test_429s_of_calls_sent_before_the_decrease_count_once():
    clock = FakeClock()
    limit = limit_on(clock)
    send_at(limit, clock, per_second=40, seconds=1.0)

    for _ in range(4):  # four calls in flight, all answered 429 at once
        limit.on_throttled(retry_after=1)

    assert (limit.throttled, limit.decreases) == (4, 1)
    assert limit.rate == pytest.approx(20, abs=1)


def test_a_429_after_the_pause_halves_again_and_the_rate_grows_additively_between():
    clock = FakeClock()
    limit = limit_on(clock, increase_per_second=1.0)
    send_at(limit, clock, per_second=40, seconds=1.0)
    limit.on_throttled(retry_after=1)
    after_first = limit.rate
    assert after_first is not None

    send_at(limit, clock, per_second=1000, seconds=5.0)  # offered faster than the pace
    # The pause (1 s), then 4 s of growth at 1/s per second.
    grown = limit.rate
    assert grown is not None
    assert grown == pytest.approx(after_first + 4.0, abs=0.2)

    limit.on_throttled(retry_after=1)

    assert limit.decreases == 2
    assert limit.rate == pytest.approx(grown / 2, rel=0.1)


def test_never_below_the_floor():
    clock = FakeClock()
    limit = limit_on(clock, min_rate=1.0)
    for _ in range(10):
        limit.acquire()
        clock.now += 5  # one call every 5 s, each throttled
        limit.on_throttled(retry_after=1)
    assert limit.rate == 1.0


def test_a_429_without_retry_after_pauses_one_second():
    clock = FakeClock()
    limit = limit_on(clock)
    limit.acquire()
    limit.on_throttled(retry_after=None)
    assert limit.acquire() == pytest.approx(ratelimit.DEFAULT_PAUSE_SECONDS)


def test_the_ceiling_is_never_exceeded_growing_or_learning():
    clock = FakeClock()
    limit = limit_on(clock, 5)
    send_at(limit, clock, per_second=100, seconds=1.0)
    limit.on_throttled(retry_after=1)
    assert limit.rate is not None and limit.rate <= 5

    send_at(limit, clock, per_second=100, seconds=30.0)

    assert limit.rate == 5
    # Over the last second: at most the ceiling's calls (and the one starting now).
    assert limit._sending_rate(clock.now) <= 5 + 1


# --- shared per workspace and family -----------------------------------------------------


def test_one_limit_per_workspace_family_and_the_ceiling_follows_the_setting():
    a = limit_for("https://a jobs", 5)
    assert limit_for("https://a jobs", 5) is a
    assert limit_for("https://a permissions", 5) is not a
    assert limit_for("https://b jobs", 5) is not a
    limit_for("https://a jobs", 8)
    assert (a.ceiling, a.rate) == (8, 8)
    limit_for("https://a jobs", 0)
    assert (a.ceiling, a.rate) == (None, None)


def test_workspace_calls_go_through_their_familys_limit(monkeypatch):
    calls: list[tuple[str, float]] = []

    def recorded(key: str, ceiling: float) -> AdaptiveLimit:
        calls.append((key, ceiling))
        return AdaptiveLimit(ceiling or None)

    monkeypatch.setattr(ratelimit, "limit_for", recorded)
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        mocked.get(f"{BASE_URL}/api/2.0/clusters/list", json={"clusters": []})
        client = client_for(connection(rate_limit_per_second=7))
        client.get("/api/2.0/clusters/list")
        client.get("/api/2.0/clusters/list")
        mocked.get(f"{BASE_URL}/api/2.1/jobs/list", json={"jobs": []})
        client.get("/api/2.1/jobs/list")
    assert calls == [
        (f"{BASE_URL} clusters", 7),
        (f"{BASE_URL} clusters", 7),
        (f"{BASE_URL} jobs", 7),
    ]


def test_a_429_through_the_retry_loop_teaches_the_limit_and_the_retry_waits_its_slot(
    monkeypatch,
):
    clock = use_fake_retry_clock(monkeypatch)
    limit = limit_on(clock)
    ratelimit.rate_limits().by_key["ws jobs"] = limit
    transport = ScriptedTransport(monkeypatch, clock).then(
        Answer(429, {"error_code": "REQUEST_LIMIT_EXCEEDED"}, {"Retry-After": "3"}),
        Answer(200, {"job_id": 7}),
    )

    response = http.send(
        "POST",
        "https://ws.example.net/api/2.0/jobs/create",
        policy=http.CallPolicy(),
        idempotent=False,
        rate_limit_key="ws jobs",
        json={},
    )

    assert response.json() == {"job_id": 7}
    assert len(transport.attempts) == 2
    assert (limit.throttled, limit.learned) == (1, True)
    # The retry slept Retry-After and its slot was free then: one wait in all.
    assert clock.sleeps == [3.0]
    # The next call of the family is paced (rate learned), not free.
    assert limit.rate is not None


def test_a_call_of_another_family_is_not_slowed_by_a_429(monkeypatch):
    clock = FakeClock()
    jobs, scopes = limit_on(clock), limit_on(clock)
    jobs.acquire()
    jobs.on_throttled(retry_after=5)
    assert scopes.acquire() == 0.0
    assert jobs.acquire() == pytest.approx(5.0)


@pytest.mark.parametrize(
    ("path", "family"),
    [
        ("/api/2.0/jobs/create", "jobs"),
        ("/api/2.1/jobs/runs/get", "jobs"),
        ("/api/2.0/permissions/jobs/7", "permissions"),
        ("/api/2.0/preview/scim/v2/ServicePrincipals/12", "ServicePrincipals"),
        ("/api/2.0/secrets/scopes/create", "secrets"),
        ("/api/2.1/unity-catalog/bindings/catalog/main", "unity-catalog/bindings"),
        ("/api/2.1/unity-catalog/catalogs/main", "unity-catalog/catalogs"),
        ("/api/2.0/ip-access-lists", "ip-access-lists"),
    ],
)
def test_each_endpoint_family_has_its_own_limit(path, family):
    assert endpoint_family(path) == family


def test_a_pause_longer_than_the_callers_budget_is_not_waited_for():
    clock = FakeClock()
    limit = limit_on(clock)
    limit.acquire()
    limit.on_throttled(retry_after=600)

    assert limit.acquire(max_wait=60) == 0.0  # goes at once; the service's answer decides
    assert clock.sleeps == []
    assert limit.acquire() == pytest.approx(600)
