"""Administrative endpoints under /_emulator/ on the platform port.

Never faulted, not in the request log and not in the OpenAPI document. They answer loopback
clients only (403 to any other address, whatever it sends), and every one but the liveness
probe `GET /_emulator/health` needs `Authorization: Bearer <admin_token>`, the token of the
emulator's start-up line (a new random one each start; 401 without it): they change
credentials (an application's secret), the workspace's data, faults and the clock.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import uuid
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute

from workspace_emulator import clock
from workspace_emulator.faults import FaultInjector, FaultSettings
from workspace_emulator.identity import IdentityProvider
from workspace_emulator.request_log import RequestLog

PREFIX = "/_emulator"
# The liveness probe: it changes nothing and shows only the services' addresses, so a
# supervisor (stacks/demo.py) can poll it without the token.
OPEN_PATHS = frozenset({f"{PREFIX}/health"})


def create_admin_router(
    faults: FaultInjector, request_log: RequestLog, identity: IdentityProvider,
    service_urls: dict[str, str], reset_workspace: Callable[[], None], *, admin_token: str,
) -> APIRouter:
    if not admin_token:
        raise ValueError("the administrative API needs an admin token")

    class AdminRoute(APIRoute):
        """Judges the caller before the endpoint runs (and before its body is read)."""

        def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
            handler = super().get_route_handler()
            needs_token = self.path not in OPEN_PATHS

            async def guarded(request: Request) -> Response:
                refusal = refuse(request, admin_token, needs_token)
                return refusal if refusal is not None else await handler(request)

            return guarded

    router = APIRouter(prefix=PREFIX, include_in_schema=False, route_class=AdminRoute)

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


def refuse(request: Request, admin_token: str, needs_token: bool) -> JSONResponse | None:
    """403 for a client off loopback, 401 without the admin token; None to go on. The
    address is the connection's: X-Forwarded-For counts for nothing here, even with
    --trust-forwarded-for."""
    host = request.client.host if request.client is not None else ""
    if not _is_loopback(host):
        return JSONResponse({
            "error_code": "PERMISSION_DENIED",
            "message": f"The emulator's administrative API ({PREFIX}/*) answers loopback "
                       f"clients only; this request came from {host or 'an unknown address'}.",
        }, status_code=403)
    if not needs_token:
        return None
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and token and hmac.compare_digest(
            token.encode("utf-8", "surrogateescape"), admin_token.encode()):
        return None
    problem = ("the token given is not this emulator's admin_token (a new one each start)"
               if scheme.lower() == "bearer" and token else "no admin token was given")
    return JSONResponse({
        "error_code": "UNAUTHENTICATED",
        "message": f"The emulator's administrative API ({PREFIX}/*) needs "
                   f"'Authorization: Bearer <admin_token>', the admin_token of the "
                   f"emulator's start-up line (stdout and --info-file): {problem}.",
    }, status_code=401, headers={"WWW-Authenticate": 'Bearer realm="workspace-emulator-admin"'})


def _is_loopback(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


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
