"""Model serving endpoints under /api/2.0/serving-endpoints: create, list, get, delete,
config update, AI gateway, tags."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0/serving-endpoints", tags=["serving-endpoints"])


class EndpointBody(Open):
    """An endpoint's create body (model.py checks it)."""

    name: str | None = None


class TagsBody(Open):
    add_tags: list[dict] | None = None
    delete_tags: list[str] | None = None


@router.get("")
async def list_endpoints(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"endpoints": ws.serving_endpoints.all()})


@router.post("")
async def create_endpoint(body: EndpointBody, ws: WorkspaceDep,
                          caller: CallerDep) -> JSONResponse:
    return ok(ws.serving_endpoints.create(body.as_request(), caller.application_id))


@router.get("/{name}")
async def get_endpoint(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.serving_endpoints.get(name))


@router.delete("/{name}")
async def delete_endpoint(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.serving_endpoints.delete(name)
    return ok()


@router.put("/{name}/config")
async def update_config(name: str, body: Open, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.serving_endpoints.update_config(name, body.as_request()))


@router.put("/{name}/ai-gateway")
async def put_ai_gateway(name: str, body: Open, ws: WorkspaceDep,
                         _: CallerDep) -> JSONResponse:
    return ok(ws.serving_endpoints.put_ai_gateway(name, body.as_request()))


@router.patch("/{name}/tags")
async def patch_tags(name: str, body: TagsBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"tags": ws.serving_endpoints.patch_tags(name, body.add_tags, body.delete_tags)})
