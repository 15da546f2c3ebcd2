"""Lookups of jobs and their runs. (providers/lookups/__init__.py says what a lookup is.)"""

from __future__ import annotations

from typing import Any

import pulumi
from pydantic import Field

from providers.client import (
    WorkspaceClient,
)
from providers.core.lookup import (
    LookupResult,
    Result,
    as_id,
    exactly_one,
    lookup_output,
    nothing_if_gone,
    only_one,
)
from providers.jobs.jobs_api import JobsApi


def get_job(
    connection: pulumi.Input[dict],
    *,
    name: pulumi.Input[str] | None = None,
    job_id: pulumi.Input[int] | None = None,
) -> pulumi.Output[Result]:
    """A job by `name` (which must be unique) or by `job_id`."""
    exactly_one("get_job", name=name, job_id=job_id)
    return lookup_output(connection, find_job, name=name, job_id=job_id)


def get_job_run(
    connection: pulumi.Input[dict], *, run_id: pulumi.Input[int]
) -> pulumi.Output[Result]:
    """A run of a job by its `run_id`, with its life-cycle and result state."""
    exactly_one("get_job_run", run_id=run_id)
    return lookup_output(connection, find_job_run, run_id=run_id)


def find_job(client: WorkspaceClient, *, name: str | None = None, job_id: Any = None) -> Result:
    """The job with its full settings (every task and job cluster, in the canonical
    multi-task shape)."""
    if job_id is None:
        # A listing leaves tasks and job clusters out: it only tells the id.
        named = [
            j for j in JobsApi(client).list(name) if (j.get("settings") or {}).get("name") == name
        ]
        job_id = only_one(client, named, f"job named {name!r}", "job_id")["job_id"]
    with nothing_if_gone(client, f"job with job_id {job_id!r}"):
        return JobInfo.from_service(JobsApi(client).get(as_id(job_id, "job id"))).as_output()


def find_job_run(client: WorkspaceClient, *, run_id: Any) -> Result:
    with nothing_if_gone(client, f"job run with run_id {run_id!r}"):
        return JobRunInfo.from_service(JobsApi(client).get_run(as_id(run_id, "run id"))).as_output()


class JobInfo(LookupResult):
    job_id: int
    name: str
    settings: dict[str, Any]
    created_time: int | None = None
    creator_user_name: str | None = None

    @classmethod
    def from_service(cls, job: dict[str, Any]) -> JobInfo:
        settings = job.get("settings") or {}
        return cls.model_validate({**job, "name": settings.get("name", ""), "settings": settings})


def _states(item: dict[str, Any]) -> dict[str, Any]:
    """The life-cycle state, result and message of a run or of one task's run."""
    state = item.get("state") or {}
    return {name: state.get(name) for name in ("life_cycle_state", "result_state", "state_message")}


class JobRunTaskInfo(LookupResult):
    """The run of one task of a job's run."""

    task_key: str
    run_id: int | None = None
    life_cycle_state: str | None = None
    result_state: str | None = None
    state_message: str | None = None

    @classmethod
    def from_service(cls, task: dict[str, Any]) -> JobRunTaskInfo:
        return cls.model_validate({**task, **_states(task)})


class JobRunInfo(LookupResult):
    run_id: int
    job_id: int
    number_in_job: int | None = None
    life_cycle_state: str
    result_state: str | None = None
    state_message: str | None = None
    run_page_url: str | None = None
    start_time: int | None = None
    end_time: int | None = None
    python_params: list[str] = Field(default_factory=list)
    # name -> the value the run used (the job parameter's default where none was given).
    job_parameters: dict[str, str] = Field(default_factory=dict)
    tasks: list[JobRunTaskInfo] = Field(default_factory=list)

    @classmethod
    def from_service(cls, run: dict[str, Any]) -> JobRunInfo:
        overriding = run.get("overriding_parameters") or {}
        return cls.model_validate(
            {
                **run,
                **_states(run),
                "python_params": overriding.get("python_params") or [],
                "job_parameters": _job_parameters(run),
                "tasks": [JobRunTaskInfo.from_service(task) for task in run.get("tasks") or []],
            }
        )


def _job_parameters(run: dict[str, Any]) -> dict[str, str]:
    """A run lists every job parameter with its default and the value given (Jobs 2.1+);
    without that list, the values run-now gave are what is known."""
    listed = run.get("job_parameters")
    if not isinstance(listed, list):
        return dict((run.get("overriding_parameters") or {}).get("job_parameters") or {})
    values = {p.get("name"): p.get("value", p.get("default")) for p in listed}
    return {name: value for name, value in values.items() if name and value is not None}
