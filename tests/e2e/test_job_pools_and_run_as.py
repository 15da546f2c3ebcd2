"""A job's companions in one stack, under the real engine against the emulator.

- A job cluster names an instance pool and a cluster policy of the stack by their items
  (`instance_pool:`, `policy:` in `job_clusters[].new_cluster`), and a SQL task its
  warehouse (`sql_task.warehouse:`): preview lists the creates (the ids unknown till then);
  up makes the pool, then the job with the ids; a second up changes nothing;
  a pool replaced for its node type changes the job in place to the new pool's id; destroy
  deletes the job, then the pool.
- A job runs as a service principal of the stack: without the principal's user role the
  up is refused with the emulator's reason and no job is made; once an AccessControlRuleSet
  of the stack grants the deployer that role, the same job goes up (after the rule set),
  and destroy deletes it before emptying the rule set.

One stack per scenario walks through the steps, a test each: a failure names its step."""

from __future__ import annotations

import copy
import dataclasses
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import (
    PlatformApi,
    StackFactory,
    assert_no_changes,
    platform_writes,
    preview_steps,
    write_objects,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

SPARK = "15.4.x-scala2.12"
ACCOUNT = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"  # the emulator's account (initial data)
RUNNER_APP = "da574234-e5b2-4774-83f7-ea6a8b63f956"  # a registered application
USER_ROLE = "roles/servicePrincipal.user"
SCRIPT = {"spark_python_task": {"python_file": "dbfs:/jobs/etl.py"}}


class Workspace(PlatformApi):
    def jobs(self) -> dict[str, dict[str, Any]]:
        """name -> the job's settings"""
        listed = self.call("GET", "/api/2.2/jobs/list", params={"expand_tasks": "true"})
        return {j["settings"]["name"]: j["settings"] for j in listed.get("jobs") or []}

    def pools(self) -> dict[str, dict[str, Any]]:
        listed = self.call("GET", "/api/2.0/instance-pools/list").get("instance_pools") or []
        return {p["instance_pool_name"]: p for p in listed}


def assert_writes_in_order(
    info: EmulatorInfo, run: Callable[[], Any], first: str, then: str, step: str
) -> None:
    """`run()` writes a path ending with `first` before one ending with `then`."""
    clear_request_log(info)
    run()
    writes = platform_writes(info)

    def position(ending: str) -> int:
        found = [i for i, write in enumerate(writes) if write.endswith(ending)]
        assert found, f"{step} no write ending {ending!r} in {writes}"
        return found[0]

    assert position(first) < position(then), f"{step} {first} after {then}: {writes}"


# --- a job cluster names a pool by its item ------------------------------------------------


def pooled(suffix: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "instancePools": [{
            "name": "e2e-job-pool", "instance_pool_name": f"e2e-job-pool-{suffix}",
            "node_type_id": "Standard_DS3_v2", "max_capacity": 4,
        }],
        # The API names these by the item's name: unique in the emulator the file shares.
        "clusterPolicies": [{
            "name": f"e2e-job-policy-{suffix}",
            "definition": {"autotermination_minutes": {"type": "fixed", "value": 30}},
        }],
        "sqlWarehouses": [{
            "name": f"e2e-job-warehouse-{suffix}",
            "cluster_size": "2X-Small", "auto_stop_mins": 10, "state": "STOPPED",
        }],
        "jobs": [{
            "name": "e2e-pooled-job",
            "job_clusters": [{"job_cluster_key": "etl", "new_cluster": {
                "spark_version": SPARK, "num_workers": 1, "policy": f"e2e-job-policy-{suffix}",
                "instance_pool": "e2e-job-pool", "driver_instance_pool": "e2e-job-pool"}}],
            "tasks": [
                {"task_key": "etl", "job_cluster_key": "etl", **SCRIPT},
                {"task_key": "report", "depends_on": [{"task_key": "etl"}], "sql_task": {
                    "warehouse": f"e2e-job-warehouse-{suffix}",
                    "file": {"path": "/Workspace/Shared/reports/daily.sql"}}},
            ],
        }],
    }


@dataclasses.dataclass
class Pooled:
    suffix: str
    workspace: Workspace
    stack: PulumiCli


@pytest.fixture(scope="class")
def pooled_stack(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Pooled:
    suffix = uuid.uuid4().hex[:6]
    return Pooled(suffix, Workspace(emulator), workspace_stack(**pooled(suffix)))


@pytest.mark.steps
class TestJobClusterNamesAPool:
    def test_0_preview_lists_the_creates_the_pool_id_unknown(
        self, pooled_stack: Pooled
    ) -> None:
        suffix = pooled_stack.suffix
        kinds = {"e2e-job-pool": "InstancePool", f"e2e-job-policy-{suffix}": "ClusterPolicy",
                 f"e2e-job-warehouse-{suffix}": "SqlWarehouse", "e2e-pooled-job": "Job"}
        steps = preview_steps(pooled_stack.stack, kinds)
        assert {name: step["op"] for name, step in steps.items()} == dict.fromkeys(
            kinds, "create"), "0. preview"
        assert "e2e-pooled-job" not in pooled_stack.workspace.jobs(), "0. preview made a job"

    def test_1_up_makes_the_pool_then_the_job_on_it(self, pooled_stack: Pooled) -> None:
        workspace = pooled_stack.workspace
        assert_writes_in_order(workspace.info, pooled_stack.stack.up, "/instance-pools/create",
                               "/jobs/create", "1.")
        pool = workspace.pools()[f"e2e-job-pool-{pooled_stack.suffix}"]
        spec = workspace.jobs()["e2e-pooled-job"]["job_clusters"][0]["new_cluster"]
        assert spec["instance_pool_id"] == pool["instance_pool_id"], "1. the pool's id"
        assert spec["driver_instance_pool_id"] == pool["instance_pool_id"]
        assert "instance_pool" not in spec
        policies = workspace.call("GET", "/api/2.0/policies/clusters/list")["policies"]
        policy = {p["name"]: p for p in policies}[f"e2e-job-policy-{pooled_stack.suffix}"]
        assert spec["policy_id"] == policy["policy_id"], "1. the policy's id"
        warehouses = workspace.call("GET", "/api/2.0/sql/warehouses")["warehouses"]
        warehouse = {w["name"]: w for w in warehouses}[
            f"e2e-job-warehouse-{pooled_stack.suffix}"]
        report = {t["task_key"]: t for t in workspace.jobs()["e2e-pooled-job"]["tasks"]}["report"]
        assert report["sql_task"]["warehouse_id"] == warehouse["id"], "1. the warehouse's id"
        assert "warehouse" not in report["sql_task"]

    def test_2_a_second_up_changes_nothing(self, pooled_stack: Pooled) -> None:
        assert_no_changes(pooled_stack.stack, pooled_stack.workspace.info, "2.")

    def test_3_a_replaced_pool_changes_the_job_in_place(self, pooled_stack: Pooled) -> None:
        objects = pooled(pooled_stack.suffix)
        objects["instancePools"][0]["node_type_id"] = "Standard_DS4_v2"
        write_objects(pooled_stack.stack, objects)
        steps = preview_steps(pooled_stack.stack, {"e2e-job-pool": "InstancePool",
                                                   "e2e-pooled-job": "Job"})
        assert {name: step["op"] for name, step in steps.items()} == {
            "e2e-job-pool": "replace", "e2e-pooled-job": "update"}, "3. preview"
        job_id = pooled_stack.stack.outputs()["jobs"]["e2e-pooled-job"]
        pooled_stack.stack.up()
        workspace = pooled_stack.workspace
        pool = workspace.pools()[f"e2e-job-pool-{pooled_stack.suffix}"]
        spec = workspace.jobs()["e2e-pooled-job"]["job_clusters"][0]["new_cluster"]
        assert spec["instance_pool_id"] == pool["instance_pool_id"], "3. the new pool's id"
        assert pooled_stack.stack.outputs()["jobs"]["e2e-pooled-job"] == job_id, "3. same job"
        assert_no_changes(pooled_stack.stack, workspace.info, "3.")

    def test_4_destroy_deletes_the_job_then_the_pool(self, pooled_stack: Pooled) -> None:
        workspace = pooled_stack.workspace
        assert_writes_in_order(workspace.info, pooled_stack.stack.destroy, "/jobs/delete",
                               "/instance-pools/delete", "4.")
        assert "e2e-pooled-job" not in workspace.jobs(), "4. the job"
        assert f"e2e-job-pool-{pooled_stack.suffix}" not in workspace.pools(), "4. the pool"


# --- run_as a principal needs its user role ----------------------------------------------


def running_as() -> dict[str, list[dict[str, Any]]]:
    """A principal of the stack and a job running as it; no rule set yet."""
    return {
        "servicePrincipals": [{"name": "e2e-job-runner", "application_id": RUNNER_APP}],
        "jobs": [{
            "name": "e2e-run-as-job",
            "run_as": {"service_principal_name": RUNNER_APP},
            "tasks": [{"task_key": "etl", "existing_cluster_id": "0101-120000-shared01",
                       **SCRIPT}],
        }],
    }


def granted(objects: dict[str, Any], deployer: str) -> dict[str, Any]:
    """The same objects and a rule set granting the deployer the principal's user role."""
    return {**copy.deepcopy(objects), "accessControlRuleSets": [{
        "name": "e2e-job-runner-roles", "account_id": ACCOUNT,
        "service_principal": "e2e-job-runner",
        "grant_rules": [{"role": USER_ROLE, "principals": [f"servicePrincipals/{deployer}"]}],
    }]}


@dataclasses.dataclass
class RunAs:
    workspace: Workspace
    stack: PulumiCli
    objects: dict[str, Any]


@pytest.fixture(scope="class")
def run_as_stack(workspace_stack: StackFactory, emulator: EmulatorInfo) -> RunAs:
    objects = running_as()
    return RunAs(Workspace(emulator), workspace_stack(**objects), objects)


@pytest.mark.steps
class TestRunAsNeedsTheUserRole:
    def test_1_without_the_role_the_up_is_refused(self, run_as_stack: RunAs) -> None:
        failed = run_as_stack.stack.up(check=False)
        output = failed.stdout + failed.stderr
        assert failed.returncode != 0, "1. the up went through"
        deployer = run_as_stack.workspace.info.client_id
        assert f"{deployer} cannot set run_as.service_principal_name to {RUNNER_APP}" in output
        assert USER_ROLE in output, "1. the reason names the role"
        assert "e2e-run-as-job" not in run_as_stack.workspace.jobs(), "1. no job made"

    def test_2_a_rule_set_granting_the_role_lets_it_go_up(self, run_as_stack: RunAs) -> None:
        workspace = run_as_stack.workspace
        run_as_stack.objects = granted(run_as_stack.objects, workspace.info.client_id)
        write_objects(run_as_stack.stack, run_as_stack.objects)
        assert_writes_in_order(workspace.info, run_as_stack.stack.up,
                               "/access-control/rule-sets", "/jobs/create", "2.")
        job = workspace.jobs()["e2e-run-as-job"]
        assert job["run_as"] == {"service_principal_name": RUNNER_APP}, "2. runs as the runner"

    def test_3_a_second_up_changes_nothing(self, run_as_stack: RunAs) -> None:
        assert_no_changes(run_as_stack.stack, run_as_stack.workspace.info, "3.")

    def test_4_destroy_deletes_the_job_before_emptying_the_rule_set(
        self, run_as_stack: RunAs
    ) -> None:
        workspace = run_as_stack.workspace
        assert_writes_in_order(workspace.info, run_as_stack.stack.destroy, "/jobs/delete",
                               "/access-control/rule-sets", "4.")
        assert "e2e-run-as-job" not in workspace.jobs(), "4. the job"
