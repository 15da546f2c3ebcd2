"""The client-side token bucket: spacing on a fake clock, per base URL, thread-safe."""

from __future__ import annotations

import threading

import pytest
import responses

from providers.client import ratelimit
from providers.client.ratelimit import TokenBucket, endpoint_family, limiter_for
from providers.client.workspace import client_for
from tests.unit.client_support import (
    BASE_URL,
    TOKEN_URL,
    FakeClock,
    connection,
    token_body,
)

pytestmark = pytest.mark.usefixtures("fresh_client_caches")


def test_burst_then_spaced_one_over_rate():
    clock = FakeClock()
    bucket = TokenBucket(4, clock=clock, sleep=clock.sleep)

    waits = [bucket.acquire() for _ in range(8)]

    assert waits[:4] == [0, 0, 0, 0]
    assert waits[4:] == pytest.approx([0.25] * 4)
    assert clock.now - 1_000.0 == pytest.approx(1.0)


def test_idle_time_refills_up_to_the_burst_only():
    clock = FakeClock()
    bucket = TokenBucket(2, clock=clock, sleep=clock.sleep)
    for _ in range(2):
        bucket.acquire()
    clock.now += 60

    waits = [bucket.acquire() for _ in range(3)]

    assert waits == pytest.approx([0, 0, 0.5])


def test_rate_below_one_keeps_a_burst_of_one():
    clock = FakeClock()
    bucket = TokenBucket(0.5, clock=clock, sleep=clock.sleep)
    assert [bucket.acquire() for _ in range(3)] == pytest.approx([0, 2.0, 2.0])


def test_concurrent_callers_are_spaced_not_bunched():
    slept: list[float] = []
    lock = threading.Lock()
    clock = FakeClock()

    def record(seconds: float) -> None:
        with lock:
            slept.append(seconds)

    # The clock stands still: every reservation beyond the burst must queue behind the last.
    bucket = TokenBucket(10, burst=1, clock=clock, sleep=record)
    threads = [threading.Thread(target=bucket.acquire) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(slept) == pytest.approx([0.1 * n for n in range(1, 20)])


def test_one_bucket_per_base_url_and_zero_switches_it_off():
    a = limiter_for("https://a", 5)
    assert a is not None
    assert limiter_for("https://a", 5) is a
    assert limiter_for("https://b", 5) is not a
    assert limiter_for("https://a", 0) is None
    limiter_for("https://a", 8)
    assert a.rate == 8


def test_workspace_calls_go_through_the_bucket(monkeypatch):
    calls: list[tuple[str, float]] = []

    def throttle(key: str, rate: float) -> float:
        calls.append((key, rate))
        return 0.0

    monkeypatch.setattr(ratelimit, "throttle", throttle)
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
def test_each_endpoint_family_has_its_own_bucket(path, family):
    assert endpoint_family(path) == family
