"""ClusterState against an emulator on a manual clock whose clusters take 10 s per
transition (the provider's waits move that clock), in both wire forms: start, stop, waiting,
a cluster already there left alone, timeouts."""

from __future__ import annotations

from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.compute.cluster_state import ClusterStateProvider
from providers.compute.clusters_api import ClustersApi
from providers.compute.run_states import ClusterStateError, converge
from providers.core import polling
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from tests.conftest import emulator_fixture
from tests.providers.support import (
    assert_check_names,
    failures,
    waits_move_the_emulator_clock,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

CLUSTER = "0101-120000-adhoc003"  # TERMINATED in the initial data, used by no other provider test
START = "/api/2.0/clusters/start"
STOPS = {"/api/2.0/clusters/stop", "/api/2.0/clusters/delete"}


emulator = emulator_fixture("module", clock="manual", transition_seconds=10)


@pytest.fixture(autouse=True)
def waits_on_the_emulator_clock(monkeypatch: pytest.MonkeyPatch, emulator: EmulatorInfo) -> None:
    waits_move_the_emulator_clock(monkeypatch, emulator)


@pytest.fixture
def provider() -> ClusterStateProvider:
    return ClusterStateProvider()


def props(connection: dict[str, Any], state: str, **more: Any) -> dict[str, Any]:
    return {"cluster_id": CLUSTER, "state": state, **more, CONNECTION_KEY: connection}


def state_of(client: WorkspaceClient) -> str:
    return ClustersApi(client).get(CLUSTER)["state"]


def writes(emulator: EmulatorInfo) -> list[tuple[str, str]]:
    return [
        (r["method"], r["path"])
        for r in request_log(emulator)
        if r["service"] == "platform" and r["method"] != "GET"
    ]


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"state": "STOPPED"}, "state", "'RUNNING' or 'TERMINATED'"),
        ({"cluster_id": "  "}, "cluster_id", "must not be empty"),
        ({"timeout_seconds": 0}, "timeout_seconds", "greater than or equal to 1"),
        ({"colour": "red"}, "colour", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, connection, change, field, reason) -> None:
    assert_check_names(provider, props(connection, "RUNNING"), change, field, reason)


def test_check_accepts_unknowns_and_requires_a_connection(provider, connection) -> None:
    assert failures(provider, props(connection, UNKNOWN)) == {}
    without = {k: v for k, v in props(connection, "RUNNING").items() if k != CONNECTION_KEY}
    assert CONNECTION_KEY in failures(provider, without)


def test_start_stop_and_a_cluster_already_there(provider, connection, client, emulator) -> None:
    converge(client, CLUSTER, "TERMINATED", 30)  # whatever the other wire form left
    clear_request_log(emulator)

    created = provider.create(props(connection, "RUNNING"))
    assert created.id == CLUSTER
    assert created.outs["state"] == "RUNNING"
    assert created.outs["cluster_name"] == "ad-hoc-single-node"
    assert state_of(client) == "RUNNING"
    assert writes(emulator) == [("POST", START)]

    # Already RUNNING: only reads.
    clear_request_log(emulator)
    again = provider.create(props(connection, "RUNNING"))
    assert again.outs["state"] == "RUNNING"
    assert writes(emulator) == []

    clear_request_log(emulator)
    updated = provider.update(CLUSTER, created.outs, props(connection, "TERMINATED"))
    assert updated.outs["state"] == "TERMINATED"
    assert state_of(client) == "TERMINATED"
    stop_path = "/api/2.0/clusters/" + ("stop" if connection["wire_form"] == "legacy" else "delete")
    assert writes(emulator) == [("POST", stop_path)]

    clear_request_log(emulator)
    provider.update(CLUSTER, updated.outs, props(connection, "TERMINATED", timeout_seconds=60))
    assert writes(emulator) == []


def test_starting_a_terminating_cluster_waits_for_it_to_stop_first(
    provider, connection, client, emulator
) -> None:
    converge(client, CLUSTER, "RUNNING", 30)
    ClustersApi(client).stop(CLUSTER)
    assert state_of(client) == "TERMINATING"
    clear_request_log(emulator)
    created = provider.create(props(connection, "RUNNING"))
    assert created.outs["state"] == "RUNNING"
    assert writes(emulator) == [("POST", START)]


def test_delete_leaves_the_cluster_as_it_is(provider, connection, client, emulator) -> None:
    created = provider.create(props(connection, "RUNNING"))
    clear_request_log(emulator)
    provider.delete(CLUSTER, created.outs)
    assert request_log(emulator) == []
    assert state_of(client) == "RUNNING"


def test_refresh_sees_an_out_of_band_stop_and_the_next_up_starts_it(
    provider, connection, client
) -> None:
    created = provider.create(props(connection, "RUNNING"))
    converge(client, CLUSTER, "TERMINATED", 30)
    refreshed = provider.read(CLUSTER, created.outs)
    assert refreshed.outs["state"] == "TERMINATED"
    diff = provider.diff(CLUSTER, refreshed.outs, props(connection, "RUNNING"))
    assert diff.changes and diff.replaces == []


def test_diff_state_updates_cluster_id_replaces(provider, connection) -> None:
    olds = {**props(connection, "RUNNING"), "cluster_name": "x", "state_message": ""}
    assert not provider.diff(CLUSTER, olds, props(connection, "RUNNING")).changes
    to_stop = provider.diff(CLUSTER, olds, props(connection, "TERMINATED"))
    assert to_stop.changes and to_stop.replaces == []
    timeout = provider.diff(CLUSTER, olds, props(connection, "RUNNING", timeout_seconds=5))
    assert timeout.changes and timeout.replaces == []
    other = provider.diff(
        CLUSTER, olds, {**props(connection, "RUNNING"), "cluster_id": "0101-120000-etl00002"}
    )
    assert other.replaces == ["cluster_id"]


def test_a_missing_cluster_is_named(provider, connection) -> None:
    with pytest.raises(ClusterStateError, match="cluster_id 'no-such-cluster': no such cluster"):
        provider.create({**props(connection, "RUNNING"), "cluster_id": "no-such-cluster"})


def test_timeout_names_the_state_reached(provider, connection, client, monkeypatch) -> None:
    converge(client, CLUSTER, "RUNNING", 30)
    fake_now = [0.0]
    monkeypatch.setattr(polling, "monotonic", lambda: fake_now[0])
    monkeypatch.setattr(polling, "sleep", lambda s: fake_now.__setitem__(0, fake_now[0] + s))
    with pytest.raises(
        ClusterStateError,
        match=r"did not become TERMINATED within 5 s: it is TERMINATING.*pulumi up",
    ):
        provider.create(props(connection, "TERMINATED", timeout_seconds=5))
