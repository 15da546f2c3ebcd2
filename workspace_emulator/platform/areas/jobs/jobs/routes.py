"""Jobs under /api/2.0, /api/2.1 and /api/2.2: CRUD, run-now, runs submit, get, list and
cancel.

One router serves the three versions; where they differ (how a job is shown, paging of its
arrays, default queueing) the model gets the version from the path.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import Field

from workspace_emulator.platform.areas.jobs.jobs.model import Jobs
from workspace_emulator.platform.auth import CallerDep
from workspace_emulator.platform.fast_lane import LaneRoute
from workspace_emulator.platform.wire import Id64, Int64, Open, QueryParameters, ok

router = APIRouter(tags=["jobs"], route_class=LaneRoute)


# The routes take the workspace and the API version from the request itself rather than as
# dependencies: FastAPI spends tens of microseconds solving each dependency of a request.


def _jobs(request: Request) -> Jobs:
    return request.app.state.workspace.jobs


def _api_version(request: Request) -> str:
    # The router is mounted under /api/<version>: "/api/2.1/jobs/get" -> "2.1". The scope's
    # path, not request.url: building the URL costs more than the whole split.
    return request.scope["path"].split("/")[2]


class Autoscale(Open):
    min_workers: Int64 | None = None
    max_workers: Int64 | None = None


class DbfsDestination(Open):
    destination: str | None = None


class InitScript(Open):
    dbfs: DbfsDestination | None = None


class PythonTask(Open):
    python_file: str | None = None
    parameters: list[str] | None = None


class ClusterLogConf(Open):
    dbfs: DbfsDestination | None = None
    spark_env_vars: dict[str, str] | None = Field(None, description="Seed form only.")


class PypiLibrary(Open):
    package: str | None = None


class Library(Open):
    pypi: PypiLibrary | None = None


class NewCluster(Open):
    name: str | None = None
    spark_version: str | None = None
    node_type_id: str | None = None
    num_workers: Int64 | None = None
    autoscale: Autoscale | None = None
    init_scripts: list[InitScript] | None = None
    cluster_log_conf: ClusterLogConf | None = None
    spark_env_vars: dict[str, str] | None = Field(None, description="Public form only.")
    libraries: list[Library] | None = None
    timeout_seconds: Int64 | None = Field(None, description="Seed form only.")
    max_retries: Int64 | None = Field(None, description="Seed form only.")
    spark_python_task: PythonTask | None = Field(None, description="Seed form only.")


class JobSettings(Open):
    """Either the legacy single-task shape (task settings at job level, seed or public
    nesting) or the multi-task shape (`tasks`, `job_clusters`); any other field of the
    public JobSettings is accepted and kept."""

    name: str | None = None
    new_cluster: NewCluster | None = Field(None, description="Legacy single-task shape.")
    existing_cluster_id: str | None = Field(None, description="Legacy single-task shape.")
    libraries: list[Library] | None = Field(None, description="Legacy single-task shape.")
    timeout_seconds: Int64 | None = None
    max_retries: Int64 | None = Field(None, description="Legacy single-task shape.")
    max_concurrent_runs: Int64 | None = None
    spark_python_task: PythonTask | None = Field(None, description="Legacy single-task shape.")
    tags: dict[str, str] | None = None
    tasks: list[dict[str, Any]] | None = None
    job_clusters: list[dict[str, Any]] | None = None
    run_as: dict[str, Any] | None = None
    queue: dict[str, Any] | None = None


class AclRequestEntry(Open):
    user_name: str | None = None
    group_name: str | None = None
    service_principal_name: str | None = None
    permission_level: str | None = None


class CreateJobBody(JobSettings):
    access_control_list: list[AclRequestEntry] | None = None


class JobIdBody(Open):
    job_id: Id64


class ResetJobBody(Open):
    job_id: Id64
    new_settings: JobSettings


class UpdateJobBody(Open):
    job_id: Id64
    new_settings: JobSettings | None = None
    fields_to_remove: list[str] | None = None


class RunNowBody(Open):
    job_id: Id64
    idempotency_token: str | None = None
    job_parameters: dict[str, str] | None = None
    python_params: list[str] | None = None
    jar_params: list[str] | None = None
    spark_submit_params: list[str] | None = None
    dbt_commands: list[str] | None = None
    notebook_params: dict[str, str] | None = None
    python_named_params: dict[str, str] | None = None
    sql_params: dict[str, str] | None = None
    pipeline_params: dict[str, Any] | None = None


class SubmitRunBody(Open):
    """A one-time run (runs/submit); any other field of the public SubmitRun is kept."""

    tasks: list[dict[str, Any]] | None = None
    run_name: str | None = None
    idempotency_token: str | None = None
    timeout_seconds: Int64 | None = None
    access_control_list: list[AclRequestEntry] | None = None
    environments: list[dict[str, Any]] | None = None
    git_source: dict[str, Any] | None = None
    run_as: dict[str, Any] | None = None
    queue: dict[str, Any] | None = None


class RunIdBody(Open):
    run_id: Id64


class CancelAllRunsBody(Open):
    job_id: Id64 | None = None
    all_queued_runs: bool | None = None


@router.post("/jobs/create")
async def create_job(
    body: CreateJobBody, request: Request, caller: CallerDep,
) -> JSONResponse:
    settings = body.as_request()
    acl = settings.pop("access_control_list", None)
    job_id = _jobs(request).create(settings, acl, caller, _api_version(request))
    return ok({"job_id": job_id})


@router.get("/jobs/get")
async def get_job(
    job_id: Id64, request: Request, caller: CallerDep,
    page_token: str | None = None,
) -> JSONResponse:
    return ok(_jobs(request).get(job_id, caller, _api_version(request), page_token))


class ListJobsQuery(QueryParameters):
    limit: Int64 | None = None
    offset: Int64 | None = None
    name: str | None = None
    page_token: str | None = None
    expand_tasks: bool = False


@router.get("/jobs/list", openapi_extra=ListJobsQuery.openapi())
async def list_jobs(request: Request, caller: CallerDep) -> JSONResponse:
    query = ListJobsQuery.of(request)
    return ok(_jobs(request).page(caller, _api_version(request), **query.model_dump()))


@router.post("/jobs/reset")
async def reset_job(
    body: ResetJobBody, request: Request, caller: CallerDep,
) -> JSONResponse:
    _jobs(request).reset(body.job_id, body.new_settings.as_request(), caller,
                         _api_version(request))
    return ok()


@router.post("/jobs/update")
async def update_job(
    body: UpdateJobBody, request: Request, caller: CallerDep,
) -> JSONResponse:
    new_settings = body.new_settings.as_request() if body.new_settings else None
    _jobs(request).update(body.job_id, new_settings, body.fields_to_remove, caller,
                          _api_version(request))
    return ok()


@router.post("/jobs/delete")
async def delete_job(
    body: JobIdBody, request: Request, caller: CallerDep,
) -> JSONResponse:
    _jobs(request).delete(body.job_id, caller)
    return ok()


@router.post("/jobs/run-now")
async def run_now(
    body: RunNowBody, request: Request, caller: CallerDep,
) -> JSONResponse:
    parameters = body.as_request()
    return ok(_jobs(request).run_now(body.job_id, parameters, body.idempotency_token, caller))


@router.post("/jobs/runs/submit")
async def submit_run(
    body: SubmitRunBody, request: Request, caller: CallerDep,
) -> JSONResponse:
    return ok(_jobs(request).submit(body.as_request(), caller))


@router.get("/jobs/runs/get")
async def get_run(
    run_id: Id64, request: Request, caller: CallerDep,
    page_token: str | None = None,
) -> JSONResponse:
    return ok(_jobs(request).get_run(run_id, caller, _api_version(request), page_token))


class ListRunsQuery(QueryParameters):
    job_id: Id64 | None = None
    active_only: bool = False
    completed_only: bool = False
    limit: Int64 | None = None
    offset: Int64 | None = None
    page_token: str | None = None
    expand_tasks: bool = False
    start_time_from: Int64 | None = None
    start_time_to: Int64 | None = None
    run_type: str | None = None


@router.get("/jobs/runs/list", openapi_extra=ListRunsQuery.openapi())
async def list_runs(request: Request, caller: CallerDep) -> JSONResponse:
    query = ListRunsQuery.of(request)
    return ok(_jobs(request).list_runs(caller, _api_version(request), **query.model_dump()))


@router.post("/jobs/runs/cancel")
async def cancel_run(body: RunIdBody, request: Request, caller: CallerDep) -> JSONResponse:
    _jobs(request).cancel_run(body.run_id, caller)
    return ok()


@router.post("/jobs/runs/cancel-all")
async def cancel_all_runs(
    body: CancelAllRunsBody, request: Request, caller: CallerDep,
) -> JSONResponse:
    _jobs(request).cancel_all_runs(body.job_id, bool(body.all_queued_runs), caller)
    return ok()
