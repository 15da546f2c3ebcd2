"""Rejections only the service can make fail `pulumi up` with the service's own message and
leave no partial object: a group the workspace lacks (principal, job permissions), a branch
the repo's remote lacks, a catalog that does not exist. One stack walks through them."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulator.testing import EmulatorInfo, running_emulator
from tools.drills import inventory
from tools.drills.local_stack import connection_config, scratch_stack, write_stack_config
from tools.pulumi_cli import PulumiCli

pytestmark = pytest.mark.engine

APP_ID = "b946402c-4f47-469a-bead-ef6610b453f5"
REPO = "/Repos/iac/data-pipelines"
JOB = {"name": "rejections-job",
       "new_cluster": {"spark_version": "13.3.x-scala2.12", "node_type_id": "Standard_DS3_v2",
                       "num_workers": 1},
       "spark_python_task": {"python_file": "dbfs:/jobs/main.py"}}


def failed_up(stack: PulumiCli, info: EmulatorInfo, **objects) -> str:
    write_stack_config(stack, {**connection_config(info),
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
