"""Apps under /api/2.0/apps: create, list, get, update, delete, start, stop, deployments."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0/apps", tags=["apps"])


class AppBody(Open):
    """An app's settings (model.py checks them)."""

    name: str | None = None


@router.get("")
async def list_apps(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"apps": ws.apps.all()})


@router.post("")
async def create_app(body: AppBody, ws: WorkspaceDep, caller: CallerDep,
                     no_compute: bool = False) -> JSONResponse:
    return ok(ws.apps.create(body.as_request(), caller.application_id, no_compute))


@router.get("/{name}")
async def get_app(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.apps.get(name))


@router.patch("/{name}")
async def update_app(name: str, body: AppBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.apps.update(name, body.as_request()))


@router.delete("/{name}")
async def delete_app(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.apps.delete(name))


@router.post("/{name}/start")
async def start_app(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.apps.start(name))


@router.post("/{name}/stop")
async def stop_app(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.apps.stop(name))


@router.get("/{name}/deployments")
async def list_deployments(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"app_deployments": ws.apps.deployments(name)})


@router.post("/{name}/deployments")
async def deploy_app(name: str, body: Open, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok(ws.apps.deploy(name, body.as_request(), caller.application_id))


@router.get("/{name}/deployments/{deployment_id}")
async def get_deployment(name: str, deployment_id: str, ws: WorkspaceDep,
                         _: CallerDep) -> JSONResponse:
    return ok(ws.apps.deployment(name, deployment_id))
