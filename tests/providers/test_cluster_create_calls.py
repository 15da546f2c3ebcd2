"""What a fresh Cluster or ClusterPolicy create costs the service, and that its outputs are
what a read right afterwards shows (so the first refresh reports nothing), in both wire
forms."""

from __future__ import annotations

import uuid
from typing import Any

from providers.compute.cluster import ClusterProvider
from providers.compute.cluster_policy import ClusterPolicyProvider
from providers.core.lifecycle import CONNECTION_KEY, WorkspaceProvider
from tests.conftest import emulator_fixture
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

emulator = emulator_fixture("module")


def create_counted(
    emulator: EmulatorInfo, provider: WorkspaceProvider, props: dict[str, Any]
) -> tuple[Any, list[str]]:
    clear_request_log(emulator)
    result = provider.create(props)
    calls = [
        f"{e['method']} {e['path']}" for e in request_log(emulator) if e["path"].startswith("/api/")
    ]
    return result, calls


def cluster_props(connection: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A small cluster of its own name and deployment tag, with `extra` settings."""
    name = f"calls-{uuid.uuid4().hex[:8]}"
    return {
        "cluster_name": name,
        "spark_version": "15.4.x-scala2.12",
        "node_type_id": "Standard_DS3_v2",
        "num_workers": 1,
        **extra,
        "deployment_tag": f"calls/{name}",
        CONNECTION_KEY: connection,
    }


def assert_read_shows_the_outputs(provider: WorkspaceProvider, result, props) -> None:
    read = provider.read(result.id, result.outs)
    assert read.outs == result.outs
    assert not provider.diff(result.id, result.outs, props, old_inputs=props).changes


def test_policy_create_is_one_call(emulator, connection) -> None:
    provider = ClusterPolicyProvider()
    props = {"name": f"calls-{uuid.uuid4().hex[:8]}", "definition": {}, CONNECTION_KEY: connection}
    result, calls = create_counted(emulator, provider, props)
    try:
        assert calls == ["POST /api/2.0/policies/clusters/create"]
        assert_read_shows_the_outputs(provider, result, props)
    finally:
        provider.delete(result.id, result.outs)


def test_cluster_create_lists_creates_and_waits(emulator, connection) -> None:
    provider = ClusterProvider()
    props = cluster_props(connection)
    result, calls = create_counted(emulator, provider, props)
    try:
        # The emulator moves states at once here: one read finds the cluster running.
        assert calls == [
            "GET /api/2.0/clusters/list",
            "POST /api/2.0/clusters/create",
            "GET /api/2.0/clusters/get",
        ]
        assert_read_shows_the_outputs(provider, result, props)
    finally:
        provider.delete(result.id, result.outs)


def test_a_terminated_pinned_cluster_with_a_library(emulator, connection) -> None:
    provider = ClusterProvider()
    props = cluster_props(connection, state="TERMINATED", pinned=True,
                          libraries=[{"pypi": {"package": "requests==2.32.3"}}])
    result, calls = create_counted(emulator, provider, props)
    stop = "stop" if connection["wire_form"] == "legacy" else "delete"
    try:
        assert calls == [
            "GET /api/2.0/clusters/list",
            "POST /api/2.0/clusters/create",
            "POST /api/2.0/libraries/install",
            "POST /api/2.0/clusters/pin",
            "GET /api/2.0/clusters/get",
            f"POST /api/2.0/clusters/{stop}",
            "GET /api/2.0/clusters/get",
        ]
        assert_read_shows_the_outputs(provider, result, props)
    finally:
        provider.delete(result.id, result.outs)
