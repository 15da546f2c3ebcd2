"""Lakeview dashboards under /api/2.0/lakeview/dashboards: create, get, list, update,
trash, and the published copy (publish, get, unpublish)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0/lakeview/dashboards", tags=["lakeview"])


class DashboardBody(Open):
    """A dashboard's fields (model.py checks them)."""

    display_name: str | None = None


class PublishBody(Open):
    embed_credentials: bool | None = None
    warehouse_id: str | None = None


@router.post("")
async def create_dashboard(body: DashboardBody, ws: WorkspaceDep,
                           caller: CallerDep) -> JSONResponse:
    return ok(ws.lakeview.create(body.as_request(), caller.application_id))


@router.get("")
async def list_dashboards(ws: WorkspaceDep, _: CallerDep, page_size: int | None = None,
                          page_token: str | None = None,
                          show_trashed: bool = False) -> JSONResponse:
    return ok(ws.lakeview.list(page_size, page_token, show_trashed))


@router.get("/{dashboard_id}")
async def get_dashboard(dashboard_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.lakeview.get(dashboard_id))


@router.patch("/{dashboard_id}")
async def update_dashboard(dashboard_id: str, body: DashboardBody, ws: WorkspaceDep,
                           _: CallerDep) -> JSONResponse:
    return ok(ws.lakeview.update(dashboard_id, body.as_request()))


@router.delete("/{dashboard_id}")
async def trash_dashboard(dashboard_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.lakeview.trash(dashboard_id)
    return ok()


@router.post("/{dashboard_id}/published")
async def publish_dashboard(dashboard_id: str, body: PublishBody, ws: WorkspaceDep,
                            _: CallerDep) -> JSONResponse:
    return ok(ws.lakeview.publish(dashboard_id, body.as_request()))


@router.get("/{dashboard_id}/published")
async def get_published(dashboard_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.lakeview.get_published(dashboard_id))


@router.delete("/{dashboard_id}/published")
async def unpublish_dashboard(dashboard_id: str, ws: WorkspaceDep,
                              _: CallerDep) -> JSONResponse:
    ws.lakeview.unpublish(dashboard_id)
    return ok()
