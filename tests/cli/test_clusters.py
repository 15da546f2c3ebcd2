"""`databricks clusters`: list, get, start and delete, waiting and not waiting."""

from __future__ import annotations

from tests.conftest import emulator_fixture

# Transitions take a second, so the CLI's own waiting (start, delete) really polls.
emulator = emulator_fixture("module", transition_seconds=1)

TERMINATED = "0101-120000-etl00002"
ALSO_TERMINATED = "0101-120000-adhoc003"
RUNNING = "0101-120000-shared01"


def test_list(cli):
    clusters = {c["cluster_id"]: c for c in cli.ok("clusters", "list")}
    assert clusters[RUNNING]["state"] == "RUNNING"
    assert clusters[TERMINATED]["state"] == "TERMINATED"
    assert clusters[RUNNING]["cluster_name"] == "shared-autoscaling"


def test_get(cli):
    cluster = cli.ok("clusters", "get", TERMINATED)
    assert cluster["cluster_name"] == "etl-nightly"
    assert cluster["num_workers"] == 2


def test_get_unknown_cluster(cli):
    failure = cli.fails("clusters", "get", "0000-000000-nothing0")
    assert failure.status == 400  # INVALID_PARAMETER_VALUE, as the service and docs/api.md
    assert failure.message == "Cluster 0000-000000-nothing0 does not exist"


def test_start_waits_until_running_then_delete_waits_until_terminated(cli):
    assert cli.ok("clusters", "start", TERMINATED)["state"] == "RUNNING"
    assert cli.ok("clusters", "get", TERMINATED)["state"] == "RUNNING"
    assert cli.ok("clusters", "delete", TERMINATED)["state"] == "TERMINATED"
    assert cli.ok("clusters", "get", TERMINATED)["state"] == "TERMINATED"


def test_start_and_delete_without_waiting(cli):
    assert cli.ok("clusters", "start", ALSO_TERMINATED, "--no-wait") is None
    assert cli.ok("clusters", "get", ALSO_TERMINATED)["state"] == "PENDING"
    # A PENDING cluster cannot be started again: the service answers 400 INVALID_STATE.
    failure = cli.fails("clusters", "start", ALSO_TERMINATED, "--no-wait")
    assert failure.status == 400
    assert "unexpected state" in failure.message
    assert cli.ok("clusters", "delete", ALSO_TERMINATED, "--no-wait") is None
    assert cli.ok("clusters", "get", ALSO_TERMINATED)["state"] in ("TERMINATING", "TERMINATED")


def test_starting_a_running_cluster_is_refused(cli):
    failure = cli.fails("clusters", "start", RUNNING)
    assert failure.status == 400
    assert failure.message.startswith(f"Cluster {RUNNING} is in unexpected state RUNNING")
