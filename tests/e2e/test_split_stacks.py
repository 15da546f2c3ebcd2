"""A workspace split across two stacks (docs/split.md) under the real engine against the
emulator: the platform team's stack owns identity, the catalogs, their grants and the
cluster policies; the data team's owns jobs and pipelines and names the platform's objects
(its job cluster's `policy` through `workspace:uses`, a group and a catalog by name). Both
go up, preview no changes, and the audit of either finds nothing unmanaged; adopt of the
data stack takes nothing of the platform's part."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import write_config
from tests.e2e.team_support import run_adopt, run_audit
from tools.drills.local_stack import scratch_stack
from workspace_emulator.testing import EmulatorInfo

# Proven on both engines; the delivery commands, not the kinds: the modern leg alone runs
# it (docs/testing.md, "Test legs").
pytestmark = [pytest.mark.engine, pytest.mark.modern_leg]

PLATFORM = {
    "owns": ["identity", "catalogs", "grants", "clusterPolicies"],
    "groups": [{"name": "lake-engineers", "display_name": "lake-engineers"}],
    "catalogs": [{"name": "lake", "comment": "the data team's tables"}],
    "grants": [{"name": "lake-grants", "securable_type": "catalog", "full_name": "lake",
                "privilege_assignments": [{"principal": "lake-engineers",
                                           "privileges": ["USE_CATALOG", "USE_SCHEMA"]}]}],
    "clusterPolicies": [{"name": "etl-policy",
                         "definition": {"autotermination_minutes": {"type": "fixed",
                                                                    "value": 30}}}],
}
DATA = {
    "owns": ["jobs", "pipelines"],
    "uses": ["platform"],
    "jobs": [{
        "name": "nightly",
        "tags": {"owner": "data-team"},
        "job_clusters": [{"job_cluster_key": "etl", "new_cluster": {
            "spark_version": "15.4.x-scala2.12", "node_type_id": "i3.xlarge",
            "num_workers": 1, "policy": "etl-policy"}}],
        "tasks": [{"task_key": "main", "job_cluster_key": "etl",
                   "notebook_task": {"notebook_path": "/Shared/etl"}}],
    }],
    "jobPermissions": [{"name": "nightly-access", "job": "nightly", "access_controls": [
        {"group_name": "lake-engineers", "permission_level": "CAN_MANAGE_RUN"}]}],
}


def stacks(workdir: Path, emulator: EmulatorInfo) -> tuple[PulumiCli, PulumiCli]:
    """The two stacks, in one project and one backend."""
    return (scratch_stack(workdir, emulator, objects=PLATFORM, stack="platform"),
            scratch_stack(workdir, emulator, objects=DATA, stack="data"))


def test_two_stacks_share_one_workspace(tmp_path: Path, emulator: EmulatorInfo) -> None:
    platform, data = stacks(tmp_path, emulator)
    # What the emulator's workspace holds from the start is nobody's: each stack ignores it.
    before = json.loads(run_audit(platform, "--json", expect=1).stdout)["unmanaged"]
    # So is the schema the service makes in a new catalog (`default`), which no stack declares.
    ignored = [f"{o['kind']}:{o['id']}" for o in before] + ["schema:lake.default"]
    for stack in (platform, data):
        write_config(stack, {"workspace:auditIgnore": ignored})
    platform.up()
    data.up()
    job = data.export()["deployment"]["resources"]
    policy_id = platform.outputs()["cluster_policies"]["etl-policy"]
    [nightly] = [r for r in job if r["type"].endswith(":Job")]
    assert nightly["inputs"]["job_clusters"][0]["new_cluster"]["policy_id"] == policy_id
    for stack in (platform, data):
        assert stack.preview("--expect-no-changes", check=False).returncode == 0, stack.stack
    for stack in (platform, data):
        report = json.loads(run_audit(stack, "--json", expect=0).stdout)
        assert sorted(report["stacks"]) == ["data", "platform"]
        managed = {k: n for k, n in report["managed_counts"].items() if n}
        assert managed == {"catalog": 1, "grants": 1, "cluster_policy": 1, "group": 1,
                           "job": 1, "job_permissions": 1}, managed
    # adopt of the data stack finds nothing to take: the platform's part is the platform's
    adopted = run_adopt(data, "--dry-run", expect=0)
    assert adopted.stdout == "", adopted.stdout
