"""A job's pipeline task runs an update of its pipeline, driven by the official SDK: a task
naming no pipeline ends FAILED (the run TERMINATED, as a task's own failure ends), and so
does one whose pipeline's update would fail (a notebook it loads is missing), each with the
message naming why; once the notebook is uploaded, the same run succeeds."""

from __future__ import annotations

import base64
import uuid

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.service import jobs as sdk_jobs
from databricks.sdk.service import pipelines
from databricks.sdk.service.workspace import ImportFormat, Language

from tests.emulator.support import unique
from workspace_emulator.testing import fetch_token

RESULT = sdk_jobs.RunResultState


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


def _pipeline_task(pipeline_id: str) -> sdk_jobs.SubmitTask:
    return sdk_jobs.SubmitTask(task_key="refresh",
                               pipeline_task=sdk_jobs.PipelineTask(pipeline_id=pipeline_id))


def _task_message(sdk: WorkspaceClient, run_id: int | None) -> str:
    assert run_id is not None
    run = sdk.jobs.get_run(run_id)
    assert run.state is not None and run.state.result_state == RESULT.FAILED
    assert run.tasks and run.tasks[0].state is not None
    assert run.tasks[0].state.result_state == RESULT.FAILED
    return run.tasks[0].state.state_message or ""


def test_a_pipeline_task_of_no_pipeline_fails_naming_it(sdk):
    missing = str(uuid.uuid4())
    run = sdk.jobs.submit(run_name=unique("refresh"), tasks=[_pipeline_task(missing)]).result()
    assert f"The pipeline {missing} does not exist" in _task_message(sdk, run.run_id)


def test_a_pipeline_task_fails_as_the_update_would_then_runs_once_the_notebook_is_there(sdk):
    folder = f"/Shared/{unique('pipeline-code')}"
    notebook = f"{folder}/orders"
    created = sdk.pipelines.create(
        name=unique("orders"), development=True,
        libraries=[pipelines.PipelineLibrary(notebook=pipelines.NotebookLibrary(path=notebook))])
    assert created.pipeline_id is not None
    run = sdk.jobs.submit(run_name=unique("refresh"),
                          tasks=[_pipeline_task(created.pipeline_id)]).result()
    assert f"Unable to load the notebook '{notebook}'" in _task_message(sdk, run.run_id)

    sdk.workspace.mkdirs(folder)
    sdk.workspace.import_(notebook, format=ImportFormat.SOURCE, language=Language.PYTHON,
                          content=base64.b64encode(b"# Databricks notebook source\n").decode())
    run = sdk.jobs.submit(run_name=unique("refresh"),
                          tasks=[_pipeline_task(created.pipeline_id)]).result()
    assert run.state is not None and run.state.result_state == RESULT.SUCCESS
