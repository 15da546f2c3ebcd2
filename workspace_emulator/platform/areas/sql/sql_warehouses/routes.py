"""SQL warehouses under /api/2.0/sql/warehouses: create, list, get, edit, delete, start,
stop."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0/sql/warehouses", tags=["sql-warehouses"])


class WarehouseBody(Open):
    """A warehouse's settings (every field the service takes; model.py checks them)."""

    name: str | None = None
    cluster_size: str | None = None


@router.get("")
async def list_warehouses(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"warehouses": ws.sql_warehouses.all()})


@router.post("")
async def create_warehouse(body: WarehouseBody, ws: WorkspaceDep,
                           caller: CallerDep) -> JSONResponse:
    return ok({"id": ws.sql_warehouses.create(body.as_request(), caller.application_id)})


@router.get("/{warehouse_id}")
async def get_warehouse(warehouse_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.sql_warehouses.get(warehouse_id))


@router.post("/{warehouse_id}/edit")
async def edit_warehouse(warehouse_id: str, body: WarehouseBody, ws: WorkspaceDep,
                         _: CallerDep) -> JSONResponse:
    ws.sql_warehouses.edit(warehouse_id, body.as_request())
    return ok()


@router.delete("/{warehouse_id}")
async def delete_warehouse(warehouse_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.sql_warehouses.delete(warehouse_id)
    return ok()


@router.post("/{warehouse_id}/start")
async def start_warehouse(warehouse_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.sql_warehouses.start(warehouse_id)
    return ok()


@router.post("/{warehouse_id}/stop")
async def stop_warehouse(warehouse_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.sql_warehouses.stop(warehouse_id)
    return ok()
