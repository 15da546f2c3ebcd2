"""The Files API on volumes: `/api/2.0/fs/files{path}` (a file's raw bytes in and out) and
`/api/2.0/fs/directories{path}`. Bodies are raw bytes, streamed in and out in parts
(model.py keeps them)."""

from __future__ import annotations

from collections.abc import Iterator
from email.utils import formatdate

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from workspace_emulator.errors import InvalidParameter
from workspace_emulator.platform.areas.unity_catalog.files.model import (
    PART_BYTES,
    FileInfo,
    VolumeFiles,
)
from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import ok

router = APIRouter(prefix="/api/2.0/fs", tags=["files"])

OCTET_STREAM = "application/octet-stream"


def _flag(value: str | None, field: str, default: bool) -> bool:
    if value is None:
        return default
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise InvalidParameter(f"{field} must be true or false, got '{value}'.")


def _headers(info: FileInfo) -> dict[str, str]:
    return {"content-length": str(info.size), "content-type": OCTET_STREAM,
            "last-modified": formatdate(info.modified_ms / 1000, usegmt=True)}


@router.put("/files{file_path:path}")
async def upload(file_path: str, request: Request, ws: WorkspaceDep, _: CallerDep,
                 overwrite: str | None = None) -> Response:
    files: VolumeFiles = ws.files
    # The SDK: overwrite "true or unspecified" replaces an existing file.
    pending = files.begin_upload(file_path, _flag(overwrite, "overwrite", True))
    size, seq, buffer = 0, 0, bytearray()
    try:
        async for chunk in request.stream():
            size += len(chunk)
            files.refuse_oversize(size)
            buffer += chunk
            while len(buffer) >= PART_BYTES:
                files.store_part(pending, seq, bytes(buffer[:PART_BYTES]))
                del buffer[:PART_BYTES]
                seq += 1
        if buffer:
            files.store_part(pending, seq, bytes(buffer))
        files.finish_upload(pending, size)
    except BaseException:
        files.discard(pending)
        raise
    return Response(status_code=204)


@router.get("/files{file_path:path}")
async def download(file_path: str, ws: WorkspaceDep, _: CallerDep) -> Response:
    files: VolumeFiles = ws.files
    info = files.file(file_path)

    def body() -> Iterator[bytes]:
        yield from files.parts(info.content)

    return StreamingResponse(body(), media_type=OCTET_STREAM, headers=_headers(info))


@router.head("/files{file_path:path}")
async def file_metadata(file_path: str, ws: WorkspaceDep, _: CallerDep) -> Response:
    return Response(status_code=200, headers=_headers(ws.files.file(file_path)))


@router.delete("/files{file_path:path}")
async def delete_file(file_path: str, ws: WorkspaceDep, _: CallerDep) -> Response:
    ws.files.delete_file(file_path)
    return Response(status_code=204)


@router.put("/directories{directory_path:path}")
async def create_directory(directory_path: str, ws: WorkspaceDep, _: CallerDep) -> Response:
    ws.files.create_directory(directory_path)
    return Response(status_code=204)


@router.get("/directories{directory_path:path}")
async def list_directory(directory_path: str, ws: WorkspaceDep, _: CallerDep,
                         page_size: int | None = None,
                         page_token: str | None = None) -> JSONResponse:
    return ok(ws.files.list_directory(directory_path, page_size, page_token))


@router.head("/directories{directory_path:path}")
async def directory_metadata(directory_path: str, ws: WorkspaceDep, _: CallerDep
                             ) -> Response:
    ws.files.directory(directory_path)
    return Response(status_code=200)


@router.delete("/directories{directory_path:path}")
async def delete_directory(directory_path: str, ws: WorkspaceDep, _: CallerDep) -> Response:
    ws.files.delete_directory(directory_path)
    return Response(status_code=204)
