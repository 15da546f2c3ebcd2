"""HTTP surface of the identity provider: the OAuth token endpoint, and the loopback
endpoints of the secretless sign-ins (managed_identity.py, github_actions.py).

Seed form: GET with grant_type=client_credential, parameters in the query string or a
form body. Public form: POST form body with grant_type=client_credentials. The v2.0
endpoint takes `scope=<resource>/.default` instead of `resource`. Instead of a client
secret, a client may present a federated credential: `client_assertion_type=
urn:ietf:params:oauth:client-assertion-type:jwt-bearer` and `client_assertion=<ID token>`.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from workspace_emulator.edge import CLIENT_ID_KEY
from workspace_emulator.error_bodies import IDENTITY_ERROR_BY_STATUS, identity_error
from workspace_emulator.identity.github_actions import github_actions_routes
from workspace_emulator.identity.managed_identity import managed_identity_routes
from workspace_emulator.identity.models import (
    PUBLIC_GRANT_TYPE,
    SEED_GRANT_TYPE,
    IdentityError,
    IdentityProvider,
)

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _error_response(error: IdentityError) -> JSONResponse:
    return JSONResponse(
        identity_error(error.error, error.description, error.codes),
        status_code=error.status,
        headers=NO_STORE,
    )


async def _parameters(request: Request) -> dict[str, str]:
    """Query parameters overlaid with a form-encoded body (a body wins)."""
    params = dict(request.query_params)
    body = await request.body()
    if body:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise IdentityError(
                400, "invalid_request", "AADSTS900144: The request body is not valid form data.",
                900144,
            ) from exc
        params.update(parse_qsl(text, keep_blank_values=True))
    return params


def create_identity_app(provider: IdentityProvider, managed_identity_header: str,
                        github_request_token: str) -> Starlette:
    async def token(request: Request) -> JSONResponse:
        return await _token(request, scope_style=False)

    async def token_v2(request: Request) -> JSONResponse:
        return await _token(request, scope_style=True)

    async def _token(request: Request, scope_style: bool) -> JSONResponse:
        try:
            params = await _parameters(request)
            resource = params.get("resource")
            if scope_style:
                resource = params.get("scope", "").removesuffix("/.default") or None
            expected = SEED_GRANT_TYPE if request.method == "GET" else PUBLIC_GRANT_TYPE
            issued = provider.issue_token(
                tenant=request.path_params["tenant"],
                grant_type=params.get("grant_type"),
                expected_grant_type=expected,
                client_id=params.get("client_id"),
                client_secret=params.get("client_secret"),
                resource=resource,
                client_assertion_type=params.get("client_assertion_type"),
                client_assertion=params.get("client_assertion"),
            )
        except IdentityError as error:
            return _error_response(error)
        request.scope[CLIENT_ID_KEY] = params["client_id"]
        lifetime = str(issued.lifetime_seconds)
        return JSONResponse(
            {
                "token_type": "Bearer",
                "expires_in": lifetime,
                "ext_expires_in": lifetime,
                "expires_on": str(issued.expires_on),
                "not_before": str(issued.not_before),
                "resource": issued.resource,
                "access_token": issued.access_token,
            },
            headers=NO_STORE,
        )

    async def http_error(request: Request, exc: Exception) -> JSONResponse:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        error = IDENTITY_ERROR_BY_STATUS.get(status, "server_error")
        return JSONResponse(
            identity_error(error, f"{request.method} {request.url.path}: {exc}", [0]),
            status_code=status,
        )

    return Starlette(
        routes=[
            Route("/{tenant}/oauth2/token", token, methods=["GET", "POST"]),
            Route("/{tenant}/oauth2/v2.0/token", token_v2, methods=["GET", "POST"]),
            *managed_identity_routes(provider, managed_identity_header),
            *github_actions_routes(provider.id_tokens, github_request_token),
        ],
        exception_handlers={HTTPException: http_error, Exception: http_error},
    )
