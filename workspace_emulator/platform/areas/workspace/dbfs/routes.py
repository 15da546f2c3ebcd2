"""DBFS under /api/2.0/dbfs: JSON in and out, file bytes as base64 (model.py keeps them)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from workspace_emulator.platform.areas.workspace.dbfs.model import Dbfs
from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, QueryParameters, ok

router = APIRouter(prefix="/api/2.0/dbfs", tags=["dbfs"])


class PutBody(Open):
    path: str | None = None
    contents: str | None = None
    overwrite: bool | None = None


class CreateBody(Open):
    path: str | None = None
    overwrite: bool | None = None


class BlockBody(Open):
    handle: int | None = None
    data: str | None = None


class HandleBody(Open):
    handle: int | None = None


class PathBody(Open):
    path: str | None = None


class DeleteBody(Open):
    path: str | None = None
    recursive: bool | None = None


class MoveBody(Open):
    source_path: str | None = None
    destination_path: str | None = None


class PathParameters(QueryParameters):
    path: str | None = None


class ReadParameters(QueryParameters):
    path: str | None = None
    offset: int | None = None
    length: int | None = None


def _dbfs(ws: WorkspaceDep) -> Dbfs:
    dbfs: Dbfs = ws.dbfs
    return dbfs


@router.post("/put")
async def put(body: PutBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    _dbfs(ws).put(body.path, body.contents, bool(body.overwrite))
    return ok()


@router.post("/create")
async def create(body: CreateBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"handle": _dbfs(ws).create(body.path, bool(body.overwrite))})


@router.post("/add-block")
async def add_block(body: BlockBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    _dbfs(ws).add_block(body.handle, body.data)
    return ok()


@router.post("/close")
async def close(body: HandleBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    _dbfs(ws).close(body.handle)
    return ok()


@router.post("/mkdirs")
async def mkdirs(body: PathBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    _dbfs(ws).mkdirs(body.path)
    return ok()


@router.post("/delete")
async def delete(body: DeleteBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    _dbfs(ws).delete(body.path, bool(body.recursive))
    return ok()


@router.post("/move")
async def move(body: MoveBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    _dbfs(ws).move(body.source_path, body.destination_path)
    return ok()


@router.get("/get-status", openapi_extra=PathParameters.openapi())
async def get_status(request: Request, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(_dbfs(ws).get_status(PathParameters.of(request).path))


@router.get("/list", openapi_extra=PathParameters.openapi())
async def list_directory(request: Request, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(_dbfs(ws).list(PathParameters.of(request).path))


@router.get("/read", openapi_extra=ReadParameters.openapi())
async def read(request: Request, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    query = ReadParameters.of(request)
    return ok(_dbfs(ws).read(query.path, query.offset, query.length))
