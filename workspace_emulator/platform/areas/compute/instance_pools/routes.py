"""Instance pools under /api/2.0/instance-pools: create, edit, get, list, delete."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0/instance-pools", tags=["instance-pools"])


class PoolBody(Open):
    """A pool's settings (every field the service takes; model.py checks them)."""

    instance_pool_name: str | None = None
    node_type_id: str | None = None


class PoolIdBody(Open):
    instance_pool_id: str


@router.post("/create")
async def create_pool(body: PoolBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok({"instance_pool_id": ws.instance_pools.create(body.as_request(),
                                                            caller.application_id)})


@router.post("/edit")
async def edit_pool(body: PoolBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.instance_pools.edit(body.as_request())
    return ok()


@router.get("/get")
async def get_pool(instance_pool_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.instance_pools.get(instance_pool_id))


@router.get("/list")
async def list_pools(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"instance_pools": ws.instance_pools.all()})


@router.post("/delete")
async def delete_pool(body: PoolIdBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.instance_pools.delete(body.instance_pool_id)
    return ok()
