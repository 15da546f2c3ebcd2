"""Test ergonomics: POST /_emulator/reset returns the workspace to its initial data without
a restart; a manual clock (--clock manual) moves only by POST /_emulator/clock/advance (the tests of
clusters, job runs and token expiry drive their time-based states with it)."""

from __future__ import annotations

import requests

from tests.emulator.conftest import MANUAL_TRANSITION_SECONDS
from tests.emulator.support import Api, create_job
from workspace_emulator.testing import (
    advance_clock,
    request_log,
    reset_workspace,
    set_faults,
)

TERMINATED_CLUSTER = "0101-120000-adhoc003"


def _inventory(api: Api) -> dict[str, list]:
    return {
        "jobs": api.get("/api/2.0/jobs/list").json().get("jobs", []),
        "principals": api.get("/api/2.0/preview/scim/v2/ServicePrincipals").json()["Resources"],
        "scopes": api.get("/api/2.0/secrets/scopes/list").json()["scopes"],
        "clusters": [(c["cluster_id"], c["state"])
                     for c in api.get("/api/2.0/clusters/list").json()["clusters"]],
        "repos": api.get("/api/2.0/repos").json()["repos"],
    }


def test_reset_returns_the_initial_data_and_keeps_tokens(manual, manual_api):
    api, info = manual_api, manual  # the fixture has just reset it
    initial = _inventory(api)
    first_job = create_job(api)
    api.post("/api/2.0/secrets/scopes/create", json={"scope": "made-by-a-test"})
    api.post("/api/2.0/clusters/start", json={"cluster_id": TERMINATED_CLUSTER})
    repo = next(r for r in initial["repos"] if r["path"] == "/Repos/iac/data-pipelines")
    assert api.patch(f"/api/2.0/repos/{repo['id']}", json={"branch": "develop"}).ok
    try:
        set_faults(info, rate_503=0.5, random_state=1, paths=["/nowhere"])
        assert _inventory(api) != initial

        reset_workspace(info)

        assert _inventory(api) == initial  # the same token still works
        assert all(e["path"] != "/api/2.0/jobs/create" for e in request_log(info))
        assert create_job(api) == first_job  # id counters start again: ids repeat
        faults = requests.get(f"{info.base_url}/_emulator/faults",
                              headers=info.admin_headers(), timeout=5).json()
        assert faults["paths"] == ["/nowhere"]  # settings of the emulator are kept
    finally:
        set_faults(info)


def test_time_stands_still_until_advanced(manual, manual_api):
    api = manual_api
    api.post("/api/2.0/clusters/start", json={"cluster_id": TERMINATED_CLUSTER})
    states = {_cluster_state(api) for _ in range(3)}
    assert states == {"PENDING"}
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    assert _cluster_state(api) == "RUNNING"


def _cluster_state(api: Api) -> str:
    return api.get("/api/2.0/clusters/get",
                   params={"cluster_id": TERMINATED_CLUSTER}).json()["state"]


def test_clock_reports_its_mode_and_refuses_bad_advances(manual, emulator):
    state = requests.get(f"{manual.base_url}/_emulator/clock", headers=manual.admin_headers(),
                         timeout=5).json()
    assert state["mode"] == "manual"
    assert advance_clock(manual, 0) == state["now_ms"]
    for body in ({"seconds": -1}, {"seconds": "1"}, {}):
        response = requests.post(f"{manual.base_url}/_emulator/clock/advance", json=body,
                                 headers=manual.admin_headers(), timeout=5)
        assert response.status_code == 400 and "seconds" in response.json()["message"]
    real = requests.post(f"{emulator.base_url}/_emulator/clock/advance",
                         json={"seconds": 1}, headers=emulator.admin_headers(), timeout=5)
    assert real.status_code == 409 and "--clock manual" in real.json()["message"]
    assert requests.get(f"{emulator.base_url}/_emulator/clock", headers=emulator.admin_headers(),
                        timeout=5).json()["mode"] == "real"
