"""Injected faults: draws from a fixed random state repeat, 429 carries Retry-After, drops
close the connection, latency is added, the admin endpoint changes faults while running."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.conftest import emulator_fixture
from tests.emulator.support import Api, create_job
from workspace_emulator.testing import fetch_token, get_faults, request_log, set_faults

LIST = "/api/2.0/clusters/list"


def _statuses(api: Api, count: int, path: str = LIST) -> list[int | str]:
    outcomes: list[int | str] = []
    for _ in range(count):
        try:
            outcomes.append(api.get(path).status_code)
        except requests.ConnectionError:
            outcomes.append("drop")
    return outcomes


faulty = emulator_fixture("module", fault_rate_429=0.2, fault_rate_500=0.2, fault_rate_503=0.1,
                          fault_random_state=11, fault_paths="/api/2.0/clusters/*")


def test_rates_from_flags_give_each_status(faulty):
    api = Api(faulty.base_url, fetch_token(faulty))  # the token path is not faulted
    set_faults(faulty, **{**get_faults(faulty), "random_state": 11})
    outcomes = _statuses(api, 120)
    counts = {status: outcomes.count(status) for status in set(outcomes)}
    assert set(counts) == {200, 429, 500, 503}
    assert 10 <= counts[429] <= 40 and 10 <= counts[500] <= 40 and counts[503] >= 3


def test_same_random_state_repeats_the_sequence(faulty):
    api = Api(faulty.base_url, fetch_token(faulty))
    settings = {"rate_500": 0.5, "random_state": 99, "paths": ["/api/2.0/clusters/*"]}
    set_faults(faulty, **settings)
    first = _statuses(api, 30)
    set_faults(faulty, **settings)
    assert _statuses(api, 30) == first
    assert 500 in first and 200 in first


def test_fault_bodies_and_retry_after(faulty):
    api = Api(faulty.base_url, fetch_token(faulty))
    for status, code in ((429, "REQUEST_LIMIT_EXCEEDED"), (503, "TEMPORARILY_UNAVAILABLE"),
                         (500, "INTERNAL_ERROR")):
        set_faults(faulty, **{f"rate_{status}": 1.0})
        response = api.get(LIST)
        assert response.status_code == status
        assert response.json()["error_code"] == code
        if status in (429, 503):
            assert response.headers["Retry-After"] == "1"


def test_scim_and_identity_faults_use_their_shapes(faulty):
    set_faults(faulty, rate_503=1.0, paths=["/api/2.0/preview/*", "/*/oauth2/token"])
    api = Api(faulty.base_url, "whatever")
    scim = api.get("/api/2.0/preview/scim/v2/ServicePrincipals")
    assert scim.status_code == 503 and scim.json()["status"] == "503"
    token = requests.post(faulty.token_url, data={}, timeout=5)
    assert token.status_code == 503 and token.json()["error"] == "temporarily_unavailable"
    set_faults(faulty)


def test_faults_come_before_processing(faulty):
    api = Api(faulty.base_url, fetch_token(faulty))
    name_filter = {"name": "never-created"}
    set_faults(faulty, rate_500=1.0, paths=["/api/2.0/jobs/create"])
    body = {"name": "never-created", "new_cluster": {"spark_version": "x", "node_type_id": "y",
                                                     "num_workers": 1}}
    assert api.post("/api/2.0/jobs/create", json=body).status_code == 500
    set_faults(faulty)
    assert api.get("/api/2.0/jobs/list", params=name_filter).json()["jobs"] == []


def test_drop_closes_the_connection(faulty):
    api = Api(faulty.base_url, fetch_token(faulty))
    set_faults(faulty, rate_drop=1.0, paths=[LIST])
    with pytest.raises(requests.ConnectionError):
        requests.get(faulty.base_url + LIST, timeout=5)
    set_faults(faulty)
    assert api.get(LIST).status_code == 200
    dropped = [e for e in request_log(faulty) if e["fault"] == "drop"]
    assert dropped and dropped[-1]["status"] is None


def test_latency_is_added(faulty):
    api = Api(faulty.base_url, fetch_token(faulty))
    set_faults(faulty, latency_ms=300, paths=[LIST])
    started = time.monotonic()
    assert api.get(LIST).status_code == 200
    assert time.monotonic() - started >= 0.3
    set_faults(faulty)


def test_admin_endpoints_are_never_faulted(faulty):
    set_faults(faulty, rate_500=1.0)
    for _ in range(5):
        assert requests.get(f"{faulty.base_url}/_emulator/health", timeout=5).ok
    assert get_faults(faulty)["rate_500"] == 1.0
    set_faults(faulty)
    assert get_faults(faulty)["rate_500"] == 0.0


@pytest.mark.parametrize("settings", [{"rate_500": 2}, {"rate_500": 0.7, "rate_429": 0.7},
                                      {"rate_500": "x"}, {"latency_ms": -1}, {"bogus": 1},
                                      {"paths": [1]}, {"random_state": 1.5}])
def test_admin_refuses_bad_fault_settings(faulty, settings):
    response = requests.post(f"{faulty.base_url}/_emulator/faults", json=settings,
                             headers=faulty.admin_headers(), timeout=5)
    assert response.status_code == 400
    assert response.json()["error_code"] == "INVALID_PARAMETER_VALUE"


def test_the_shared_emulator_can_be_faulted_at_runtime(api, emulator):
    try:
        set_faults(emulator, rate_503=1.0, paths=["/api/2.0/jobs/list"])
        assert api.get("/api/2.0/jobs/list").status_code == 503
        assert api.get(LIST).status_code == 200
    finally:
        set_faults(emulator)
    assert api.get("/api/2.0/jobs/list").status_code == 200
    create_job(api)


# faults after the write: the operation is applied, then its answer is lost

JOB_BODY = {"new_cluster": {"spark_version": "x", "node_type_id": "y", "num_workers": 1}}


def _jobs_named(api: Api, name: str) -> list[dict]:
    return api.get("/api/2.0/jobs/list", params={"name": name}).json().get("jobs", [])


@pytest.mark.parametrize("setting", ["rate_500", "rate_503"])
def test_after_write_errors_come_after_the_write(faulty, setting):
    api = Api(faulty.base_url, fetch_token(faulty))
    name = f"after-write-{setting}"
    set_faults(faulty, **{setting: 1.0}, after_write=True, paths=["/api/2.0/jobs/create"])
    response = api.post("/api/2.0/jobs/create", json={"name": name, **JOB_BODY})
    set_faults(faulty)
    assert response.status_code == int(setting[-3:])
    assert "injected fault" in response.json()["message"]
    assert len(_jobs_named(api, name)) == 1  # applied although the answer said otherwise
    entry = request_log(faulty)[-2]
    assert entry["path"] == "/api/2.0/jobs/create"
    assert entry["fault"] == f"{setting[-3:]} after write"


def test_after_write_drop_applies_then_closes(faulty):
    api = Api(faulty.base_url, fetch_token(faulty))
    set_faults(faulty, rate_drop=1.0, after_write=True, paths=["/api/2.0/jobs/create"])
    with pytest.raises(requests.ConnectionError):
        api.post("/api/2.0/jobs/create", json={"name": "after-write-drop", **JOB_BODY})
    set_faults(faulty)
    assert len(_jobs_named(api, "after-write-drop")) == 1
    assert any(e["fault"] == "drop after write" and e["status"] is None
               for e in request_log(faulty))


def test_after_write_latency_holds_an_applied_answer(faulty):
    """The create is stored at once and its answer held: a client killed while it waits
    has made an object it never heard of."""
    api = Api(faulty.base_url, fetch_token(faulty))
    set_faults(faulty, latency_ms=1500, after_write=True, paths=["/api/2.0/jobs/create"])
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(api.post, "/api/2.0/jobs/create",
                             json={"name": "held-answer", **JOB_BODY})
        deadline = time.monotonic() + 1.0
        while not _jobs_named(api, "held-answer") and time.monotonic() < deadline:
            time.sleep(0.02)
        stored_before_answer = bool(_jobs_named(api, "held-answer")) and not answer.done()
        response = answer.result(timeout=10)
    set_faults(faulty)
    assert stored_before_answer
    assert response.status_code == 200


def test_after_write_429_still_comes_first(faulty):
    api = Api(faulty.base_url, fetch_token(faulty))
    set_faults(faulty, rate_429=1.0, after_write=True, paths=["/api/2.0/jobs/create"])
    response = api.post("/api/2.0/jobs/create", json={"name": "after-write-429", **JOB_BODY})
    set_faults(faulty)
    assert response.status_code == 429
    assert _jobs_named(api, "after-write-429") == []


def test_after_write_mode_from_flag_and_admin(faulty):
    set_faults(faulty, rate_500=0.5, after_write=True, random_state=3)
    assert get_faults(faulty)["after_write"] is True
    set_faults(faulty)
    assert get_faults(faulty)["after_write"] is False
    response = requests.post(f"{faulty.base_url}/_emulator/faults",
                             json={"after_write": "yes"}, headers=faulty.admin_headers(),
                             timeout=5)
    assert response.status_code == 400 and "after_write" in response.json()["message"]
