"""`databricks warehouses` (create waiting until running, get, list, edit, stop and start
waiting, delete) and `databricks instance-pools` (create, get, list, edit, delete) against
the emulator."""

from __future__ import annotations

import json
import uuid

from tests.conftest import emulator_fixture

# Transitions take a second, so the CLI's own waiting (create, start, stop) really polls.
emulator = emulator_fixture("module", transition_seconds=1)

NODE = "Standard_DS3_v2"


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_warehouse_lifecycle(cli):
    name = _name("cli-warehouse")
    made = cli.ok("warehouses", "create", "--name", name, "--cluster-size", "2X-Small",
                  "--auto-stop-mins", "10", "--max-num-clusters", "2")
    assert made["state"] == "RUNNING"  # the CLI waited
    warehouse_id = made["id"]
    assert cli.ok("warehouses", "get", warehouse_id)["name"] == name
    assert warehouse_id in {w["id"] for w in cli.ok("warehouses", "list")}

    assert cli.ok("warehouses", "stop", warehouse_id)["state"] == "STOPPED"
    cli.ok("warehouses", "edit", warehouse_id, "--no-wait",
           "--json", json.dumps({"cluster_size": "Small"}))
    edited = cli.ok("warehouses", "get", warehouse_id)
    assert (edited["cluster_size"], edited["state"]) == ("Small", "STOPPED")
    assert cli.ok("warehouses", "start", warehouse_id)["state"] == "RUNNING"

    cli.ok("warehouses", "delete", warehouse_id)
    failure = cli.fails("warehouses", "get", warehouse_id)
    assert failure.status == 404


def test_warehouse_settings_are_checked(cli):
    failure = cli.fails("warehouses", "create", "--name", _name("bad"), "--cluster-size",
                        "Tiny", "--no-wait")
    assert failure.status == 400 and "cluster_size" in failure.message


def test_pool_lifecycle(cli):
    name = _name("cli-pool")
    pool_id = cli.ok("instance-pools", "create", name, NODE, "--min-idle-instances", "1",
                     "--max-capacity", "3")["instance_pool_id"]
    pool = cli.ok("instance-pools", "get", pool_id)
    assert (pool["instance_pool_name"], pool["state"], pool["stats"]["idle_count"]) == (
        name, "ACTIVE", 1)
    assert pool_id in {p["instance_pool_id"] for p in cli.ok("instance-pools", "list")}

    cli.ok("instance-pools", "edit", pool_id, name, NODE, "--max-capacity", "6")
    assert cli.ok("instance-pools", "get", pool_id)["max_capacity"] == 6
    failure = cli.fails("instance-pools", "edit", pool_id, name, "Standard_DS4_v2")
    assert failure.status == 400 and "node_type_id" in failure.message

    cli.ok("instance-pools", "delete", pool_id)
    assert cli.ok("instance-pools", "get", pool_id)["state"] == "DELETED"
    assert pool_id not in {p["instance_pool_id"] for p in cli.ok("instance-pools", "list")}
