"""SqlWarehouse and InstancePool (and a cluster naming the pool by its item) in one stack
under the real engine against the emulator, in the public wire form: preview, up, a no-op up
without writes, in-place updates, a pool replaced for its node type (the cluster follows it
to the new pool), drift found by refresh and undone by up, destroy, and import by id with no
diff.

One stack walks through the steps, a test each: a failure names its step, and the steps
after it do not run."""

from __future__ import annotations

import copy
import dataclasses
import uuid
from pathlib import Path
from typing import Any

import pytest

from providers.compute.instance_pools_api import InstancePoolsApi
from providers.sql.sql_warehouses_api import SqlWarehousesApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import (
    TYPE_PREFIX,
    PlatformApi,
    StackFactory,
    assert_no_changes,
    import_stack,
    preview_ops,
    reconfigure,
    refreshed,
    write_config,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

NODE = "Standard_DS3_v2"
OTHER_NODE = "Standard_DS4_v2"
SPARK = "15.4.x-scala2.12"
# Resource name -> kind.
KINDS = {"e2e-pool": "InstancePool", "e2e-pooled": "Cluster", "e2e-warehouse": "SqlWarehouse"}


def declared(suffix: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "instancePools": [
            {
                "name": "e2e-pool",
                "instance_pool_name": f"e2e-pool-{suffix}",
                "node_type_id": NODE,
                "max_capacity": 4,
                "custom_tags": {"team": "data"},
            }
        ],
        "clusters": [
            {
                "name": "e2e-pooled",
                "cluster_name": f"e2e-pooled-{suffix}",
                "spark_version": SPARK,
                "num_workers": 1,
                "state": "TERMINATED",
                "instance_pool": "e2e-pool",
            }
        ],
        "sqlWarehouses": [
            {
                "name": "e2e-warehouse",
                "cluster_size": "2X-Small",
                "auto_stop_mins": 10,
                "tags": {"custom_tags": [{"key": "team", "value": "bi"}]},
                "state": "STOPPED",
            }
        ],
    }


class Workspace(PlatformApi):
    """Pools, warehouses and clusters, read over the platform API."""

    def pools(self) -> dict[str, dict[str, Any]]:
        """name -> the pool"""
        listed = self.call("GET", "/api/2.0/instance-pools/list").get("instance_pools") or []
        return {p["instance_pool_name"]: p for p in listed}

    def warehouses(self) -> dict[str, dict[str, Any]]:
        """name -> the warehouse"""
        listed = self.call("GET", "/api/2.0/sql/warehouses").get("warehouses") or []
        return {w["name"]: w for w in listed}

    def clusters(self) -> dict[str, dict[str, Any]]:
        listed = self.call("GET", "/api/2.0/clusters/list").get("clusters") or []
        return {c["cluster_name"]: c for c in listed}

    def snapshot(self) -> dict[str, Any]:
        return {"pools": sorted(self.pools()), "warehouses": sorted(self.warehouses()),
                "clusters": sorted(self.clusters())}


@dataclasses.dataclass
class Lifecycle:
    suffix: str
    workspace: Workspace
    before: dict[str, Any]
    stack: PulumiCli
    objects: dict[str, Any]


@pytest.fixture(scope="class")
def lifecycle(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Lifecycle:
    suffix = uuid.uuid4().hex[:6]
    workspace = Workspace(emulator)
    objects = declared(suffix)
    stack = workspace_stack(wire_form="public", **objects)
    return Lifecycle(suffix, workspace, workspace.snapshot(), stack, objects)


@pytest.mark.steps
class TestWarehousesAndPools:
    def test_1_preview_lists_the_creates(self, lifecycle: Lifecycle) -> None:
        assert preview_ops(lifecycle.stack, KINDS) == \
            {name: ("create", None) for name in KINDS}, "1. preview"
        assert lifecycle.workspace.snapshot() == lifecycle.before, "1. preview changed things"

    def test_2_up_makes_them_as_declared(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.up()
        workspace, suffix = lifecycle.workspace, lifecycle.suffix
        pool = workspace.pools()[f"e2e-pool-{suffix}"]
        assert (pool["max_capacity"], pool["custom_tags"]) == (4, {"team": "data"}), "2. pool"
        cluster = workspace.clusters()[f"e2e-pooled-{suffix}"]
        assert cluster["instance_pool_id"] == pool["instance_pool_id"], "2. the pool named"
        assert cluster["state"] == "TERMINATED"
        warehouse = workspace.warehouses()["e2e-warehouse"]
        assert (warehouse["state"], warehouse["cluster_size"]) == ("STOPPED", "2X-Small")
        outputs = lifecycle.stack.outputs()
        assert outputs["sql_warehouses"]["e2e-warehouse"] == warehouse["id"], "2. outputs"
        assert outputs["instance_pools"]["e2e-pool"] == pool["instance_pool_id"]

    def test_3_a_second_up_changes_nothing(self, lifecycle: Lifecycle) -> None:
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "3.")

    def test_4_in_place_updates(self, lifecycle: Lifecycle) -> None:
        updated = copy.deepcopy(lifecycle.objects)
        updated["instancePools"][0]["max_capacity"] = 8
        warehouse = updated["sqlWarehouses"][0]
        warehouse["cluster_size"] = "Small"
        warehouse["max_num_clusters"] = 2
        warehouse["state"] = "RUNNING"
        reconfigure(lifecycle, updated)
        assert preview_ops(lifecycle.stack, KINDS) == {
            "e2e-pool": ("update", None),
            "e2e-warehouse": ("update", None),
        }, "4. preview: two in-place updates"
        ids = self._ids(lifecycle.stack)
        lifecycle.stack.up()
        assert self._ids(lifecycle.stack) == ids, "4. up: the same objects"
        workspace, suffix = lifecycle.workspace, lifecycle.suffix
        assert workspace.pools()[f"e2e-pool-{suffix}"]["max_capacity"] == 8
        now = workspace.warehouses()["e2e-warehouse"]
        assert (now["cluster_size"], now["max_num_clusters"], now["state"]) == (
            "Small", 2, "RUNNING"), "4. up: warehouse"
        assert_no_changes(lifecycle.stack, workspace.info, "4.")

    def test_5_a_new_node_type_replaces_the_pool(self, lifecycle: Lifecycle) -> None:
        replaced = copy.deepcopy(lifecycle.objects)
        replaced["instancePools"][0]["node_type_id"] = OTHER_NODE
        reconfigure(lifecycle, replaced)
        assert preview_ops(lifecycle.stack, KINDS)["e2e-pool"] == \
            ("replace", ["node_type_id"]), "5. preview"
        old_id = self._ids(lifecycle.stack)["e2e-pool"]
        lifecycle.stack.up()
        workspace, suffix = lifecycle.workspace, lifecycle.suffix
        pool = workspace.pools()[f"e2e-pool-{suffix}"]
        assert pool["instance_pool_id"] != old_id and pool["node_type_id"] == OTHER_NODE
        cluster = workspace.clusters()[f"e2e-pooled-{suffix}"]
        assert cluster["instance_pool_id"] == pool["instance_pool_id"], "5. cluster followed"
        assert_no_changes(lifecycle.stack, workspace.info, "5.")

    def test_6_drift_found_by_refresh_and_undone_by_up(self, lifecycle: Lifecycle) -> None:
        workspace, suffix = lifecycle.workspace, lifecycle.suffix
        warehouse = workspace.warehouses()["e2e-warehouse"]
        workspace.call("POST", f"/api/2.0/sql/warehouses/{warehouse['id']}/stop")
        pool = workspace.pools()[f"e2e-pool-{suffix}"]
        workspace.call("POST", "/api/2.0/instance-pools/edit", json={
            "instance_pool_id": pool["instance_pool_id"], "instance_pool_name":
            pool["instance_pool_name"], "node_type_id": OTHER_NODE, "max_capacity": 3})
        read = refreshed(lifecycle.stack)
        assert {name: op for name, (op, _) in read.items()} == {
            "e2e-pool": "update", "e2e-pooled": "same", "e2e-warehouse": "update",
        }, "6. refresh"
        assert read["e2e-warehouse"][1]["state"] == "STOPPED"
        assert read["e2e-pool"][1]["max_capacity"] == 3
        lifecycle.stack.up()
        assert workspace.warehouses()["e2e-warehouse"]["state"] == "RUNNING", "6. up"
        pool = workspace.pools()[f"e2e-pool-{suffix}"]
        assert (pool["max_capacity"], pool["custom_tags"]) == (8, {"team": "data"})
        assert_no_changes(lifecycle.stack, workspace.info, "6.")

    def test_7_destroy_leaves_the_workspace_as_before(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.destroy()
        assert lifecycle.workspace.snapshot() == lifecycle.before, "7. destroy"

    def test_8_import_by_id_shows_no_diff(
        self, lifecycle: Lifecycle, emulator: EmulatorInfo, tmp_path: Path
    ) -> None:
        client = emulator_client(emulator, "public")
        suffix = uuid.uuid4().hex[:6]
        pool_id = InstancePoolsApi(client).create({"instance_pool_name": f"imported-{suffix}",
                                                "node_type_id": NODE, "max_capacity": 2})
        warehouse_id = SqlWarehousesApi(client).create({"name": f"imported-{suffix}",
                                                     "cluster_size": "Medium"})
        imports = {
            "InstancePool": {"id": pool_id, "args": {
                "instance_pool_name": f"imported-{suffix}", "node_type_id": NODE,
                "max_capacity": 2}},
            "SqlWarehouse": {"id": warehouse_id, "args": {
                "name": f"imported-{suffix}", "cluster_size": "Medium"}},
        }
        stack = import_stack(tmp_path, emulator, "public")
        write_config(stack, {"workspace:objects": imports})
        clear_request_log(emulator)
        up = stack.up()
        assert "2 imported" in up.stdout, up.stdout
        assert lifecycle.workspace.writes() == [], "8. import wrote to the workspace"
        stack.preview("--expect-no-changes")
        stack.refresh("--expect-no-changes")
        stack.destroy()
        assert f"imported-{suffix}" not in lifecycle.workspace.pools(), "8. destroy: pool"
        assert f"imported-{suffix}" not in lifecycle.workspace.warehouses(), "8. warehouse"

    @staticmethod
    def _ids(stack: PulumiCli) -> dict[str, str]:
        return {
            r["urn"].split("::")[-1]: r["id"]
            for r in stack.export()["deployment"]["resources"]
            if r["type"].startswith(TYPE_PREFIX)
        }
