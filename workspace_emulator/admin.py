"""Administrative endpoints under /_emulator/ on the platform port.

Not authenticated, never faulted, not in the request log and not in the OpenAPI document.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from workspace_emulator import clock
from workspace_emulator.faults import FaultInjector, FaultSettings
from workspace_emulator.identity import IdentityProvider
from workspace_emulator.request_log import RequestLog


def create_admin_router(
    faults: FaultInjector, request_log: RequestLog, identity: IdentityProvider,
    service_urls: dict[str, str], reset_workspace: Callable[[], None],
) -> APIRouter:
    router = APIRouter(prefix="/_emulator", include_in_schema=False)

    @router.get("/health")
    async def health() -> JSONResponse:
        return JSONResponse({"status": "ok", "services": service_urls})

    @router.get("/faults")
    async def get_faults() -> JSONResponse:
        return JSONResponse(faults.settings.to_dict())

    @router.post("/faults")
    async def set_faults(request: Request) -> JSONResponse:
        """Replaces the fault settings (fields left out are zero/none); the draws start again
        from the given random_state."""
        body = await _json_object(request)
        if isinstance(body, JSONResponse):
            return body
        try:
            settings = FaultSettings.from_dict(body)
        except (TypeError, ValueError) as exc:
            return _bad_request(str(exc))
        faults.configure(settings)
        return JSONResponse(settings.to_dict())

    @router.get("/requests")
    async def get_requests() -> JSONResponse:
        return JSONResponse({"requests": request_log.entries()})

    @router.delete("/requests")
    async def clear_requests() -> JSONResponse:
        request_log.clear()
        return JSONResponse({})

    @router.post("/reset")
    def reset() -> JSONResponse:
        """Returns the workspace to its initial data and empties the request log, without a
        restart. Kept: fault settings, the clock, the identity provider's applications and
        tokens."""
        try:
            reset_workspace()
        except ValueError as exc:  # the initial-data file became unreadable or invalid
            return JSONResponse({"error_code": "INTERNAL_ERROR",
                                 "message": f"cannot reset: {exc}"}, status_code=500)
        request_log.clear()
        return JSONResponse({})

    @router.get("/clock")
    async def get_clock() -> JSONResponse:
        return JSONResponse(_clock_state())

    @router.post("/clock/advance")
    async def advance_clock(request: Request) -> JSONResponse:
        """Moves the manual clock on by {"seconds": n}; answers the new time."""
        body = await _json_object(request)
        if isinstance(body, JSONResponse):
            return body
        seconds = body.get("seconds")
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds < 0:
            return _bad_request("seconds must be a number >= 0, e.g. {\"seconds\": 30}")
        try:
            clock.advance(float(seconds))
        except clock.ClockIsReal as exc:
            return JSONResponse({"error_code": "INVALID_STATE", "message": str(exc)},
                                status_code=409)
        return JSONResponse(_clock_state())

    @router.post("/applications", status_code=201)
    async def register_application(request: Request) -> JSONResponse:
        """Registers an application with the identity provider (not with the workspace)."""
        body = await _json_object(request)
        if isinstance(body, JSONResponse):
            return body
        client_id = body.get("client_id") or str(uuid.uuid4())
        client_secret = body.get("client_secret") or secrets.token_urlsafe(24)
        display_name = body.get("display_name") or f"app-{client_id[:8]}"
        if not all(isinstance(v, str) for v in (client_id, client_secret, display_name)):
            return _bad_request("client_id, client_secret and display_name must be strings")
        identity.register_application(client_id, client_secret, display_name)
        return JSONResponse({"client_id": client_id, "client_secret": client_secret,
                             "display_name": display_name}, status_code=201)

    return router


def _clock_state() -> dict[str, Any]:
    return {"mode": clock.mode(), "now_ms": clock.now_ms()}


def _bad_request(message: str) -> JSONResponse:
    return JSONResponse({"error_code": "INVALID_PARAMETER_VALUE", "message": message},
                        status_code=400)


async def _json_object(request: Request) -> dict[str, Any] | JSONResponse:
    try:
        body = await request.json() if await request.body() else {}
    except ValueError:
        return JSONResponse({"error_code": "MALFORMED_REQUEST", "message": "invalid JSON"},
                            status_code=400)
    if not isinstance(body, dict):
        return _bad_request("the body must be a JSON object")
    return body
