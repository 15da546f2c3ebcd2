"""Unity Catalog 2.1 routes of connections (Lakehouse federation)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.1/unity-catalog", tags=["unity-catalog"])


class ConnectionBody(Open):
    name: str | None = None
    connection_type: str | None = None
    options: dict[str, Any] | None = None
    comment: str | None = None
    properties: dict[str, Any] | None = None
    read_only: bool | None = None


class ConnectionChanges(Open):
    options: dict[str, Any] | None = None
    new_name: str | None = None
    owner: str | None = None


@router.post("/connections")
async def create_connection(body: ConnectionBody, ws: WorkspaceDep, caller: CallerDep
                            ) -> JSONResponse:
    return ok(ws.connections.create(body.as_request(), caller))


@router.get("/connections")
async def list_connections(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"connections": ws.connections.all()})


@router.get("/connections/{name}")
async def get_connection(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.connections.get(name))


@router.patch("/connections/{name}")
async def update_connection(name: str, body: ConnectionChanges, ws: WorkspaceDep,
                            caller: CallerDep) -> JSONResponse:
    return ok(ws.connections.update(name, body.as_request(), caller))


@router.delete("/connections/{name}")
async def delete_connection(name: str, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    ws.connections.delete(name, caller)
    return ok()
