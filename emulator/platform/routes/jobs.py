"""Jobs under /api/2.0, /api/2.1 and /api/2.2: CRUD, run-now and runs/get."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import Field

from emulator.platform.auth import CallerDep, WorkspaceDep
from emulator.platform.wire import Id64, Int64, Open, ok

router = APIRouter(tags=["jobs"])


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
    name: str | None = None
    new_cluster: NewCluster | None = None
    existing_cluster_id: str | None = None
    libraries: list[Library] | None = None
    timeout_seconds: Int64 | None = None
    max_retries: Int64 | None = None
    max_concurrent_runs: Int64 | None = None
    spark_python_task: PythonTask | None = None
    tags: dict[str, str] | None = None
    tasks: list[dict[str, Any]] | None = None


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
    python_params: list[str] | None = None
    idempotency_token: str | None = None


@router.post("/jobs/create")
async def create_job(
    body: CreateJobBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    settings = body.as_request()
    acl = settings.pop("access_control_list", None)
    return ok({"job_id": ws.jobs.create(settings, acl, caller)})


@router.get("/jobs/get")
async def get_job(
    job_id: Id64, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    return ok(ws.jobs.get(job_id, caller))


@router.get("/jobs/list")
async def list_jobs(
    ws: WorkspaceDep, caller: CallerDep,
    limit: Int64 | None = None, offset: Int64 | None = None, name: str | None = None,
    page_token: str | None = None, expand_tasks: bool | None = None,
) -> JSONResponse:
    return ok(ws.jobs.page(caller, limit=limit, offset=offset, name=name, page_token=page_token))


@router.post("/jobs/reset")
async def reset_job(
    body: ResetJobBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    ws.jobs.reset(body.job_id, body.new_settings.as_request(), caller)
    return ok()


@router.post("/jobs/update")
async def update_job(
    body: UpdateJobBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    new_settings = body.new_settings.as_request() if body.new_settings else None
    ws.jobs.update(body.job_id, new_settings, body.fields_to_remove, caller)
    return ok()


@router.post("/jobs/delete")
async def delete_job(
    body: JobIdBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    ws.jobs.delete(body.job_id, caller)
    return ok()


@router.post("/jobs/run-now")
async def run_now(
    body: RunNowBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    parameters = body.as_request()
    return ok(ws.jobs.run_now(body.job_id, parameters, body.idempotency_token, caller))


@router.get("/jobs/runs/get")
async def get_run(
    run_id: Id64, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    return ok(ws.jobs.get_run(run_id, caller))
