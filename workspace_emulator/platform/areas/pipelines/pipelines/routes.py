"""Pipelines under /api/2.0/pipelines: create, get, edit, delete, list, updates (start, get,
list), stop and events.

Each call on a pipeline needs a level of its access control list, which the
object_permissions area keeps (type `pipelines`): CAN_VIEW to read it, its updates and
events; CAN_RUN to start and stop updates; CAN_MANAGE to edit or delete it. A list shows
the pipelines the caller may view. Admins hold CAN_MANAGE on every pipeline; the creator
owns the one it made.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from workspace_emulator.errors import PermissionDenied
from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.directory import Caller
from workspace_emulator.platform.wire import Int64, Open, ok
from workspace_emulator.platform.workspace import Workspace

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
PERMISSION_TYPE = "pipelines"


def _authorised(ws: Workspace, pipeline_id: str, caller: Caller, level: str) -> None:
    """Refuses a caller without `level` on the pipeline (404 first when there is none)."""
    if caller.is_admin:
        return
    ws.pipelines.require(pipeline_id)  # the service's 404 for a missing pipeline first
    if not ws.object_permissions.allows(PERMISSION_TYPE, pipeline_id, caller, level):
        raise PermissionDenied(
            f"{caller.application_id} does not have {level} permission on pipeline "
            f"{pipeline_id}: ask its owner or an admin for it.")


@router.post("")
async def create_pipeline(body: PipelineBody, ws: WorkspaceDep,
                          caller: CallerDep) -> JSONResponse:
    return ok(ws.pipelines.create(body.as_request(), caller))


@router.get("")
async def list_pipelines(ws: WorkspaceDep, caller: CallerDep, filter: str | None = None,
                         max_results: int | None = None, order_by: OrderBy = None,
                         page_token: str | None = None) -> JSONResponse:
    def visible(pipeline_id: str) -> bool:
        return caller.is_admin or ws.object_permissions.allows(
            PERMISSION_TYPE, pipeline_id, caller, "CAN_VIEW")

    return ok(ws.pipelines.list_pipelines(filter, max_results, order_by, page_token,
                                          visible))


@router.get("/{pipeline_id}")
async def get_pipeline(pipeline_id: str, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    _authorised(ws, pipeline_id, caller, "CAN_VIEW")
    return ok(ws.pipelines.get(pipeline_id))


@router.put("/{pipeline_id}")
async def edit_pipeline(pipeline_id: str, body: PipelineBody, ws: WorkspaceDep,
                        caller: CallerDep) -> JSONResponse:
    _authorised(ws, pipeline_id, caller, "CAN_MANAGE")
    ws.pipelines.edit(pipeline_id, body.as_request())
    return ok()


@router.delete("/{pipeline_id}")
async def delete_pipeline(pipeline_id: str, ws: WorkspaceDep, caller: CallerDep,
                          cascade: bool | None = None, force: bool | None = None
                          ) -> JSONResponse:
    _authorised(ws, pipeline_id, caller, "CAN_MANAGE")
    ws.pipelines.delete(pipeline_id)
    return ok()


@router.post("/{pipeline_id}/updates")
async def start_update(pipeline_id: str, body: StartUpdateBody, ws: WorkspaceDep,
                       caller: CallerDep) -> JSONResponse:
    _authorised(ws, pipeline_id, caller, "CAN_RUN")
    return ok(ws.pipelines.start_update(pipeline_id, body.as_request()))


@router.get("/{pipeline_id}/updates")
async def list_updates(pipeline_id: str, ws: WorkspaceDep, caller: CallerDep,
                       max_results: int | None = None, page_token: str | None = None,
                       until_update_id: str | None = None) -> JSONResponse:
    _authorised(ws, pipeline_id, caller, "CAN_VIEW")
    return ok(ws.pipelines.list_updates(pipeline_id, max_results, page_token,
                                        until_update_id))


@router.get("/{pipeline_id}/updates/{update_id}")
async def get_update(pipeline_id: str, update_id: str, ws: WorkspaceDep,
                     caller: CallerDep) -> JSONResponse:
    _authorised(ws, pipeline_id, caller, "CAN_VIEW")
    return ok(ws.pipelines.get_update(pipeline_id, update_id))


@router.post("/{pipeline_id}/stop")
async def stop_pipeline(pipeline_id: str, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    _authorised(ws, pipeline_id, caller, "CAN_RUN")
    ws.pipelines.stop(pipeline_id)
    return ok()


@router.get("/{pipeline_id}/events")
async def list_events(pipeline_id: str, ws: WorkspaceDep, caller: CallerDep,
                      filter: str | None = None, max_results: int | None = None,
                      order_by: OrderBy = None, page_token: str | None = None
                      ) -> JSONResponse:
    _authorised(ws, pipeline_id, caller, "CAN_VIEW")
    return ok(ws.pipelines.events(pipeline_id, filter, max_results, order_by, page_token))
