"""Pipelines under /api/2.0/pipelines: create, get, edit, delete, list, updates (start, get,
list), stop and events."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Int64, Open, ok

router = APIRouter(prefix="/api/2.0/pipelines", tags=["pipelines"])


class PipelineBody(Open):
    """A create or edit body: the settings (the SDK's PipelineSpec; spec.py checks them)
    and the request's own fields. `schema` comes as an undeclared field: the name is
    pydantic's own."""

    name: str | None = None
    catalog: str | None = None
    target: str | None = None
    storage: str | None = None
    serverless: bool | None = None
    allow_duplicate_names: bool | None = None
    dry_run: bool | None = None
    expected_last_modified: Int64 | None = None


class StartUpdateBody(Open):
    full_refresh: bool | None = None
    validate_only: bool | None = None
    refresh_selection: list[str] | None = None
    full_refresh_selection: list[str] | None = None
    cause: str | None = None


OrderBy = Annotated[list[str] | None, Query()]


@router.post("")
async def create_pipeline(body: PipelineBody, ws: WorkspaceDep,
                          caller: CallerDep) -> JSONResponse:
    return ok(ws.pipelines.create(body.as_request(), caller))


@router.get("")
async def list_pipelines(ws: WorkspaceDep, _: CallerDep, filter: str | None = None,
                         max_results: int | None = None, order_by: OrderBy = None,
                         page_token: str | None = None) -> JSONResponse:
    return ok(ws.pipelines.list_pipelines(filter, max_results, order_by, page_token))


@router.get("/{pipeline_id}")
async def get_pipeline(pipeline_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.pipelines.get(pipeline_id))


@router.put("/{pipeline_id}")
async def edit_pipeline(pipeline_id: str, body: PipelineBody, ws: WorkspaceDep,
                        _: CallerDep) -> JSONResponse:
    ws.pipelines.edit(pipeline_id, body.as_request())
    return ok()


@router.delete("/{pipeline_id}")
async def delete_pipeline(pipeline_id: str, ws: WorkspaceDep, _: CallerDep,
                          cascade: bool | None = None, force: bool | None = None
                          ) -> JSONResponse:
    ws.pipelines.delete(pipeline_id)
    return ok()


@router.post("/{pipeline_id}/updates")
async def start_update(pipeline_id: str, body: StartUpdateBody, ws: WorkspaceDep,
                       _: CallerDep) -> JSONResponse:
    return ok(ws.pipelines.start_update(pipeline_id, body.as_request()))


@router.get("/{pipeline_id}/updates")
async def list_updates(pipeline_id: str, ws: WorkspaceDep, _: CallerDep,
                       max_results: int | None = None, page_token: str | None = None,
                       until_update_id: str | None = None) -> JSONResponse:
    return ok(ws.pipelines.list_updates(pipeline_id, max_results, page_token,
                                        until_update_id))


@router.get("/{pipeline_id}/updates/{update_id}")
async def get_update(pipeline_id: str, update_id: str, ws: WorkspaceDep,
                     _: CallerDep) -> JSONResponse:
    return ok(ws.pipelines.get_update(pipeline_id, update_id))


@router.post("/{pipeline_id}/stop")
async def stop_pipeline(pipeline_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.pipelines.stop(pipeline_id)
    return ok()


@router.get("/{pipeline_id}/events")
async def list_events(pipeline_id: str, ws: WorkspaceDep, _: CallerDep,
                      filter: str | None = None, max_results: int | None = None,
                      order_by: OrderBy = None, page_token: str | None = None
                      ) -> JSONResponse:
    return ok(ws.pipelines.events(pipeline_id, filter, max_results, order_by, page_token))
