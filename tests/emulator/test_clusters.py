"""Clusters: list, get, start, stop (legacy form), delete (public form), state moves."""

from __future__ import annotations

import pytest

from tests.emulator.conftest import MANUAL_TRANSITION_SECONDS
from tests.emulator.support import Api, expect_error
from workspace_emulator.testing import advance_clock

RUNNING = "0101-120000-shared01"
TERMINATED = "0101-120000-etl00002"
SHAPE = {"cluster_id", "cluster_name", "spark_version", "node_type_id", "state",
         "state_message", "start_time", "creator_user_name"}


def _state(api: Api, cluster_id: str) -> str:
    response = api.get("/api/2.0/clusters/get", params={"cluster_id": cluster_id})
    assert response.status_code == 200, response.text
    return response.json()["state"]


@pytest.mark.parametrize("version", ["2.0", "2.1"])
def test_list_has_running_and_terminated_clusters(api, version):
    clusters = api.get(f"/api/{version}/clusters/list").json()["clusters"]
    assert all(SHAPE <= set(c) for c in clusters)
    assert all(("num_workers" in c) != ("autoscale" in c) for c in clusters)
    states = {c["cluster_id"]: c["state"] for c in clusters}
    assert "RUNNING" in states.values()
    assert "TERMINATED" in states.values()


def test_get_unknown_cluster_is_invalid_parameter(api):
    """As on the service (the SDK's error overrides turn it into its not-found error)."""
    response = api.get("/api/2.0/clusters/get", params={"cluster_id": "nope"})
    expect_error(response, 400, "INVALID_PARAMETER_VALUE")
    assert response.json()["message"] == "Cluster nope does not exist"


def test_get_without_cluster_id_is_invalid(api):
    expect_error(api.get("/api/2.0/clusters/get"), 400, "INVALID_PARAMETER_VALUE")


def test_start_a_running_cluster_is_invalid_state(api):
    expect_error(api.post("/api/2.0/clusters/start", json={"cluster_id": RUNNING}), 400,
                 "INVALID_STATE")


def test_start_unknown_cluster_is_not_found(api):
    expect_error(api.post("/api/2.0/clusters/start", json={"cluster_id": "nope"}), 404)


def test_start_moves_pending_then_running(manual, manual_api):
    assert _state(manual_api, TERMINATED) == "TERMINATED"
    assert manual_api.post("/api/2.0/clusters/start",
                           json={"cluster_id": TERMINATED}).json() == {}
    assert _state(manual_api, TERMINATED) == "PENDING"
    expect_error(manual_api.post("/api/2.0/clusters/start", json={"cluster_id": TERMINATED}),
                 400, "INVALID_STATE")
    advance_clock(manual, MANUAL_TRANSITION_SECONDS - 1)
    assert _state(manual_api, TERMINATED) == "PENDING"
    advance_clock(manual, 1)
    assert _state(manual_api, TERMINATED) == "RUNNING"


@pytest.mark.parametrize("operation", ["/api/2.0/clusters/stop", "/api/2.1/clusters/delete"])
def test_stop_and_delete_terminate_over_time(manual, manual_api, operation):
    cluster = "0101-120000-adhoc003"
    assert _state(manual_api, cluster) == "TERMINATED"  # in the initial data
    manual_api.post("/api/2.0/clusters/start", json={"cluster_id": cluster})
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    assert _state(manual_api, cluster) == "RUNNING"
    assert manual_api.post(operation, json={"cluster_id": cluster}).status_code == 200
    assert _state(manual_api, cluster) == "TERMINATING"
    advance_clock(manual, MANUAL_TRANSITION_SECONDS)
    details = manual_api.get("/api/2.0/clusters/get", params={"cluster_id": cluster}).json()
    assert details["state"] == "TERMINATED"
    assert details["terminated_time"] >= details["start_time"]
    assert details["termination_reason"]["code"] == "USER_REQUEST"


def test_stop_a_terminated_cluster_changes_nothing(api):
    cluster = "0101-120000-adhoc003"
    api.post("/api/2.0/clusters/stop", json={"cluster_id": cluster})
    before = api.get("/api/2.0/clusters/get", params={"cluster_id": cluster}).json()
    assert before["state"] == "TERMINATED"
    response = api.post("/api/2.0/clusters/stop", json={"cluster_id": cluster})
    assert response.status_code == 200 and response.json() == {}
    after = api.get("/api/2.0/clusters/get", params={"cluster_id": cluster}).json()
    assert after == before


def test_immediate_transitions_with_zero_seconds(api):
    cluster = "0101-120000-mlgpu004"  # PENDING in the initial data
    assert _state(api, cluster) == "RUNNING"


@pytest.mark.parametrize(("body", "field"), [
    ({}, "'cluster_id'"), ({"cluster_id": 5}, "'cluster_id'"),
    ([], "the request body"), ("x", "the request body"),
])
def test_start_with_a_bad_body_is_invalid(api, body, field):
    # JSON of the wrong shape is a wrong value (MALFORMED_REQUEST is for a body not JSON).
    error = expect_error(api.post("/api/2.0/clusters/start", json=body), 400,
                         "INVALID_PARAMETER_VALUE")
    assert error["message"].startswith(f"Invalid value for {field}: "), error
