"""Rejections only the service can make fail `pulumi up` with the service's own message and
leave no partial object: a group the workspace lacks (principal, job permissions), a branch
the repo's remote lacks, a catalog that does not exist, a job's cluster or run_as principal
the workspace lacks. One stack walks through them (a job's, in each wire form)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from stacks.pulumi_cli import PulumiCli
from tools.drills import inventory
from tools.drills.local_stack import connection_config, scratch_stack, write_stack_config
from workspace_emulator.testing import EmulatorInfo, running_emulator

pytestmark = pytest.mark.engine

APP_ID = "b946402c-4f47-469a-bead-ef6610b453f5"
REPO = "/Repos/iac/data-pipelines"
JOB = {"name": "rejections-job",
       "new_cluster": {"spark_version": "13.3.x-scala2.12", "node_type_id": "Standard_DS3_v2",
                       "num_workers": 1},
       "spark_python_task": {"python_file": "dbfs:/jobs/main.py"}}


def failed_up(stack: PulumiCli, info: EmulatorInfo, wire_form: str = "legacy", **objects) -> str:
    write_stack_config(stack, {**connection_config(info, wire_form),
                               **{f"workspace:{k}": v for k, v in objects.items()}})
    result = stack.up(check=False)
    assert result.returncode != 0, result.stdout
    return result.stdout + result.stderr


def test_service_only_rejections(tmp_path: Path) -> None:
    with running_emulator() as info:
        stack = scratch_stack(tmp_path, info, objects={})
        before = inventory.take(info)

        output = failed_up(stack, info, jobs=[JOB], jobPermissions=[{
            "name": "access", "job": JOB["name"],
            "access_controls": [{"group_name": "analysts", "permission_level": "CAN_VIEW"},
                                {"group_name": "no-such-group",
                                 "permission_level": "CAN_VIEW"}]}])
        assert "JobPermissions (access)" in output
        assert "Principal: group_name=no-such-group does not exist" in output
        job = next(j for j in inventory.take(info).jobs if j["name"] == JOB["name"])
        grants = inventory.direct_grants(inventory.take(info).job_acls[job["job_id"]])
        assert not {group for group, _ in grants} & {"analysts", "no-such-group"}

        output = failed_up(stack, info, servicePrincipals=[
            {"name": "etl", "application_id": APP_ID, "groups": ["999999999"]}])
        assert "Group with id 999999999 does not exist" in output
        assert APP_ID not in [p["application_id"] for p in inventory.take(info).principals]

        output = failed_up(stack, info, repoBranches=[
            {"name": "pipelines", "repo_path": REPO, "branch": "no-such-branch"}])
        assert "The branch 'no-such-branch' does not exist on the remote" in output
        assert inventory.take(info).repo_branches[REPO] == before.repo_branches[REPO]

        output = failed_up(stack, info, catalogBindings=[
            {"name": "missing", "catalog_name": "no_such_catalog",
             "bindings": [{"workspace_id": "1234567890123456"}]}])
        assert "Catalog 'no_such_catalog' does not exist" in output

        # Nothing the failed ups touched was left half-made: the state records none of the
        # rejected resources, and the workspace holds nothing new but the declared job
        # (destroyed by the last config, which declares nothing).
        write_stack_config(stack, connection_config(info))
        stack.up()
        after = inventory.take(info)
        assert [j["job_id"] for j in after.jobs] == [j["job_id"] for j in before.jobs]
        assert after.principals == before.principals
        assert after.scopes == before.scopes


MULTI_TASK_JOB: dict[str, Any] = {
    "name": "rejected-multi-task-job",
    "job_clusters": [{"job_cluster_key": "etl", "new_cluster": {
        "spark_version": "15.4.x-scala2.12", "node_type_id": "Standard_D4ds_v5",
        "num_workers": 1}}],
    "tasks": [
        {"task_key": "ingest", "job_cluster_key": "etl",
         "spark_python_task": {"python_file": "/Workspace/Shared/etl/ingest.py"}},
        {"task_key": "report", "depends_on": [{"task_key": "ingest"}],
         "existing_cluster_id": "0101-120000-shared01",
         "notebook_task": {"notebook_path": "/Workspace/Shared/etl/report"}},
    ],
}
UNKNOWN_CLUSTER = "0101-999999-gone0000"
UNKNOWN_PRINCIPAL = "0f0f0f0f-0000-4000-8000-000000000000"  # registered nowhere


@pytest.mark.parametrize("wire_form", ["legacy", "public"])
def test_service_refuses_a_job_naming_objects_it_lacks(tmp_path: Path, wire_form: str) -> None:
    """A cluster or a run_as principal the workspace lacks passes every check (only the
    service knows its objects): up fails with the service's message and makes no job."""
    with running_emulator() as info:
        stack = scratch_stack(tmp_path, info, objects={}, wire_form=wire_form)
        before = [j["job_id"] for j in inventory.take(info).jobs]
        connection = connection_config(info, wire_form)

        gone_cluster = {**MULTI_TASK_JOB, "tasks": [
            MULTI_TASK_JOB["tasks"][0],
            {**MULTI_TASK_JOB["tasks"][1], "existing_cluster_id": UNKNOWN_CLUSTER}]}
        write_stack_config(stack, {**connection, "workspace:jobs": [gone_cluster]})
        stack.preview()  # passes: only the service knows its clusters
        output = failed_up(stack, info, wire_form, jobs=[gone_cluster])
        assert f"Job ({MULTI_TASK_JOB['name']})" in output
        assert f"Cluster {UNKNOWN_CLUSTER} does not exist" in output
        assert [j["job_id"] for j in inventory.take(info).jobs] == before

        stranger = {**MULTI_TASK_JOB, "run_as": {"service_principal_name": UNKNOWN_PRINCIPAL}}
        output = failed_up(stack, info, wire_form, jobs=[stranger])
        assert f"Principal: ServicePrincipalName({UNKNOWN_PRINCIPAL}) does not exist" in output
        assert [j["job_id"] for j in inventory.take(info).jobs] == before

        # Nothing was recorded either: the stack without the job has nothing to delete.
        write_stack_config(stack, connection)
        stack.up("--expect-no-changes")
