"""The official SDK, unchanged, driving multi-task jobs (Jobs 2.2) against the emulator:
create, get (following its pages), update, reset, list, run_now, get_run, list_runs and
cancel_run."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import InvalidParameterValue
from databricks.sdk.service import compute
from databricks.sdk.service import jobs as sdk_jobs
from databricks.sdk.service.workspace import ImportFormat, Language

from tests.emulator.jobs_support import SHARED_CLUSTER
from tests.emulator.support import unique
from workspace_emulator.testing import fetch_token, running_emulator

RESULT = sdk_jobs.RunResultState


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


def _notebook(key: str, *depends_on: str, **extra) -> sdk_jobs.Task:
    return sdk_jobs.Task(task_key=key, existing_cluster_id=SHARED_CLUSTER,
                         notebook_task=sdk_jobs.NotebookTask(notebook_path=f"/Shared/{key}"),
                         depends_on=[sdk_jobs.TaskDependency(d) for d in depends_on] or None,
                         **extra)


def _pipeline() -> dict:
    cluster = sdk_jobs.JobCluster(job_cluster_key="etl", new_cluster=compute.ClusterSpec(
        spark_version="13.3.x-scala2.12", node_type_id="Standard_DS3_v2", num_workers=2))
    load = sdk_jobs.Task(task_key="load", depends_on=[sdk_jobs.TaskDependency("extract")],
                         job_cluster_key="etl", spark_python_task=sdk_jobs.SparkPythonTask(
                             python_file="dbfs:/jobs/load.py"))
    return dict(name=unique("sdk-multi"), job_clusters=[cluster], tags={"team": "data"},
                tasks=[_notebook("extract"), load])


def _keys(job: sdk_jobs.Job) -> list[str]:
    assert job.settings is not None and job.settings.tasks is not None
    return [task.task_key for task in job.settings.tasks]


def test_multi_task_create_get_update_reset(sdk):
    job_id = sdk.jobs.create(**_pipeline()).job_id
    job = sdk.jobs.get(job_id)
    assert job.settings.format == sdk_jobs.Format.MULTI_TASK
    assert _keys(job) == ["extract", "load"]
    assert job.settings.tasks[1].run_if == sdk_jobs.RunIf.ALL_SUCCESS
    assert job.settings.queue.enabled is True
    assert job.settings.job_clusters[0].new_cluster.num_workers == 2
    assert job.settings.max_concurrent_runs == 1 and job.settings.timeout_seconds == 0

    sdk.jobs.update(job_id, fields_to_remove=["tags"], new_settings=sdk_jobs.JobSettings(
        tasks=[_notebook("report", "load", run_if=sdk_jobs.RunIf.ALL_DONE)]))
    job = sdk.jobs.get(job_id)
    assert _keys(job) == ["extract", "load", "report"] and job.settings.tags is None
    sdk.jobs.update(job_id, fields_to_remove=["tasks/report"])
    assert _keys(sdk.jobs.get(job_id)) == ["extract", "load"]

    sdk.jobs.reset(job_id, new_settings=sdk_jobs.JobSettings(name="reset",
                                                             tasks=[_notebook("only")]))
    job = sdk.jobs.get(job_id)
    assert _keys(job) == ["only"] and job.settings.name == "reset"
    assert not job.settings.job_clusters


def test_the_sdk_sees_refusals_as_invalid_parameter_value(sdk):
    with pytest.raises(InvalidParameterValue, match="Invalid dependency graph"):
        sdk.jobs.create(name=unique("bad"), tasks=[_notebook("a", "ghost")])
    with pytest.raises(InvalidParameterValue, match="is not defined in field 'job_clusters'"):
        sdk.jobs.create(name=unique("bad"), tasks=[sdk_jobs.Task(
            task_key="a", job_cluster_key="none", notebook_task=sdk_jobs.NotebookTask("/x"))])


def test_the_sdk_follows_pages_of_a_long_job_and_run(sdk):
    name = unique("sdk-long")
    keys = [f"t{i:03}" for i in range(230)]
    job_id = sdk.jobs.create(name=name, tasks=[_notebook(key) for key in keys]).job_id
    assert _keys(sdk.jobs.get(job_id)) == keys
    listed = list(sdk.jobs.list(name=name, expand_tasks=True))
    assert [len(job.settings.tasks) for job in listed] == [230]
    run = sdk.jobs.run_now_and_wait(job_id)
    assert [task.task_key for task in run.tasks] == keys


def _upload_notebooks(sdk: WorkspaceClient, *keys: str) -> None:
    """The notebooks of `_notebook` tasks, through the SDK (a run of a missing one fails)."""
    sdk.workspace.mkdirs("/Shared")
    for key in keys:
        sdk.workspace.upload(f"/Shared/{key}", b"print('hello')\n", format=ImportFormat.SOURCE,
                             language=Language.PYTHON, overwrite=True)


def test_run_now_get_run_and_list_runs(sdk):
    pipeline = _pipeline()
    pipeline["tasks"].append(_notebook("report", "load"))
    _upload_notebooks(sdk, "extract", "report")
    job_id = sdk.jobs.create(**pipeline).job_id
    good = sdk.jobs.run_now_and_wait(job_id, notebook_params={"day": "monday"},
                                     job_parameters={"table": "users"})
    assert good.state.result_state == RESULT.SUCCESS
    assert good.overriding_parameters.notebook_params == {"day": "monday"}
    failed = sdk.jobs.run_now_and_wait(job_id, python_params=["--fail"])
    assert failed.state.result_state == RESULT.FAILED
    by_key = {task.task_key: task.state.result_state for task in sdk.jobs.get_run(
        failed.run_id).tasks}
    assert by_key == {"extract": RESULT.SUCCESS, "load": RESULT.FAILED,
                      "report": RESULT.UPSTREAM_FAILED}

    runs = list(sdk.jobs.list_runs(job_id=job_id))
    assert [run.run_id for run in runs] == [failed.run_id, good.run_id]
    expanded = list(sdk.jobs.list_runs(job_id=job_id, expand_tasks=True, completed_only=True))
    assert [len(run.tasks) for run in expanded] == [3, 3]
    assert list(sdk.jobs.list_runs(job_id=job_id, active_only=True)) == []


@pytest.fixture(scope="module")
def slow_sdk() -> Iterator[WorkspaceClient]:
    # Runs take a minute here, so they are still active when cancelled.
    with running_emulator(transition_seconds=60) as info:
        yield WorkspaceClient(host=info.base_url, token=fetch_token(info))


def test_cancel_run_and_cancel_all_runs(slow_sdk):
    job_id = slow_sdk.jobs.create(**_pipeline()).job_id
    run_id = slow_sdk.jobs.run_now(job_id).run_id
    assert slow_sdk.jobs.get_run(run_id).state.life_cycle_state == \
        sdk_jobs.RunLifeCycleState.PENDING
    cancelled = slow_sdk.jobs.cancel_run_and_wait(run_id)
    assert cancelled.state.life_cycle_state == sdk_jobs.RunLifeCycleState.TERMINATED
    assert cancelled.state.result_state == RESULT.CANCELED
    assert {t.task_key: t.state.result_state for t in cancelled.tasks} == {
        "extract": RESULT.CANCELED, "load": RESULT.UPSTREAM_CANCELED}

    others = [slow_sdk.jobs.run_now(job_id).run_id for _ in range(2)]
    assert len(list(slow_sdk.jobs.list_runs(job_id=job_id, active_only=True))) == 2
    slow_sdk.jobs.cancel_all_runs(job_id=job_id)
    assert list(slow_sdk.jobs.list_runs(job_id=job_id, active_only=True)) == []
    assert {slow_sdk.jobs.get_run(r).state.result_state for r in others} == {RESULT.CANCELED}
