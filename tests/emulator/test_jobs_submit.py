"""One-time runs (runs/submit) and the job parameters of a run, driven by the official SDK:
a submitted run has no job, shows as SUBMIT_RUN in runs/get and runs/list, goes through the
run life cycle of a run-now run, honours its idempotency token and its access list; a bad
body is refused naming the field."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import InvalidParameterValue, PermissionDenied
from databricks.sdk.service import compute
from databricks.sdk.service import jobs as sdk_jobs
from databricks.sdk.service.workspace import ImportFormat, Language

from tests.emulator.conftest import MANUAL_TRANSITION_SECONDS
from tests.emulator.jobs_support import SHARED_CLUSTER
from tests.emulator.support import add_service_principal, expect_error, unique
from workspace_emulator.testing import advance_clock, fetch_token

RESULT = sdk_jobs.RunResultState
LIFE = sdk_jobs.RunLifeCycleState


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


def _client_of(emulator, application: dict) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(
        emulator, application["client_id"], application["client_secret"]))


def _notebook(key: str, *depends_on: str) -> sdk_jobs.SubmitTask:
    return sdk_jobs.SubmitTask(
        task_key=key, existing_cluster_id=SHARED_CLUSTER,
        notebook_task=sdk_jobs.NotebookTask(notebook_path=f"/Shared/submit-{key}"),
        depends_on=[sdk_jobs.TaskDependency(d) for d in depends_on] or None)


def _script(key: str, *parameters: str, depends_on: tuple[str, ...] = ()
            ) -> sdk_jobs.SubmitTask:
    return sdk_jobs.SubmitTask(
        task_key=key, new_cluster=compute.ClusterSpec(
            spark_version="13.3.x-scala2.12", node_type_id="Standard_DS3_v2", num_workers=1),
        spark_python_task=sdk_jobs.SparkPythonTask(python_file=f"dbfs:/jobs/{key}.py",
                                                   parameters=list(parameters)),
        depends_on=[sdk_jobs.TaskDependency(d) for d in depends_on] or None)


def _upload(sdk: WorkspaceClient, *keys: str) -> None:
    sdk.workspace.mkdirs("/Shared")
    for key in keys:
        sdk.workspace.upload(f"/Shared/submit-{key}", b"print('hello')\n",
                             format=ImportFormat.SOURCE, language=Language.PYTHON,
                             overwrite=True)


def test_a_submitted_run_has_no_job_and_runs_its_tasks_to_the_end(sdk):
    _upload(sdk, "extract")
    name = unique("one-time")
    run = sdk.jobs.submit(run_name=name, timeout_seconds=600, tasks=[
        _notebook("extract"), _script("load", depends_on=("extract",))]).result()
    assert run.run_type == sdk_jobs.RunType.SUBMIT_RUN
    assert run.job_id is None
    assert run.run_name == name
    assert run.state.life_cycle_state == LIFE.TERMINATED
    assert run.state.result_state == RESULT.SUCCESS
    assert [(task.task_key, task.state.result_state) for task in run.tasks] == [
        ("extract", RESULT.SUCCESS), ("load", RESULT.SUCCESS)]
    assert run.tasks[1].depends_on[0].task_key == "extract"
    assert run.tasks[0].run_id not in (None, run.run_id)


def test_a_submitted_run_fails_as_a_run_now_run_fails(sdk):
    run = sdk.jobs.submit(tasks=[_script("first", "--fail"),
                                 _script("then", depends_on=("first",)),
                                 _notebook("missing")]).result()
    assert run.run_name == "Untitled"
    assert run.state.result_state == RESULT.FAILED
    by_key = {task.task_key: task.state for task in run.tasks}
    assert by_key["first"].result_state == RESULT.FAILED
    assert by_key["then"].result_state == RESULT.UPSTREAM_FAILED
    assert by_key["missing"].result_state == RESULT.FAILED
    assert by_key["missing"].state_message.startswith(
        'Unable to access the notebook "/Shared/submit-missing"')


def test_a_git_source_run_reads_its_notebooks_from_git_and_shows_the_source(sdk):
    git = sdk_jobs.GitSource(git_url="https://example.com/team/etl.git",
                             git_provider=sdk_jobs.GitProvider.GIT_HUB, git_branch="main")
    run = sdk.jobs.submit(git_source=git, tasks=[_notebook("not-in-the-workspace")]).result()
    assert run.state.result_state == RESULT.SUCCESS
    assert run.git_source == git


def test_submitted_runs_are_listed_by_run_type(sdk):
    job_id = sdk.jobs.create(name=unique("listed"), tasks=[sdk_jobs.Task(
        task_key="a", existing_cluster_id=SHARED_CLUSTER,
        spark_python_task=sdk_jobs.SparkPythonTask(python_file="dbfs:/a.py"))]).job_id
    job_run = sdk.jobs.run_now(job_id).run_id
    submitted = sdk.jobs.submit(run_name=unique("listed"), tasks=[_script("a")]).run_id
    one_time = [run.run_id for run in sdk.jobs.list_runs(run_type=sdk_jobs.RunType.SUBMIT_RUN)]
    of_jobs = [run.run_id for run in sdk.jobs.list_runs(run_type=sdk_jobs.RunType.JOB_RUN)]
    assert submitted in one_time and job_run not in one_time
    assert job_run in of_jobs and submitted not in of_jobs
    assert submitted in [run.run_id for run in sdk.jobs.list_runs()]
    assert [run.run_id for run in sdk.jobs.list_runs(job_id=job_id)] == [job_run]
    listed = next(run for run in sdk.jobs.list_runs(expand_tasks=True) if
                  run.run_id == submitted)
    assert listed.run_type == sdk_jobs.RunType.SUBMIT_RUN and listed.job_id is None
    assert [task.task_key for task in listed.tasks] == ["a"]


def test_the_same_idempotency_token_answers_the_same_run(sdk):
    token = unique("token")
    first = sdk.jobs.submit(idempotency_token=token, tasks=[_script("a")]).run_id
    again = sdk.jobs.submit(idempotency_token=token, tasks=[_script("b")]).run_id
    other = sdk.jobs.submit(idempotency_token=unique("token"), tasks=[_script("a")]).run_id
    assert again == first and other != first
    assert [task.task_key for task in sdk.jobs.get_run(first).tasks] == ["a"]


@pytest.mark.parametrize(("body", "field"), [
    ({}, "'tasks'"),
    ({"tasks": []}, "'tasks'"),
    ({"tasks": [{"task_key": "a"}]}, "tasks[0]"),
    ({"tasks": [{"notebook_task": {"notebook_path": "/x"}}]}, "'tasks[0].task_key'"),
    ({"tasks": [{"task_key": "a", "notebook_task": {"notebook_path": "/x"},
                 "depends_on": [{"task_key": "ghost"}]}]}, "tasks[0].depends_on[0]"),
    ({"tasks": [{"task_key": "a", "notebook_task": {"notebook_path": "/x"},
                 "existing_cluster_id": "0000-000000-nothere"}]}, "existing_cluster_id"),
    ({"tasks": [{"task_key": "a", "spark_python_task": {"python_file": "a.py"},
                 "environment_key": "default"}]}, "'tasks[0].environment_key'"),
    ({"tasks": [{"task_key": "a", "spark_python_task": {"python_file": "a.py"}}],
      "environments": [{"spec": {}}]}, "'environments[0].environment_key'"),
    ({"tasks": [{"task_key": "a", "spark_python_task": {"python_file": "a.py"}}],
      "git_source": {"git_url": "https://example.com/r.git"}}, "'git_source.git_provider'"),
    ({"tasks": [{"task_key": "a", "spark_python_task": {"python_file": "a.py"}}],
      "timeout_seconds": -1}, "'timeout_seconds'"),
    ({"tasks": [{"task_key": "a", "spark_python_task": {"python_file": "a.py"}}],
      "idempotency_token": "x" * 65}, "idempotency_token"),
    ({"tasks": [{"task_key": "a", "spark_python_task": {"python_file": "a.py"}}],
      "access_control_list": [{"user_name": "nobody@example.com",
                               "permission_level": "CAN_VIEW"}]}, "nobody@example.com"),
])
@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_a_bad_body_is_refused_naming_the_field(api, body, field, version):
    before = {run["run_id"] for run in api.get(
        "/api/2.2/jobs/runs/list", params={"run_type": "SUBMIT_RUN", "limit": 25}
    ).json().get("runs", [])}
    error = expect_error(api.post(f"/api/{version}/jobs/runs/submit", json=body), 400,
                         "INVALID_PARAMETER_VALUE")
    assert field in error["message"]
    after = {run["run_id"] for run in api.get(
        "/api/2.2/jobs/runs/list", params={"run_type": "SUBMIT_RUN", "limit": 25}
    ).json().get("runs", [])}
    assert after == before


def test_the_sdk_sees_a_refused_submit_as_invalid_parameter_value(sdk):
    with pytest.raises(InvalidParameterValue, match=r"tasks\[0\].environment_key"):
        sdk.jobs.submit(tasks=[sdk_jobs.SubmitTask(
            task_key="a", environment_key="none",
            spark_python_task=sdk_jobs.SparkPythonTask(python_file="a.py"))])


def test_a_submitted_run_is_seen_by_its_submitter_and_those_its_access_list_names(
        api, emulator):
    submitter_app, _ = add_service_principal(api, emulator)
    viewer_app, _ = add_service_principal(api, emulator)
    stranger_app, _ = add_service_principal(api, emulator)
    submitter, viewer, stranger = (_client_of(emulator, app) for app in
                                   (submitter_app, viewer_app, stranger_app))
    run_id = submitter.jobs.submit(tasks=[_script("a")], access_control_list=[
        sdk_jobs.JobAccessControlRequest(
            service_principal_name=viewer_app["client_id"],
            permission_level=sdk_jobs.JobPermissionLevel.CAN_VIEW)]).run_id
    assert submitter.jobs.get_run(run_id).run_id == run_id
    assert viewer.jobs.get_run(run_id).run_id == run_id
    with pytest.raises(PermissionDenied):
        stranger.jobs.get_run(run_id)
    assert run_id not in [run.run_id for run in stranger.jobs.list_runs()]
    with pytest.raises(PermissionDenied):
        viewer.jobs.cancel_run(run_id)
    submitter.jobs.cancel_run(run_id)


@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_a_submitted_run_goes_through_the_run_phases(manual, manual_api, version):
    body = {"run_name": "phases", "tasks": [
        {"task_key": "a", "spark_python_task": {"python_file": "dbfs:/a.py"},
         "existing_cluster_id": SHARED_CLUSTER},
        {"task_key": "b", "spark_python_task": {"python_file": "dbfs:/b.py"},
         "existing_cluster_id": SHARED_CLUSTER, "depends_on": [{"task_key": "a"}]}]}
    answer = manual_api.post(f"/api/{version}/jobs/runs/submit", json=body)
    assert answer.status_code == 200, answer.text
    assert set(answer.json()) == {"run_id"}
    run_id = answer.json()["run_id"]

    def states() -> tuple[str, list[str]]:
        run = manual_api.get(f"/api/{version}/jobs/runs/get", params={"run_id": run_id}).json()
        assert run["run_type"] == "SUBMIT_RUN" and "job_id" not in run
        return (run["state"]["life_cycle_state"],
                [task["state"]["life_cycle_state"] for task in run["tasks"]])

    assert states() == ("PENDING", ["PENDING", "BLOCKED"])
    advance_clock(manual, MANUAL_TRANSITION_SECONDS / 2)
    assert states() == ("RUNNING", ["RUNNING", "BLOCKED"])
    advance_clock(manual, MANUAL_TRANSITION_SECONDS / 4)
    assert states() == ("RUNNING", ["TERMINATED", "RUNNING"])
    advance_clock(manual, MANUAL_TRANSITION_SECONDS / 4)
    assert states() == ("TERMINATED", ["TERMINATED", "TERMINATED"])


def test_get_run_shows_the_job_parameters_of_a_run(sdk):
    job_id = sdk.jobs.create(name=unique("parameters"), parameters=[
        sdk_jobs.JobParameterDefinition(name="table", default="users"),
        sdk_jobs.JobParameterDefinition(name="day", default="monday"),
    ], tasks=[sdk_jobs.Task(task_key="a", existing_cluster_id=SHARED_CLUSTER,
                            spark_python_task=sdk_jobs.SparkPythonTask(
                                python_file="dbfs:/a.py"))]).job_id
    given = sdk.jobs.run_now_and_wait(job_id, job_parameters={"table": "orders"})
    assert given.job_parameters == [
        sdk_jobs.JobParameter(name="table", default="users", value="orders"),
        sdk_jobs.JobParameter(name="day", default="monday", value="monday")]
    assert sdk.jobs.get_run(given.run_id).job_parameters == given.job_parameters
    defaults = sdk.jobs.run_now_and_wait(job_id)
    assert defaults.job_parameters == [
        sdk_jobs.JobParameter(name="table", default="users", value="users"),
        sdk_jobs.JobParameter(name="day", default="monday", value="monday")]
