"""`python -m stacks.adopt` under the real engine against the emulator, for a job whose
compute is named inside its nested objects (docs/adopt.md, "What is written"): an instance
pool, a cluster policy, a SQL warehouse and a job on them, all made through the official SDK
and the client outside any stack, as a team's scripts make them.

Adopt writes the job's cluster spec naming the adopted pool and policy by their items
(`instance_pool:`, `policy:`) and its SQL task the warehouse (`warehouse:`), in place of
their ids; the task on a cluster that is not adopted keeps the cluster's id. One `pulumi up`
imports everything with no write to the workspace, and the preview after it shows no
changes. The same objects adopted as a Python module (`--python`) hold the ids of the
module's own resources there, and a team's own program that calls it imports them the same
way.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from databricks.sdk import WorkspaceClient as SdkClient

from providers.jobs.jobs_api import JobsApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import StackFactory, platform_writes
from tests.e2e.team_support import config_items, own_program, own_program_stack, run_adopt
from workspace_emulator.testing import EmulatorInfo, clear_request_log, fetch_token

pytestmark = pytest.mark.engine

SPARK = "15.4.x-scala2.12"
CLUSTER = "0101-120000-shared01"  # a cluster of the emulator's initial data: not adopted


@dataclasses.dataclass
class Made:
    """The scratch stack and the ids of what the SDK made."""

    stack: PulumiCli
    prefix: str
    pool_id: str
    policy_id: str
    warehouse_id: str
    job_id: str

    @property
    def settings_path(self) -> Path:
        return self.stack.project_dir / f"Pulumi.{self.stack.stack}.yaml"

    def items(self, key: str) -> list[dict[str, Any]]:
        return config_items(self.stack, key)

    def item_of(self, key: str, import_id: str) -> dict[str, Any]:
        [item] = [i for i in self.items(key) if i["import"] == import_id]
        return item


@dataclasses.dataclass(frozen=True)
class Compute:
    """The ids of what the SDK and the client made."""

    pool_id: str
    policy_id: str
    warehouse_id: str
    job_id: str


def make_compute(emulator: EmulatorInfo, prefix: str) -> Compute:
    """A pool, a policy and a warehouse made through the SDK, and a job on them made
    through the client, its third task on the initial data's cluster."""
    sdk = SdkClient(host=emulator.base_url, token=fetch_token(emulator), auth_type="pat")
    pool = sdk.instance_pools.create(instance_pool_name=f"{prefix}-pool",
                                     node_type_id="Standard_DS3_v2", max_capacity=4)
    policy = sdk.cluster_policies.create(name=f"{prefix}-policy", definition=json.dumps(
        {"autotermination_minutes": {"type": "fixed", "value": 30}}))
    warehouse = sdk.warehouses.create(name=f"{prefix}-warehouse", cluster_size="2X-Small",
                                      max_num_clusters=1, auto_stop_mins=10)
    pool_id, policy_id = str(pool.instance_pool_id), str(policy.policy_id)
    warehouse_id = str(warehouse.id)
    job_id = JobsApi(emulator_client(emulator, "public")).create({
        "name": f"{prefix}-job",
        "job_clusters": [{"job_cluster_key": "etl", "new_cluster": {
            "spark_version": SPARK, "num_workers": 1, "policy_id": policy_id,
            "instance_pool_id": pool_id}}],
        "tasks": [
            {"task_key": "etl", "job_cluster_key": "etl",
             "spark_python_task": {"python_file": "dbfs:/jobs/etl.py"}},
            {"task_key": "report", "depends_on": [{"task_key": "etl"}], "sql_task": {
                "warehouse_id": warehouse_id,
                "file": {"path": "/Workspace/Shared/reports/daily.sql"}}},
            {"task_key": "shared", "depends_on": [{"task_key": "etl"}],
             "existing_cluster_id": CLUSTER,
             "notebook_task": {"notebook_path": "/Shared/report"}},
        ],
    })
    return Compute(pool_id, policy_id, warehouse_id, str(job_id))


