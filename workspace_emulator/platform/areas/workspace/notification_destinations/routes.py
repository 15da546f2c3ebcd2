"""Notification destinations (model.py): create, list, get, update, delete."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import AdminDep, CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import ok

router = APIRouter(prefix="/api/2.0/notification-destinations",
                   tags=["notification-destinations"])


@router.post("")
async def create_destination(body: dict[str, Any], ws: WorkspaceDep,
                             _: AdminDep) -> JSONResponse:
    return ok(ws.notification_destinations.create(body))


@router.get("")
async def list_destinations(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"results": ws.notification_destinations.list()})


@router.get("/{destination_id}")
async def get_destination(destination_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.notification_destinations.get(destination_id))


@router.patch("/{destination_id}")
async def update_destination(destination_id: str, body: dict[str, Any], ws: WorkspaceDep,
                             _: AdminDep) -> JSONResponse:
    return ok(ws.notification_destinations.update(destination_id, body))


@router.delete("/{destination_id}")
async def delete_destination(destination_id: str, ws: WorkspaceDep,
                             _: AdminDep) -> JSONResponse:
    ws.notification_destinations.delete(destination_id)
    return ok()
