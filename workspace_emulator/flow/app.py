"""HTTP routes of the flow controller emulator, relative to the ``/nifi-api`` mount point."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from workspace_emulator.flow.root_group import root_process_group_entity
from workspace_emulator.flow.tokens import (
    DEFAULT_TOKEN_LIFETIME_SECONDS,
    FlowTokenIssuer,
    TokenState,
)

_FORM_MEDIA_TYPE = "application/x-www-form-urlencoded"
_INVALID_TOKEN_CHALLENGE = (
    'Bearer error="invalid_token", error_description="{description}", '
    'error_uri="https://tools.ietf.org/html/rfc6750#section-3.1"'
)


def create_app(
    verify_login: Callable[[str, str], bool],
    *,
    clock: Callable[[], float] = time.time,
    token_lifetime_seconds: float = DEFAULT_TOKEN_LIFETIME_SECONDS,
) -> Starlette:
    """The flow controller: login plus the root process group (see the package docstring)."""
    tokens = FlowTokenIssuer(clock, token_lifetime_seconds)
    root_group_id = str(uuid.uuid4())

    async def create_access_token(request: Request) -> Response:
        media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media_type != _FORM_MEDIA_TYPE:
            return PlainTextResponse("Unsupported Media Type", status_code=415)
        body = (await request.body()).decode("utf-8", errors="replace")
        form = parse_qs(body, keep_blank_values=True)
        username = form.get("username", [""])[0]
        password = form.get("password", [""])[0]
        if not username.strip() or not password.strip():
            return PlainTextResponse("The username and password must be specified.", 400)
        if not await run_in_threadpool(verify_login, username, password):
            # NiFi answers bad credentials with 400, not 401.
            return PlainTextResponse("The supplied username and password are not valid.", 400)
        token = tokens.issue(username)
        location = _absolute_url(request, "/access/token")
        return PlainTextResponse(token, status_code=201, headers={"Location": location})

    async def get_process_group(request: Request) -> Response:
        refusal = await _refuse_unauthenticated(request)
        if refusal is not None:
            return refusal
        group_id = request.path_params["group_id"]
        if group_id not in ("root", root_group_id):
            return PlainTextResponse(f"Unable to locate group with id '{group_id}'.", 404)
        uri = _absolute_url(request, f"/process-groups/{root_group_id}")
        return JSONResponse(root_process_group_entity(root_group_id, uri, clock()))

    async def _refuse_unauthenticated(request: Request) -> Response | None:
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return PlainTextResponse("Unauthorized", status_code=401)
        # Only the tokens of this flow controller's own login: a token another issuer made
        # (the identity provider's, for the platform or any other resource) is not for it.
        state = tokens.check(token)
        if state is TokenState.VALID:
            return None
        if state is TokenState.EXPIRED:
            challenge = _INVALID_TOKEN_CHALLENGE.format(description="Expired JWT")
            body = "Session Expired"
        else:
            challenge = _INVALID_TOKEN_CHALLENGE.format(description="Invalid bearer token")
            body = challenge.replace("Bearer", "Unauthorized", 1)
        return PlainTextResponse(body, status_code=401, headers={"WWW-Authenticate": challenge})

    return Starlette(
        routes=[
            Route("/access/token", create_access_token, methods=["POST"]),
            Route("/process-groups/{group_id}", get_process_group, methods=["GET"]),
        ]
    )


def _absolute_url(request: Request, path: str) -> str:
    # root_path is where the core mounted this app ("/nifi-api").
    root_path = request.scope.get("root_path", "")
    return f"{request.url.scheme}://{request.url.netloc}{root_path}{path}"
