"""The platform service: the workspace REST API as a FastAPI application."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from workspace_emulator.error_bodies import is_scim_path, platform_error, scim_error
from workspace_emulator.errors import (
    STATUS_BY_CODE,
    AlreadyExists,
    RequestLimitExceeded,
    ServiceError,
)
from workspace_emulator.identity.oidc import WorkspaceOidc
from workspace_emulator.platform import oidc_routes as oidc
from workspace_emulator.platform.area import Area
from workspace_emulator.platform.areas import registered_areas
from workspace_emulator.platform.auth import KnownCallers
from workspace_emulator.platform.fast_lane import FastLaneApp
from workspace_emulator.platform.workspace import Workspace
from workspace_emulator.rate_limit import RateLimiter

logger = logging.getLogger("emulator.platform")



def api_routers(areas: Iterable[Area[Any]]) -> tuple[tuple[APIRouter, str], ...]:
    """The areas' routers with their path prefixes, in the order a request is matched
    against them: by each area's `route_priority` (see there why), then the registry's."""
    ordered = sorted(areas, key=lambda area: area.route_priority)
    return tuple((mount.router, mount.prefix) for area in ordered for mount in area.routers)


API_ROUTERS = api_routers(registered_areas())


def _error(request: Request, status: int, code: str, message: str,
           headers: dict | None = None) -> JSONResponse:
    if is_scim_path(request.url.path):
        body = scim_error(status, message)
    else:
        body = platform_error(code, message)
    return JSONResponse(body, status_code=status, headers=headers)


async def _service_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ServiceError)
    status = STATUS_BY_CODE.get(exc.code, 500)
    if is_scim_path(request.url.path) and isinstance(exc, AlreadyExists):
        status = 409
    headers = None
    if isinstance(exc, RequestLimitExceeded):
        headers = {"Retry-After": str(exc.retry_after_seconds)}
    return _error(request, status, exc.code, exc.message, headers)


def _describe(error: dict) -> str:
    location = ".".join(str(part) for part in error.get("loc", ()) if part != "body")
    where = f"'{location}'" if location else "the request body"
    return f"Invalid value for {where}: {error.get('msg', 'invalid')}"


async def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = exc.errors()
    if any(e.get("type") == "json_invalid" or isinstance(e.get("input"), bytes) for e in errors):
        return _error(request, 400, "MALFORMED_REQUEST",
                      "Malformed request: the body is not a valid JSON document.")
    message = "; ".join(_describe(e) for e in errors[:5])
    return _error(request, 400, "INVALID_PARAMETER_VALUE", message)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 404:
        return _error(request, 404, "ENDPOINT_NOT_FOUND",
                      f"No API found for '{request.method} {request.url.path}'")
    if exc.status_code == 405:
        return _error(request, 405, "METHOD_NOT_ALLOWED",
                      f"{request.method} is not supported on {request.url.path}")
    return _error(request, exc.status_code, "INVALID_PARAMETER_VALUE", str(exc.detail))


async def _unstorable_value(request: Request, exc: Exception) -> JSONResponse:
    # sqlite refuses integers beyond 64 bits and strings with lone surrogates.
    return _error(request, 400, "INVALID_PARAMETER_VALUE",
                  f"A value in the request cannot be stored: {exc}")


async def _unexpected_error(request: Request, exc: Exception) -> JSONResponse:
    logger.exception("unexpected error on %s %s", request.method, request.url.path)
    return _error(request, 500, "INTERNAL_ERROR", f"Internal error: {type(exc).__name__}")


def create_platform_app(
    workspace: Workspace, platform_resource: str, rate_limiter: RateLimiter,
    admin_router: APIRouter | None = None, trust_forwarded_for: bool = False,
) -> FastLaneApp:
    app = FastLaneApp(
        title="Workspace platform API (emulator)",
        version="1.0",
        description="The workspace REST API of docs/api.md, both wire forms.",
        strict_content_type=False,  # like the service: a body without a content type is JSON
        # Off: the fast lane's requests skip FastAPI's tracing (fast_lane.py).
        telemetry={"tracing": False, "metrics": False, "logs": False},
        exception_handlers={
            ServiceError: _service_error,
            RequestValidationError: _validation_error,
            StarletteHTTPException: _http_error,
            OverflowError: _unstorable_value,
            UnicodeEncodeError: _unstorable_value,
            Exception: _unexpected_error,
        },
    )
    app.state.workspace = workspace
    app.state.platform_resource = platform_resource
    app.state.rate_limiter = rate_limiter
    app.state.known_callers = KnownCallers()
    app.state.trust_forwarded_for = trust_forwarded_for
    if workspace is not None:
        app.state.oidc = WorkspaceOidc(workspace.identity, platform_resource,
                                       f"{workspace.base_url}/oidc/v1/token")
    for router, prefix in API_ROUTERS:
        app.include_router(router, prefix=prefix)
    app.serve_in_fast_lane(API_ROUTERS)

    @app.get("/.well-known/databricks-config", include_in_schema=False)
    async def host_metadata() -> JSONResponse:
        # The official SDK probes this on start; plain token auth needs nothing from it.
        return JSONResponse({"workspace_id": str(workspace.workspace_id),
                             "account_id": workspace.scim.account_id,
                             "oidc_endpoint": f"{workspace.base_url}/oidc"})

    oidc.add_oidc_routes(app)

    if admin_router is not None:
        app.include_router(admin_router)
    return app


def openapi_document() -> dict:
    """The OpenAPI document the platform serves at /openapi.json, without running it."""
    app = create_platform_app(None, "", RateLimiter(None))  # type: ignore[arg-type]
    return app.openapi()
