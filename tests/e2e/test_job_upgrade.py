"""A stack deployed by the code before Jobs at full depth moves over without a change.

The state is made honestly: the tree of the last commit before the rewrite
(`OLD_COMMIT`, taken with `git archive`) deploys the local stack's job as it was then (the
single-task shape in the legacy form's nesting: `new_cluster` holding `timeout_seconds`,
`max_retries`, `spark_python_task`, and `spark_env_vars` inside `cluster_log_conf`) with
its own program and provider host. Then this checkout's program and provider host, on the
same state and emulator, preview no change, up without a write, refresh (which records the
job in the new normal form) and preview no change again, apply a change of the lifted
task in place, and turn it into a multi-task job in place.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from providers.jobs.job_diff import canonical
from providers.jobs.jobs_api import JobsApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import StackFactory, upgrade_updates_the_provider_alone, write_config
from tests.e2e.previous_code import deployed_by, tree_at
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

# The parent of "Job at the full depth of Jobs API 2.2": the single-task Job.
OLD_COMMIT = "206480b7ec7e911aa4e1c86616f8c7475958ea0b"


def old_local_job(tree: Path) -> dict[str, Any]:
    config = yaml.safe_load((tree / "Pulumi.local.yaml").read_text())["config"]
    [job] = config["workspace:jobs"]
    return job


def job_outputs(stack: PulumiCli) -> dict[str, Any]:
    [job] = [r for r in stack.export()["deployment"]["resources"] if r["type"].endswith(":Job")]
    return job["outputs"]


def writes(info: EmulatorInfo) -> list[str]:
    return [
        f"{r['method']} {r['path']}"
        for r in request_log(info)
        if r["service"] == "platform" and r["method"] != "GET"
    ]


# The old code's names of the forms: "seed" is the deprecated name of "legacy". The legacy
# form's variant runs on the modern leg (docs/testing.md, "Test legs").
@pytest.mark.parametrize("wire_form", [
    pytest.param("seed", marks=pytest.mark.modern_leg),  # "seed": deprecated, as it was
    "public",
])
def test_a_single_task_job_deployed_before_full_depth_is_no_change(
    workspace_stack: StackFactory, emulator: EmulatorInfo, tmp_path: Path, wire_form: str
) -> None:
    tree = tree_at(OLD_COMMIT, tmp_path / "old")
    job = old_local_job(tree)
    assert "timeout_seconds" in job["new_cluster"]  # the legacy form's nesting, as it was
    stack = workspace_stack(wire_form=wire_form, jobs=[job])
    deployed_by(stack, tree)
    assert "tasks" not in job_outputs(stack)  # the old single-task state
    job_id = int(stack.outputs()["jobs"][job["name"]])

    clear_request_log(emulator)
    upgrade_updates_the_provider_alone(stack)
    assert writes(emulator) == []
    stack.preview("--expect-no-changes")
    # A refresh records the job in the new normal form (one task keyed "main"): the same job.
    stack.refresh()
    assert [t["task_key"] for t in job_outputs(stack)["tasks"]] == ["main"]
    stack.preview("--expect-no-changes")

    # The job is one task keyed "main" now: a change of it applies in place.
    job["new_cluster"]["max_retries"] = 3
    write_config(stack, {"workspace:jobs": [job]})
    clear_request_log(emulator)
    stack.up()
    assert len(writes(emulator)) == 1, writes(emulator)
    assert int(stack.outputs()["jobs"][job["name"]]) == job_id
    [task] = JobsApi(emulator_client(emulator, wire_form)).get(job_id)["settings"]["tasks"]
    assert (task["task_key"], task["max_retries"]) == ("main", 3)
    stack.preview("--expect-no-changes")

    # And it becomes a multi-task job in place, as the local stack's job does.
    multi_task = as_multi_task(job)
    write_config(stack, {"workspace:jobs": [multi_task]})
    clear_request_log(emulator)
    stack.up()
    assert len(writes(emulator)) == 1, writes(emulator)
    assert int(stack.outputs()["jobs"][job["name"]]) == job_id
    live = JobsApi(emulator_client(emulator, wire_form)).get(job_id)["settings"]
    assert canonical(live, declared=multi_task) == canonical(multi_task)
    stack.preview("--expect-no-changes")
    stack.refresh()
    stack.preview("--expect-no-changes")
    stack.destroy()


def as_multi_task(legacy_job: dict[str, Any]) -> dict[str, Any]:
    """The single-task job in the legacy form's nesting as two tasks on a shared job cluster:
    its task, now keyed `ingest`, and a report after it."""
    cluster = copy.deepcopy(legacy_job["new_cluster"])
    task_fields = {name: cluster.pop(name) for name in ("spark_python_task", "timeout_seconds",
                                                          "max_retries")}
    cluster["spark_env_vars"] = cluster["cluster_log_conf"].pop("spark_env_vars")
    return {
        "name": legacy_job["name"],
        "job_clusters": [{"job_cluster_key": "etl", "new_cluster": cluster}],
        "tasks": [
            {"task_key": "ingest", "job_cluster_key": "etl",
             "libraries": legacy_job["libraries"], **task_fields},
            {"task_key": "report", "depends_on": [{"task_key": "ingest"}],
             "job_cluster_key": "etl",
             "notebook_task": {"notebook_path": "/Workspace/Shared/reports/nightly"}},
        ],
    }
