"""The sample application and its admin address over real HTTP (uvicorn on free ports)."""

from __future__ import annotations

import json

import pytest
import requests

from tests.emulator_apps.support import FakeClock, running_server
from workspace_emulator.sample_app import TIMER_NAME, build_apps

NUMBER_FIELDS = (
    "max mean min p50 p75 p95 p98 p99 p999 stddev m15_rate m1_rate m5_rate mean_rate".split()
)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(start=1000.0)


@pytest.fixture
def urls(clock):
    app, admin_app = build_apps(clock)
    with running_server(app) as app_url, running_server(admin_app) as admin_url:
        yield app_url, admin_url


def test_metrics_list_run_test_with_zeros_before_the_first_call(urls):
    _, admin_url = urls

    response = requests.get(f"{admin_url}/metrics", timeout=5)

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert TIMER_NAME == "runTest" and list(body) == ["runTest"]
    entry = body["runTest"]
    assert entry["count"] == 0
    assert all(entry[field] == 0.0 for field in NUMBER_FIELDS)
    assert entry["duration_units"] == "seconds"
    assert entry["rate_units"] == "calls/second"


def test_my_resource_counts_calls_and_every_call_is_timed(urls, clock):
    app_url, admin_url = urls

    values = [requests.get(f"{app_url}/my-resource", timeout=5) for _ in range(3)]
    clock.advance(6)  # past one 5 s tick
    entry = requests.get(f"{admin_url}/metrics", timeout=5).json()["runTest"]

    assert all(r.headers["content-type"].startswith("application/json") for r in values)
    assert [r.json() for r in values] == [{"value": 1}, {"value": 2}, {"value": 3}]
    assert entry["count"] == 3
    assert entry["m1_rate"] == pytest.approx(3 / 5, abs=1e-12)
    assert entry["mean_rate"] == pytest.approx(3 / 6, abs=1e-12)
    assert entry["max"] == 0.0  # the fake clock stood still while each call ran


def test_pretty_metrics_are_indented_and_say_the_same(urls):
    _, admin_url = urls

    compact = requests.get(f"{admin_url}/metrics", timeout=5).text
    pretty = requests.get(f"{admin_url}/metrics", params={"pretty": "true"}, timeout=5).text

    assert "\n" not in compact.strip()
    assert pretty.startswith('{\n  "runTest" : {\n    "count" : 0,')
    assert json.loads(pretty) == json.loads(compact)


def test_health_check_and_ping(urls):
    _, admin_url = urls

    health = requests.get(f"{admin_url}/healthcheck", timeout=5)
    ping = requests.get(f"{admin_url}/ping", timeout=5)

    assert health.status_code == 200 and health.json() == {"deadlocks": {"healthy": True}}
    assert ping.text.strip() == "pong"


def test_real_clock_records_small_positive_durations():
    app, admin_app = build_apps()
    with running_server(app) as app_url, running_server(admin_app) as admin_url:
        for _ in range(5):
            requests.get(f"{app_url}/my-resource", timeout=5).raise_for_status()
        entry = requests.get(f"{admin_url}/metrics?pretty=true", timeout=5).json()["runTest"]

    assert entry["count"] == 5
    assert 0.0 <= entry["min"] <= entry["p50"] <= entry["max"] < 1.0
    assert entry["mean_rate"] > 0.0
