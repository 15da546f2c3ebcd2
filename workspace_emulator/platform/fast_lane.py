"""Plain requests to the busiest routes, served without FastAPI's per-request machinery.

Every request through FastAPI passes its middleware stack, its router and a handler that
solves the route's parameters with code for every kind of parameter, dependency and body:
about 130 us of a job create's 430 in process (hello world: 100). A route of a `LaneRoute`
router whose endpoint takes only the request, dependencies that take only the request, and
at most one JSON body model, is served here directly when the request is the plain case: a
body with content type application/json that decodes and validates, or a route without one.

Everything else goes through FastAPI as always, so that every refusal is FastAPI's, byte for
byte: a request that is not the plain case (its body is replayed to FastAPI untouched), and
a plain request whose dependency or endpoint raised: the exception is handed to the route,
which raises it where FastAPI's handler would have, and the app's exception handlers answer
it as they would have. A dependency runs after the body validated, where FastAPI runs it
before: nothing can tell, since validating the body has no side effect, and an invalid body
goes through FastAPI, which runs the dependencies first as always. The lane skips FastAPI's
OpenTelemetry instrumentation: an app with a lane should turn it off, so that no request is
traced rather than some.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Coroutine, Iterable, MutableMapping
from dataclasses import dataclass
from typing import Any, get_type_hints

from fastapi import APIRouter, FastAPI, params
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
Handler = Callable[[Request], Coroutine[Any, Any, Response]]

JSON_CONTENT_TYPE = b"application/json"
# Where the lane hands a route the exception its dependency or endpoint raised.
RAISED_KEY = "emulator.fast_lane.raised"


class LaneRoute(APIRoute):
    """A route whose plain requests a FastLaneApp serves; FastAPI serves the others, and
    raises what a plain one raised (RAISED_KEY) where its own handler would have."""

    def get_route_handler(self) -> Handler:
        standard = super().get_route_handler()

        async def handler(request: Request) -> Response:
            raised = request.scope.pop(RAISED_KEY, None)
            if raised is not None:
                raise raised
            return await standard(request)

        return handler


def _is_async(call: Any) -> bool:
    # A function, or an object whose __call__ is one (a security scheme).
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(
        type(call).__call__)


def _other_parameters(dependant: Dependant) -> bool:
    return bool(
        dependant.path_params or dependant.query_params or dependant.header_params
        or dependant.cookie_params or dependant.websocket_param_name
        or dependant.http_connection_param_name or dependant.response_param_name
        or dependant.background_tasks_param_name or dependant.security_scopes_param_name)


def _takes_only_the_request(dependant: Dependant) -> bool:
    return (dependant.request_param_name is not None and not _other_parameters(dependant)
            and not dependant.body_params and not dependant.dependencies
            and bool(dependant.name) and _is_async(dependant.call))


def _answers_a_response(endpoint: Callable[..., Any]) -> bool:
    answer = get_type_hints(endpoint).get("return")
    return inspect.isclass(answer) and issubclass(answer, Response)


def _one_json_body_at_most(route: APIRoute) -> bool:
    fields = route.dependant.body_params
    if not fields:
        return True
    info = fields[0].field_info
    return (len(fields) == 1 and isinstance(info, params.Body)
            and not isinstance(info, params.Form) and not info.embed
            and getattr(route, "_embed_body_fields", True) is False)


def _json_content_type(request: Request) -> bool:
    for name, value in request.scope["headers"]:
        if name == b"content-type":
            return value.partition(b";")[0].strip().lower() == JSON_CONTENT_TYPE
    return False


@dataclass(frozen=True)
class PlainHandler:
    """Answers a plain request (given its body), or None where FastAPI must answer."""

    answer: Callable[[Request, bytes], Awaitable[Response | None]]
    reads_body: bool


def plain_handler(route: APIRoute) -> PlainHandler | None:
    """How the lane serves the route's plain requests; None for a route of another shape."""
    dependant = route.dependant
    endpoint: Any = dependant.call
    if not (
        isinstance(route, LaneRoute) and endpoint is not None and _is_async(endpoint)
        and _answers_a_response(endpoint) and route.response_field is None
        and _one_json_body_at_most(route) and not _other_parameters(dependant)
        and all(_takes_only_the_request(d) for d in dependant.dependencies)
    ):
        return None
    body_field = route.body_field
    request_name = dependant.request_param_name
    dependencies: list[tuple[str, Any, str]] = [
        (d.name, d.call, d.request_param_name) for d in dependant.dependencies
        if d.name and d.request_param_name]

    async def answer(request: Request, body: bytes) -> Response | None:
        values: dict[str, Any] = {}
        if body_field is not None:
            if not body or not _json_content_type(request):
                return None
            try:
                received = json.loads(body)  # as Starlette's Request.json() decodes it
                value, errors = body_field.validate(received, {}, loc=("body",))
            except Exception:  # FastAPI has an answer for each (bad JSON, nesting too deep)
                return None
            if errors:
                return None
            values[body_field.name] = value
        for name, call, request_param in dependencies:
            values[name] = await call(**{request_param: request})
        if request_name is not None:
            values[request_name] = request
        return await endpoint(**values)

    return PlainHandler(answer, reads_body=body_field is not None)


async def _read_body(receive: Receive) -> tuple[list[Message], bytes | None]:
    """The request's messages as received, and its body (None if the client left)."""
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        if not message.get("more_body", False):
            return messages, b"".join(m.get("body", b"") for m in messages)


def _replaying(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replay() -> Message:
        return pending.pop(0) if pending else await receive()

    return replay


class FastLaneApp(FastAPI):
    """A FastAPI app whose LaneRoute routes (of the routers given to `serve_in_fast_lane`)
    have their plain requests served by the fast lane."""

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        self._lane: dict[tuple[str, str], PlainHandler] = {}

    def serve_in_fast_lane(self, routers: Iterable[tuple[APIRouter, str]]) -> None:
        """The routers must be included with these prefixes, with nothing else added (no
        dependencies) and no other route serving their paths."""
        lane: dict[tuple[str, str], PlainHandler] = {}
        for router, prefix in routers:
            for route in router.routes:
                if not isinstance(route, APIRoute) or "{" in route.path:
                    continue
                handler = plain_handler(route)
                if handler is None:
                    continue
                for method in route.methods or ():
                    key = (method, prefix + route.path)
                    if key in lane:
                        raise ValueError(f"{method} {prefix + route.path} is served twice")
                    lane[key] = handler
        self._lane = lane

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        handler = self._lane.get((scope.get("method", ""), scope.get("path", ""))) \
            if scope["type"] == "http" else None
        if handler is None or self.dependency_overrides or self.root_path:
            await super().__call__(scope, receive, send)
            return
        messages: list[Message] = []
        body: bytes | None = b""
        if handler.reads_body:
            messages, body = await _read_body(receive)
        response = None
        if body is not None:
            scope["app"] = self  # as Starlette sets it
            try:
                response = await handler.answer(Request(scope, receive, send), body)
            except Exception as raised:
                scope[RAISED_KEY] = raised
        if response is None:
            await super().__call__(scope, _replaying(messages, receive), send)
            return
        await response(scope, receive, send)