@pytest.fixture(scope="class")
def made(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Made:
    stack = workspace_stack(wire_form="public")
    prefix = f"nested{uuid.uuid4().hex[:6]}"
    compute = make_compute(emulator, prefix)
    return Made(stack, prefix, compute.pool_id, compute.policy_id, compute.warehouse_id,
                compute.job_id)


@pytest.mark.steps
class TestAdoptAJobNamingItsCompute:
    def test_1_adopt_writes_the_nested_ids_as_references(self, made: Made) -> None:
        run_adopt(made.stack, "--match", f"*:*{made.prefix}*", expect=0)
        pool = made.item_of("instancePools", made.pool_id)
        policy = made.item_of("clusterPolicies", made.policy_id)
        warehouse = made.item_of("sqlWarehouses", made.warehouse_id)
        job = made.item_of("jobs", made.job_id)
        [cluster] = job["job_clusters"]
        spec = cluster["new_cluster"]
        assert spec["instance_pool"] == pool["name"], job
        assert spec["policy"] == policy["name"], job
        assert "instance_pool_id" not in spec and "policy_id" not in spec, job
        tasks = {task["task_key"]: task for task in job["tasks"]}
        assert tasks["report"]["sql_task"] == {
            "warehouse": warehouse["name"],
            "file": {"path": "/Workspace/Shared/reports/daily.sql"}}, job
        # The initial data's cluster is not adopted: its id stays.
        assert tasks["shared"]["existing_cluster_id"] == CLUSTER, job
        assert "existing_cluster" not in tasks["shared"], job
        # The pool, policy and warehouse come before the job that names them.
        text = made.settings_path.read_text()
        assert text.index("workspace:instancePools") < text.index("workspace:jobs")
        assert text.index("workspace:sqlWarehouses") < text.index("workspace:jobs")

    def test_2_up_imports_them_with_no_write(
        self, made: Made, emulator: EmulatorInfo
    ) -> None:
        clear_request_log(emulator)
        up = made.stack.up()
        assert "4 imported" in up.stdout, up.stdout
        assert platform_writes(emulator) == []

    def test_3_the_next_preview_shows_no_changes(self, made: Made) -> None:
        made.stack.preview("--expect-no-changes")

    def test_4_adopting_again_adds_nothing(self, made: Made) -> None:
        before = made.settings_path.read_text()
        run_adopt(made.stack, "--match", f"*:*{made.prefix}*", expect=0, says="added 0 item(s)")
        assert made.settings_path.read_text() == before


def test_a_teams_own_program_declares_the_nested_ids_as_its_resources(
    tmp_path: Path, workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    """`adopt --python`: the job's cluster spec and SQL task hold the ids of the module's own
    pool, policy and warehouse resources; a team's own project that calls the module imports
    them all with no write, then previews no changes."""
    prefix = f"nestpy{uuid.uuid4().hex[:6]}"
    compute = make_compute(emulator, prefix)
    stack = workspace_stack(wire_form="public")  # adopt signs in as this stack does
    program = own_program(tmp_path / "program")
    module = program / "adopted.py"
    run_adopt(stack, "--match", f"*:*{prefix}*", "--python", str(module), expect=0)
    text = module.read_text()
    assert "'instance_pool_id': made['instancePools']" in text, text
    assert "'policy_id': made['clusterPolicies']" in text, text
    assert "'warehouse_id': made['sqlWarehouses']" in text, text
    assert f"'existing_cluster_id': '{CLUSTER}'" in text, text
    for own_id in (compute.pool_id, compute.policy_id, compute.warehouse_id):
        assert text.count(repr(own_id)) == 1, f"{own_id} is written once, as its import id"

    own = own_program_stack(tmp_path, program, emulator)
    clear_request_log(emulator)
    up = own.up()
    assert "4 imported" in up.stdout, up.stdout
    assert platform_writes(emulator) == []
    own.preview("--expect-no-changes")
