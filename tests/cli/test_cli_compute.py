"""`databricks clusters` writes (create, edit, resize, restart, pin, unpin, events,
permanent-delete), the catalogs of versions and node types, `libraries` and
`cluster-policies` / `policy-families`."""

from __future__ import annotations

import json

from tests.cli.cli import Cli
from tests.emulator.support import unique

SPARK_VERSION = "15.4.x-scala2.12"
NODE_TYPE = "Standard_DS3_v2"


def _create(cli: Cli, *flags: str) -> dict:
    return cli.ok("clusters", "create", SPARK_VERSION, "--node-type-id", NODE_TYPE,
                  "--num-workers", "1", "--cluster-name", unique("cli-cluster"), *flags)


def test_spark_versions_and_node_types(cli: Cli) -> None:
    versions = {v["key"] for v in cli.ok("clusters", "spark-versions")["versions"]}
    assert SPARK_VERSION in versions
    node_types = {n["node_type_id"]: n for n in cli.ok("clusters", "list-node-types")["node_types"]}
    assert node_types[NODE_TYPE]["num_cores"] == 4


def test_create_waiting_and_not_waiting(cli: Cli) -> None:
    created = _create(cli)
    assert created["state"] == "RUNNING" and created["num_workers"] == 1
    assert created["spark_version"] == SPARK_VERSION
    started = _create(cli, "--no-wait")
    assert set(started) == {"cluster_id"}
    assert cli.ok("clusters", "get", started["cluster_id"])["node_type_id"] == NODE_TYPE


def test_create_refuses_an_unknown_spark_version(cli: Cli) -> None:
    failure = cli.fails("clusters", "create", "0.0.x-nothing", "--node-type-id", NODE_TYPE,
                        "--num-workers", "1", "--no-wait")
    assert failure.status == 400


def test_edit_resize_restart_pin_unpin_events_permanent_delete(cli: Cli) -> None:
    cluster_id = _create(cli)["cluster_id"]
    edited = cli.ok("clusters", "edit", cluster_id, SPARK_VERSION, "--node-type-id", NODE_TYPE,
                    "--num-workers", "2", "--cluster-name", "cli-edited")
    assert (edited["state"], edited["num_workers"], edited["cluster_name"]) == (
        "RUNNING", 2, "cli-edited")
    assert cli.ok("clusters", "resize", cluster_id, "--num-workers", "3")["num_workers"] == 3
    assert cli.ok("clusters", "restart", cluster_id)["state"] == "RUNNING"
    assert cli.ok("clusters", "pin", cluster_id) is None
    assert cli.ok("clusters", "unpin", cluster_id) is None
    kinds = [e["type"] for e in cli.ok("clusters", "events", cluster_id)]
    assert kinds[:2] == ["UNPINNED", "PINNED"]  # newest first
    assert {"RESTARTING", "UPSIZE_COMPLETED", "RUNNING"} <= set(kinds)
    assert cli.ok("clusters", "permanent-delete", cluster_id) is None
    gone = cli.fails("clusters", "get", cluster_id)
    # 400 INVALID_PARAMETER_VALUE, as the service answers a cluster it does not know.
    assert (gone.status, gone.message) == (400, f"Cluster {cluster_id} does not exist")
    assert cluster_id not in {c["cluster_id"] for c in cli.ok("clusters", "list")}


# --- libraries -------------------------------------------------------------------------------

