"""A run whose task needs a file that is not there fails as the service fails it, driven by
the official SDK: a library's wheel or jar in a volume or in DBFS, or an init script of the
task's cluster (new, job cluster or existing; in a volume, in DBFS or in the workspace),
missing when the run starts, ends the task and the run INTERNAL_ERROR / FAILED with the
service's message naming the file; once the file is uploaded (Files API, DBFS, workspace),
the same run succeeds. One-time runs (runs/submit) and runs of a job (run-now) alike."""

from __future__ import annotations

import base64
import io
import uuid

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import OperationFailed
from databricks.sdk.service import catalog, compute
from databricks.sdk.service import jobs as sdk_jobs
from databricks.sdk.service.workspace import ImportFormat

from tests.emulator.jobs_support import SHARED_CLUSTER
from tests.emulator.support import unique
from workspace_emulator.testing import fetch_token

RESULT = sdk_jobs.RunResultState
LIFE = sdk_jobs.RunLifeCycleState
CLUSTER = compute.ClusterSpec(spark_version="13.3.x-scala2.12",
                              node_type_id="Standard_DS3_v2", num_workers=1)


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture(scope="module")
def volume(sdk) -> str:
    name = f"libs{uuid.uuid4().hex[:8]}"
    sdk.catalogs.create(name)
    sdk.schemas.create("s", name)
    sdk.volumes.create(name, "s", "v", catalog.VolumeType.MANAGED)
    return f"/Volumes/{name}/s/v"


def _wheel_task(path: str, **cluster: object) -> sdk_jobs.SubmitTask:
    where = cluster or {"existing_cluster_id": SHARED_CLUSTER}
    return sdk_jobs.SubmitTask(
        task_key="wheel", **where,  # type: ignore[arg-type]
        python_wheel_task=sdk_jobs.PythonWheelTask(package_name="etl", entry_point="main"),
        libraries=[compute.Library(whl=path)])


def _failed_task(sdk: WorkspaceClient, run_id: int | None) -> tuple[str, str]:
    """(the run's message, its one task's message), both INTERNAL_ERROR / FAILED."""
    assert run_id is not None
    run = sdk.jobs.get_run(run_id)
    assert run.state is not None and run.tasks and run.tasks[0].state is not None
    task = run.tasks[0].state
    for state in (run.state, task):
        assert (state.life_cycle_state, state.result_state) == (LIFE.INTERNAL_ERROR,
                                                                RESULT.FAILED)
    return run.state.state_message or "", task.state_message or ""


def test_a_submitted_run_fails_on_a_missing_wheel_in_a_volume_then_runs(sdk, volume):
    path = f"{volume}/wheels/etl-1.0-py3-none-any.whl"
    waiter = sdk.jobs.submit(run_name=unique("wheel"), tasks=[_wheel_task(path)])
    with pytest.raises(OperationFailed, match="INTERNAL_ERROR"):  # the SDK's wait says so
        waiter.result()
    run_message, task_message = _failed_task(sdk, waiter.run_id)
    assert task_message.startswith(
        f'Library installation failed for library due to user error for whl: "{path}".')
    assert "task 'wheel' failed: Library installation failed" in run_message

    sdk.files.upload(path, io.BytesIO(b"PK wheel"))
    again = sdk.jobs.submit(run_name=unique("wheel"), tasks=[_wheel_task(path)]).result()
    assert (again.state.life_cycle_state, again.state.result_state) == (
        LIFE.TERMINATED, RESULT.SUCCESS)


def test_a_job_run_fails_on_a_missing_jar_in_dbfs_then_runs(sdk):
    jar = f"dbfs:/FileStore/jars/{uuid.uuid4().hex[:8]}/etl.jar"
    job_id = sdk.jobs.create(name=unique("jar"), tasks=[sdk_jobs.Task(
        task_key="jar", existing_cluster_id=SHARED_CLUSTER,
        spark_jar_task=sdk_jobs.SparkJarTask(main_class_name="com.example.Etl"),
        libraries=[compute.Library(jar=jar)])]).job_id
    _, message = _failed_task(sdk, sdk.jobs.run_now(job_id).run_id)
    assert message.startswith(
        f'Library installation failed for library due to user error for jar: "{jar}".')

    sdk.dbfs.put(jar, contents=base64.b64encode(b"PK jar").decode())
    again = sdk.jobs.run_now(job_id).result()
    assert again.state.result_state == RESULT.SUCCESS


