"""A route class that serves the plain case of a request without FastAPI's general machinery.

FastAPI solves a route's parameters anew on every request, through code that handles every
kind of parameter, dependency and body: about 70 us of a job create's 400 in process. A
route whose endpoint takes only the request, dependencies that take only the request, and
at most one JSON body model, is served here directly when the request is the plain case: a
JSON body (content type application/json) that decodes and validates. Any other request (a
body that is missing, not JSON or invalid, another content type, overridden dependencies)
goes through FastAPI's own handler, so every refusal is FastAPI's, byte for byte. The
dependencies run after the body validated, where FastAPI runs them before: nothing can
tell, since validating the body has no side effect, and an invalid body goes through
FastAPI's handler, which runs them first as always.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any, get_type_hints

from fastapi import routing
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.requests import Request
from starlette.responses import Response

Handler = Callable[[Request], Coroutine[Any, Any, Response]]

JSON_CONTENT_TYPE = b"application/json"


def _is_async(call: Any) -> bool:
    # A function, or an object whose __call__ is one (a security scheme).
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(
        type(call).__call__)


def _takes_only_the_request(dependant: Dependant) -> bool:
    return dependant.request_param_name is not None and not _other_parameters(dependant) \
        and not dependant.body_params and not dependant.dependencies


def _other_parameters(dependant: Dependant) -> bool:
    return bool(
        dependant.path_params or dependant.query_params or dependant.header_params
        or dependant.cookie_params or dependant.websocket_param_name
        or dependant.http_connection_param_name or dependant.response_param_name
        or dependant.background_tasks_param_name or dependant.security_scopes_param_name)


def _answers_a_response(endpoint: Callable[..., Any]) -> bool:
    answer = get_type_hints(endpoint).get("return")
    return inspect.isclass(answer) and issubclass(answer, Response)


def _served_directly(route: Any) -> bool:
    dependant: Dependant = route.dependant
    endpoint = dependant.call
    return (
        endpoint is not None and _is_async(endpoint) and _answers_a_response(endpoint)
        and route.response_field is None and not route._embed_body_fields
        and getattr(route, "max_body_size", None) is None
        and len(dependant.body_params) <= 1 and not _other_parameters(dependant)
        and all(_takes_only_the_request(d) and d.name and d.call and _is_async(d.call)
                for d in dependant.dependencies)
    )


def _json_content_type(request: Request) -> bool:
    for name, value in request.scope["headers"]:
        if name == b"content-type":
            return value.partition(b";")[0].strip().lower() == JSON_CONTENT_TYPE
    return False


class DirectRoute(APIRoute):
    def get_route_handler(self) -> Handler:
        standard = super().get_route_handler()
        # Built once per inclusion: FastAPI hands the included route's effective state
        # (dependencies of the router and of the app included) through this variable.
        context = routing._effective_route_context_var.get()
        route: Any = context if context is not None and context.original_route is self \
            else self
        if not _served_directly(route):
            return standard
        dependant: Dependant = route.dependant
        body_field = route.body_field
        endpoint: Any = dependant.call
        request_name = dependant.request_param_name
        dependencies: list[tuple[str, Any, str]] = [
            (d.name, d.call, d.request_param_name) for d in dependant.dependencies
            if d.name and d.request_param_name]
        overrides = route.dependency_overrides_provider

        async def direct(request: Request) -> Response:
            if overrides is not None and getattr(overrides, "dependency_overrides", None):
                return await standard(request)
            values: dict[str, Any] = {}
            if body_field is not None:
                if not _json_content_type(request):
                    return await standard(request)
                try:
                    received = await request.json() if await request.body() else None
                except Exception:  # FastAPI's handler has an answer for each
                    return await standard(request)
                if received is None:
                    return await standard(request)
                body, errors = body_field.validate(received, {}, loc=("body",))
                if errors:
                    return await standard(request)
                values[body_field.name] = body
            for name, call, request_param in dependencies:
                values[name] = await call(**{request_param: request})
            if request_name is not None:
                values[request_name] = request
            return await endpoint(**values)

        return direct