def test_libraries_install_status_uninstall(cli: Cli) -> None:
    cluster_id = _create(cli)["cluster_id"]
    requests_lib = {"pypi": {"package": "requests==2.31.0"}}
    jsoup = {"maven": {"coordinates": "org.jsoup:jsoup:1.7.2"}}
    assert cli.ok("libraries", "install", "--json", json.dumps(
        {"cluster_id": cluster_id, "libraries": [requests_lib, jsoup]})) is None
    statuses = cli.ok("libraries", "cluster-status", cluster_id)
    assert [(s["library"], s["status"]) for s in statuses] == [
        (requests_lib, "INSTALLED"), (jsoup, "INSTALLED")]
    cli.ok("libraries", "uninstall", "--json", json.dumps(
        {"cluster_id": cluster_id, "libraries": [requests_lib]}))
    # On a running cluster an uninstall waits for the next restart, as on the service.
    after = {json.dumps(s["library"]): s["status"]
             for s in cli.ok("libraries", "cluster-status", cluster_id)}
    assert after == {json.dumps(requests_lib): "UNINSTALL_ON_RESTART",
                     json.dumps(jsoup): "INSTALLED"}
    every = {s["cluster_id"]: s for s in cli.ok("libraries", "all-cluster-statuses")}
    assert len(every[cluster_id]["library_statuses"]) == 2


# --- cluster policies ------------------------------------------------------------------------

def test_policy_families_list_and_get(cli: Cli) -> None:
    families = {f["policy_family_id"]: f for f in cli.ok("policy-families", "list")}
    assert families["personal-vm"]["name"] == "Personal Compute"
    got = cli.ok("policy-families", "get", "personal-vm")
    assert json.loads(got["definition"])["num_workers"]["value"] == 0


def test_cluster_policies_create_get_edit_list_delete(cli: Cli) -> None:
    name = unique("cli-policy")
    definition = {"spark_version": {"type": "fixed", "value": SPARK_VERSION}}
    policy_id = cli.ok("cluster-policies", "create", "--name", name,
                       "--definition", json.dumps(definition))["policy_id"]
    got = cli.ok("cluster-policies", "get", policy_id)
    assert got["name"] == name and json.loads(got["definition"]) == definition
    assert got["is_default"] is False

    edited_definition = {"num_workers": {"type": "range", "maxValue": 4}}
    cli.ok("cluster-policies", "edit", policy_id, "--name", f"{name}-2", "--definition",
           json.dumps(edited_definition), "--max-clusters-per-user", "2")
    edited = cli.ok("cluster-policies", "get", policy_id)
    assert edited["name"] == f"{name}-2" and edited["max_clusters_per_user"] == 2
    assert json.loads(edited["definition"]) == edited_definition
    assert policy_id in {p["policy_id"] for p in cli.ok("cluster-policies", "list")}

    levels = cli.ok("cluster-policies", "get-permission-levels", policy_id)
    assert levels["permission_levels"] == [{"permission_level": "CAN_USE"}]

    assert cli.ok("cluster-policies", "delete", policy_id) is None
    gone = cli.fails("cluster-policies", "get", policy_id)
    assert gone.status == 404


def test_cluster_policy_refusals(cli: Cli) -> None:
    name = unique("cli-policy")
    cli.ok("cluster-policies", "create", "--name", name, "--definition", "{}")
    duplicate = cli.fails("cluster-policies", "create", "--name", name, "--definition", "{}")
    assert duplicate.status == 400 and name in duplicate.message
    not_json = cli.fails("cluster-policies", "create", "--name", unique("cli-policy"),
                         "--definition", "not json")
    assert not_json.status == 400


def test_list_filters(cli: Cli) -> None:
    policy_id = cli.ok("cluster-policies", "create", "--name", unique("cli-policy"),
                       "--definition", "{}")["policy_id"]
    cluster_id = _create(cli, "--policy-id", policy_id)["cluster_id"]
    running, sent = cli.sent("clusters", "list", "--cluster-states", "RUNNING")
    assert sent[-1].path.endswith("?filter_by.cluster_states=RUNNING")
    assert cluster_id in {c["cluster_id"] for c in running}
    assert {c["state"] for c in running} == {"RUNNING"}
    terminated = cli.ok("clusters", "list", "--cluster-states", "TERMINATED")
    assert {c["state"] for c in terminated} == {"TERMINATED"}
    by_policy = cli.ok("clusters", "list", "--policy-id", policy_id)
    assert [c["cluster_id"] for c in by_policy] == [cluster_id]
    from_ui = cli.ok("clusters", "list", "--cluster-sources", "UI")
    assert cluster_id not in {c["cluster_id"] for c in from_ui or []}
