"""Alerts under /api/2.0/sql/alerts: create, get, list, update (an update mask), delete
(to the trash)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0/sql/alerts", tags=["sql-alerts"])


class CreateBody(Open):
    alert: dict[str, Any] | None = None
    auto_resolve_display_name: bool | None = None


class UpdateBody(Open):
    update_mask: str | None = None
    alert: dict[str, Any] | None = None
    auto_resolve_display_name: bool | None = None


@router.post("")
async def create_alert(body: CreateBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok(ws.alerts.create(body.alert, caller.application_id))


@router.get("")
async def list_alerts(ws: WorkspaceDep, _: CallerDep, page_size: int | None = None,
                      page_token: str | None = None) -> JSONResponse:
    return ok(ws.alerts.list(page_size, page_token))


@router.get("/{alert_id}")
async def get_alert(alert_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.alerts.get(alert_id))


@router.patch("/{alert_id}")
async def update_alert(alert_id: str, body: UpdateBody, ws: WorkspaceDep,
                       _: CallerDep) -> JSONResponse:
    return ok(ws.alerts.update(alert_id, body.update_mask, body.alert))


@router.delete("/{alert_id}")
async def delete_alert(alert_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.alerts.trash(alert_id)
    return ok()
