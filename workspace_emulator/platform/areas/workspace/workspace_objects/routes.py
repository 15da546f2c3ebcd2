"""The workspace objects API: import, export, get-status, list, mkdirs, delete.

Import takes its content as base64 in a JSON body (the API's form, the CLI's), or as the
`content` part of a multipart form with the other fields as form fields (the SDK's
`workspace.upload`). Export answers `{content, file_type}`, or the bytes themselves with
`direct_download=true` (the SDK's `workspace.download`).
"""

from __future__ import annotations

import base64
import binascii
import email.parser
import email.policy
import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError

from workspace_emulator.errors import InvalidParameter, MalformedRequest
from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, QueryParameters, ok

router = APIRouter(prefix="/api/2.0/workspace")


class ImportBody(Open):
    path: str
    content: str | None = None
    format: str | None = None
    language: str | None = None
    overwrite: bool | None = None


class PathBody(Open):
    path: str


class DeleteBody(Open):
    path: str
    recursive: bool | None = None


class ExportParameters(QueryParameters):
    path: str
    format: str | None = None
    direct_download: bool | None = None


class ListParameters(QueryParameters):
    path: str
    notebooks_modified_after: int | None = None


_IMPORT_BODY = {"requestBody": {"required": True, "content": {
    "application/json": {"schema": ImportBody.model_json_schema()}}}}


@router.get("/get-status", tags=["workspace"])
async def get_status(path: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.workspace_objects.get_status(path))


@router.get("/list", tags=["workspace"], openapi_extra=ListParameters.openapi())
async def list_objects(request: Request, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    query = ListParameters.of(request)
    return ok(ws.workspace_objects.list(query.path, query.notebooks_modified_after))


@router.post("/mkdirs", tags=["workspace"])
async def mkdirs(body: PathBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.workspace_objects.mkdirs(body.path)
    return ok()


@router.post("/delete", tags=["workspace"])
async def delete(body: DeleteBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.workspace_objects.delete(body.path, bool(body.recursive))
    return ok()


@router.post("/import", tags=["workspace"], openapi_extra=_IMPORT_BODY)
async def import_object(request: Request, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    body = await request.body()
    content_type = request.headers.get("content-type", "")
    if content_type.lower().startswith("multipart/form-data"):
        fields, content = _multipart(content_type, body)
    else:
        fields, content = _json_import(body)
    overwrite = fields.get("overwrite")
    ws.workspace_objects.import_(
        fields["path"], content, fields.get("format"), fields.get("language"),
        overwrite is True or (isinstance(overwrite, str) and overwrite.lower() == "true"))
    return ok()


@router.get("/export", tags=["workspace"], openapi_extra=ExportParameters.openapi())
async def export(request: Request, ws: WorkspaceDep, _: CallerDep) -> Response:
    query = ExportParameters.of(request)
    content, file_type = ws.workspace_objects.export(query.path, query.format)
    if query.direct_download:
        return Response(content, media_type="application/octet-stream")
    return ok({"content": base64.b64encode(content).decode(), "file_type": file_type})


def _json_import(body: bytes) -> tuple[dict[str, Any], bytes]:
    try:
        parsed = json.loads(body or b"{}")
    except (ValueError, RecursionError):  # nested deeper than a parser goes: not a body either
        raise MalformedRequest("The request body is not JSON.") from None
    try:
        fields = ImportBody.model_validate(parsed).as_request()
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "body"
        raise InvalidParameter(f"{where}: {first['msg']}") from None
    try:
        content = base64.b64decode(fields.get("content") or "", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidParameter("content must be base64-encoded.") from None
    return fields, content


def _multipart(content_type: str, body: bytes) -> tuple[dict[str, Any], bytes]:
    """The form fields and the `content` part of a multipart/form-data body."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body)
    if not message.is_multipart():
        raise MalformedRequest("The multipart form could not be read.")
    fields: dict[str, Any] = {}
    content = b""
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        if name == "content":
            content = data
        elif isinstance(name, str):
            fields[name] = data.decode("utf-8", "replace")
    if not isinstance(fields.get("path"), str):
        raise InvalidParameter("path is required.")
    return fields, content
