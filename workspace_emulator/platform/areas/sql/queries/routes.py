"""Queries under /api/2.0/sql/queries: create, get, list, update (an update mask), delete
(to the trash)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0/sql/queries", tags=["sql-queries"])


class CreateBody(Open):
    query: dict[str, Any] | None = None
    auto_resolve_display_name: bool | None = None


class UpdateBody(Open):
    update_mask: str | None = None
    query: dict[str, Any] | None = None
    auto_resolve_display_name: bool | None = None


@router.post("")
async def create_query(body: CreateBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok(ws.queries.create(body.query, caller.application_id))


@router.get("")
async def list_queries(ws: WorkspaceDep, _: CallerDep, page_size: int | None = None,
                       page_token: str | None = None) -> JSONResponse:
    return ok(ws.queries.list(page_size, page_token))


@router.get("/{query_id}")
async def get_query(query_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.queries.get(query_id))


@router.patch("/{query_id}")
async def update_query(query_id: str, body: UpdateBody, ws: WorkspaceDep,
                       caller: CallerDep) -> JSONResponse:
    return ok(ws.queries.update(query_id, body.update_mask, body.query, caller.application_id))


@router.delete("/{query_id}")
async def delete_query(query_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.queries.trash(query_id)
    return ok()
