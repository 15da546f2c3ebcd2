"""The fast lane answers every request exactly as FastAPI alone does: each request below goes
to two identical apps, one with its lane and one where FastAPI serves everything (a
dependency override, even of a dependency no route uses, turns the lane off), and the two
answers (status, headers, body), the exception that escapes, and the dependency's and the
endpoint's calls must be the same."""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from typing import Annotated, Any

import pytest
from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict

from workspace_emulator.platform.fast_lane import FastLaneApp, LaneRoute


class Body(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    count: int | None = None


class Refused(Exception):
    pass


async def caller(request: Request) -> str:
    request.app.state.calls.append("caller")
    who = request.headers.get("x-caller")
    if who is None:
        raise Refused()
    return who


async def unused() -> None:
    """Overridden in the reference app only."""


CallerDep = Annotated[str, Depends(caller)]
lane_router = APIRouter(route_class=LaneRoute)
other_router = APIRouter()


@lane_router.post("/things")
async def create_thing(body: Body, request: Request, who: CallerDep) -> JSONResponse:
    request.app.state.calls.append("create")
    if body.name == "refuse":
        raise Refused()
    if body.name == "crash":
        raise KeyError("crash")
    return JSONResponse({"by": who, "body": body.model_dump(exclude_unset=True),
                         "path": request.url.path})


@lane_router.post("/plain")
async def plain(request: Request, who: CallerDep) -> JSONResponse:
    return JSONResponse({"by": who, "sent": (await request.body()).decode()})


@lane_router.get("/with-query")
async def with_query(limit: int, who: CallerDep) -> JSONResponse:
    return JSONResponse({"by": who, "limit": limit})


@other_router.post("/elsewhere")
async def elsewhere(body: Body, who: CallerDep) -> JSONResponse:
    return JSONResponse({"by": who, "name": body.name})


ROUTERS = ((lane_router, "/api"), (other_router, "/api"))


def make_app(strict_content_type: bool) -> FastLaneApp:
    async def refused(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": "who are you?"}, status_code=401)

    app = FastLaneApp(strict_content_type=strict_content_type,
                      exception_handlers={Refused: refused})
    for router, prefix in ROUTERS:
        app.include_router(router, prefix=prefix)
    app.serve_in_fast_lane(ROUTERS)
    app.state.calls = []
    return app


def call(app: FastLaneApp, method: str, path: str, body: bytes,
         headers: list[tuple[bytes, bytes]]) -> tuple[Any, ...]:
    sent: list[MutableMapping[str, Any]] = []
    path, _, query = path.partition("?")
    chunks = [body[:5], body[5:]]  # a body in two parts, as a client may send it

    async def receive() -> dict[str, Any]:
        if chunks:
            part = chunks.pop(0)
            return {"type": "http.request", "body": part, "more_body": bool(chunks)}
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": query.encode(), "root_path": "",
             "headers": [(b"host", b"test"), *headers], "client": ("127.0.0.1", 1),
             "server": ("127.0.0.1", 2), "state": {}}
    app.state.calls = []
    escaped = None
    # A loop of its own, not asyncio.run: that leaves the thread without a current loop, and
    # a later test of this process on Pulumi's mocks (which asks for the current one) fails.
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(app(scope, receive, send))
    except Exception as exc:
        escaped = repr(exc)
    finally:
        loop.close()
    start, *rest = sent
    return (start["status"], start["headers"], b"".join(m.get("body", b"") for m in rest),
            escaped, app.state.calls)


JSON = (b"content-type", b"application/json")
WHO = (b"x-caller", b"sp-1")
VALID = json.dumps({"name": "job", "count": 3, "extra": [1, 2]}).encode()

REQUESTS = {
    "valid": ("POST", "/api/things", VALID, [JSON, WHO]),
    "valid, charset given": ("POST", "/api/things", VALID,
                             [(b"content-type", b"application/json; charset=utf-8"), WHO]),
    "valid, no caller": ("POST", "/api/things", VALID, [JSON]),
    "endpoint refuses": ("POST", "/api/things", b'{"name": "refuse"}', [JSON, WHO]),
    "endpoint crashes": ("POST", "/api/things", b'{"name": "crash"}', [JSON, WHO]),
    "invalid field": ("POST", "/api/things", b'{"name": 1, "count": "x"}', [JSON, WHO]),
    "invalid field, no caller": ("POST", "/api/things", b'{"count": true}', [JSON]),
    "malformed JSON": ("POST", "/api/things", b'{"name": ', [JSON, WHO]),
    "malformed JSON, no caller": ("POST", "/api/things", b'{"name": ', [JSON]),
    "nested too deep": ("POST", "/api/things", b"[" * 100_000, [JSON, WHO]),
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
    "trailing slash": ("POST", "/api/things/", VALID, [JSON, WHO]),
    "router without the lane": ("POST", "/api/elsewhere", VALID, [JSON, WHO]),
}


@pytest.mark.parametrize("strict_content_type", [False, True])
@pytest.mark.parametrize("request_name", list(REQUESTS))
def test_same_answer_as_fastapi(request_name: str, strict_content_type: bool) -> None:
    method, path, body, headers = REQUESTS[request_name]
    with_lane = make_app(strict_content_type)
    reference = make_app(strict_content_type)
    reference.dependency_overrides[unused] = unused

    assert call(with_lane, method, path, body, headers) == \
        call(reference, method, path, body, headers)


def test_only_lane_routes_of_the_plain_shape_are_in_the_lane() -> None:
    app = make_app(strict_content_type=False)
    assert set(app._lane) == {("POST", "/api/things"), ("POST", "/api/plain")}
