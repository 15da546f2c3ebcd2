"""Unity Catalog 2.1 routes of tables (views and materialized views among them) and
functions."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.1/unity-catalog", tags=["unity-catalog"])


class TableBody(Open):
    name: str | None = None
    catalog_name: str | None = None
    schema_name: str | None = None
    table_type: str | None = None
    data_source_format: str | None = None
    storage_location: str | None = None
    columns: list[Any] | None = None
    properties: dict[str, Any] | None = None


class FunctionBody(Open):
    function_info: dict[str, Any] | None = None


@router.post("/tables")
async def create_table(body: TableBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok(ws.tables.tables.create(body.as_request(), caller))


@router.get("/tables")
async def list_tables(
    ws: WorkspaceDep, _: CallerDep, catalog_name: str, schema_name: str,
    max_results: int | None = None, page_token: str | None = None,
    include_browse: bool | None = None, omit_columns: bool | None = None,
    omit_properties: bool | None = None,
) -> JSONResponse:
    return ok({"tables": ws.tables.tables.list(catalog_name, schema_name)})


@router.get("/tables/{full_name}/exists")
async def table_exists(full_name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"table_exists": ws.tables.tables.exists(full_name)})


@router.get("/tables/{full_name}")
async def get_table(full_name: str, ws: WorkspaceDep, _: CallerDep,
                    include_browse: bool | None = None,
                    include_delta_metadata: bool | None = None) -> JSONResponse:
    return ok(ws.tables.tables.get(full_name))


@router.delete("/tables/{full_name}")
async def delete_table(full_name: str, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    ws.tables.tables.delete(full_name, caller)
    return ok()


@router.post("/functions")
async def create_function(body: FunctionBody, ws: WorkspaceDep, caller: CallerDep
                          ) -> JSONResponse:
    return ok(ws.tables.functions.create(body.function_info, caller))


@router.get("/functions")
async def list_functions(
    ws: WorkspaceDep, _: CallerDep, catalog_name: str, schema_name: str,
    max_results: int | None = None, page_token: str | None = None,
    include_browse: bool | None = None,
) -> JSONResponse:
    return ok({"functions": ws.tables.functions.list(catalog_name, schema_name)})


@router.get("/functions/{name}")
async def get_function(name: str, ws: WorkspaceDep, _: CallerDep,
                       include_browse: bool | None = None) -> JSONResponse:
    return ok(ws.tables.functions.get(name))


@router.delete("/functions/{name}")
async def delete_function(name: str, ws: WorkspaceDep, caller: CallerDep,
                          force: bool | None = None) -> JSONResponse:
    ws.tables.functions.delete(name, caller)
    return ok()
