"""DirectRoute answers every request exactly as FastAPI's own handler does: each request
below goes to the same app twice, once served directly and once through FastAPI's handler
(a dependency override, even of an unused dependency, makes a direct route hand over), and
the two answers (status, headers, body) and the dependency's calls must be the same."""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from typing import Annotated, Any

import pytest
from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from emulator.platform.direct_route import DirectRoute


class Body(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    count: int | None = None


class Refused(Exception):
    pass


async def caller(request: Request) -> str:
    request.app.state.caller_calls += 1
    who = request.headers.get("x-caller")
    if who is None:
        raise Refused()
    return who


async def unused() -> None:
    """Overridden in the reference runs only."""


CallerDep = Annotated[str, Depends(caller)]
router = APIRouter(route_class=DirectRoute)


@router.post("/things")
async def create_thing(body: Body, request: Request, who: CallerDep) -> JSONResponse:
    return JSONResponse({"by": who, "body": body.model_dump(exclude_unset=True),
                         "path": request.url.path})


@router.post("/plain")
async def plain(request: Request, who: CallerDep) -> JSONResponse:
    return JSONResponse({"by": who})


@router.get("/with-query")
async def with_query(limit: int, who: CallerDep) -> JSONResponse:
    return JSONResponse({"by": who, "limit": limit})


def make_app(strict_content_type: bool) -> FastAPI:
    async def refused(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": "who are you?"}, status_code=401)

    app = FastAPI(strict_content_type=strict_content_type,
                  exception_handlers={Refused: refused})
    app.include_router(router, prefix="/api")
    app.state.caller_calls = 0
    return app


def call(app: FastAPI, method: str, path: str, body: bytes,
         headers: list[tuple[bytes, bytes]]) -> tuple[int, list, bytes, int]:
    sent: list[MutableMapping[str, Any]] = []
    path, _, query = path.partition("?")

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "root_path": "",
             "headers": [(b"host", b"test"), *headers], "client": ("127.0.0.1", 1),
             "server": ("127.0.0.1", 2), "state": {}}
    calls_before = app.state.caller_calls
    asyncio.run(app(scope, receive, send))
    start, *chunks = sent
    return (start["status"], start["headers"], b"".join(c.get("body", b"") for c in chunks),
            app.state.caller_calls - calls_before)


JSON = (b"content-type", b"application/json")
WHO = (b"x-caller", b"sp-1")
VALID = json.dumps({"name": "job", "count": 3, "extra": [1, 2]}).encode()

REQUESTS = {
    "valid": ("POST", "/api/things", VALID, [JSON, WHO]),
    "valid, charset given": ("POST", "/api/things", VALID,
                             [(b"content-type", b"application/json; charset=utf-8"), WHO]),
    "valid, no caller": ("POST", "/api/things", VALID, [JSON]),
    "invalid field": ("POST", "/api/things", b'{"name": 1, "count": "x"}', [JSON, WHO]),
    "invalid field, no caller": ("POST", "/api/things", b'{"count": true}', [JSON]),
    "malformed JSON": ("POST", "/api/things", b'{"name": ', [JSON, WHO]),
    "malformed JSON, no caller": ("POST", "/api/things", b'{"name": ', [JSON]),
    "not UTF-8": ("POST", "/api/things", b'{"name": "\xff"}', [JSON, WHO]),
    "empty body": ("POST", "/api/things", b"", [JSON, WHO]),
    "null body": ("POST", "/api/things", b"null", [JSON, WHO]),
    "array body": ("POST", "/api/things", b"[1]", [JSON, WHO]),
    "no content type": ("POST", "/api/things", VALID, [WHO]),
    "text content type": ("POST", "/api/things", VALID, [(b"content-type", b"text/plain"), WHO]),
    "JSON suffix content type": ("POST", "/api/things", VALID,
                                 [(b"content-type", b"application/merge-patch+json"), WHO]),
    "no body parameter": ("POST", "/api/plain", b"whatever", [WHO]),
    "no body parameter, no caller": ("POST", "/api/plain", b"", []),
    "query parameter": ("GET", "/api/with-query?limit=2", b"", [WHO]),
    "bad query parameter": ("GET", "/api/with-query?limit=x", b"", [WHO]),
    "wrong method": ("GET", "/api/things", b"", [WHO]),
}


@pytest.mark.parametrize("strict_content_type", [False, True])
@pytest.mark.parametrize("request_name", list(REQUESTS))
def test_same_answer_as_fastapi(request_name: str, strict_content_type: bool) -> None:
    method, path, body, headers = REQUESTS[request_name]
    direct = make_app(strict_content_type)
    reference = make_app(strict_content_type)
    reference.dependency_overrides[unused] = unused

    assert call(direct, method, path, body, headers) == \
        call(reference, method, path, body, headers)


def test_only_routes_of_the_plain_shape_are_served_directly() -> None:
    handlers = {route.path: route.get_route_handler().__name__
                for route in router.routes if isinstance(route, DirectRoute)}
    assert handlers == {"/things": "direct", "/plain": "direct", "/with-query": "app"}