def test_missing_init_scripts_fail_the_run_naming_the_script(sdk, volume):
    script = f"{volume}/init/{uuid.uuid4().hex[:8]}.sh"
    in_volume = compute.ClusterSpec(**CLUSTER.as_dict(), init_scripts=[
        compute.InitScriptInfo(volumes=compute.VolumesStorageInfo(destination=script))])
    waiter = sdk.jobs.submit(tasks=[_wheel_task("dbfs:/init/setup.sh", new_cluster=in_volume)])
    _, message = _failed_task(sdk, waiter.run_id)
    assert "Reason: INIT_SCRIPT_FAILURE (CLIENT_ERROR)" in message
    assert f"init script {script} failed" in message
    sdk.files.upload(script, io.BytesIO(b"#!/bin/bash\n"))
    ran = sdk.jobs.submit(tasks=[_wheel_task("dbfs:/init/setup.sh", new_cluster=in_volume)])
    assert ran.result().state.result_state == RESULT.SUCCESS

    # A job cluster's init script in the workspace, and one in DBFS.
    folder = f"/Shared/init-{uuid.uuid4().hex[:8]}"
    in_workspace = compute.ClusterSpec(**CLUSTER.as_dict(), init_scripts=[
        compute.InitScriptInfo(workspace=compute.WorkspaceStorageInfo(
            destination=f"{folder}/init.sh")),
        compute.InitScriptInfo(dbfs=compute.DbfsStorageInfo(destination="dbfs:/init/none.sh"))])
    job_id = sdk.jobs.create(
        name=unique("init"),
        job_clusters=[sdk_jobs.JobCluster(job_cluster_key="etl", new_cluster=in_workspace)],
        tasks=[sdk_jobs.Task(task_key="t", job_cluster_key="etl",
                             spark_python_task=sdk_jobs.SparkPythonTask(
                                 python_file="dbfs:/jobs/t.py"))]).job_id
    _, message = _failed_task(sdk, sdk.jobs.run_now(job_id).run_id)
    assert "Cluster 'etl (job cluster)' was terminated." in message
    assert f"init script {folder}/init.sh failed" in message
    sdk.workspace.mkdirs(folder)
    sdk.workspace.upload(f"{folder}/init.sh", b"#!/bin/bash\n", format=ImportFormat.RAW)
    _, message = _failed_task(sdk, sdk.jobs.run_now(job_id).run_id)
    assert "init script dbfs:/init/none.sh failed" in message
    sdk.dbfs.put("dbfs:/init/none.sh", contents=base64.b64encode(b"#!/bin/bash\n").decode(),
                 overwrite=True)
    assert sdk.jobs.run_now(job_id).result().state.result_state == RESULT.SUCCESS


def test_an_existing_clusters_init_script_is_looked_at_too(sdk):
    script = f"dbfs:/init/{uuid.uuid4().hex[:8]}.sh"
    cluster_id = sdk.clusters.create(
        cluster_name=unique("with-init"), spark_version=CLUSTER.spark_version,
        node_type_id=CLUSTER.node_type_id, num_workers=1,
        init_scripts=[compute.InitScriptInfo(dbfs=compute.DbfsStorageInfo(destination=script))],
    ).cluster_id
    task = _wheel_task("dbfs:/init/setup.sh", existing_cluster_id=cluster_id)
    _, message = _failed_task(sdk, sdk.jobs.submit(tasks=[task]).run_id)
    assert f"Cluster '{cluster_id}' was terminated." in message and script in message


def test_files_the_emulator_does_not_hold_count_as_there(sdk):
    """Cloud storage and package repositories are not emulated: such a library runs."""
    task = sdk_jobs.SubmitTask(
        task_key="t", existing_cluster_id=SHARED_CLUSTER,
        spark_python_task=sdk_jobs.SparkPythonTask(python_file="dbfs:/jobs/t.py"),
        libraries=[compute.Library(whl="abfss://libs@lake.dfs.core.windows.net/etl.whl"),
                   compute.Library(pypi=compute.PythonPyPiLibrary(package="pyyaml"))])
    assert sdk.jobs.submit(tasks=[task]).result().state.result_state == RESULT.SUCCESS
