"""The workspace's OAuth surface: the discovery document the SDK reads first, and the token
endpoint (identity/oidc.py). Unauthenticated, outside the OpenAPI document, with OAuth's
error bodies rather than the API's."""

from __future__ import annotations

import base64
import binascii
from urllib.parse import parse_qsl, unquote

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from workspace_emulator.edge import CLIENT_ID_KEY
from workspace_emulator.identity.oidc import (
    CLIENT_CREDENTIALS,
    TOKEN_EXCHANGE,
    OidcError,
    TokenRequest,
    WorkspaceOidc,
)

NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


def _basic_credentials(request: Request) -> tuple[str, str] | None:
    scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        client_id, separator, secret = base64.b64decode(encoded.strip(), validate=True) \
            .decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        raise OidcError(401, "invalid_client",
                        "Client authentication failed: the Authorization header's Basic "
                        "credentials are not base64 of 'client_id:secret'.") from None
    if not separator:
        raise OidcError(401, "invalid_client", "Client authentication failed: the Basic "
                        "credentials hold no ':' between client id and secret.")
    # RFC 6749 form-encodes both before the Basic encoding; plain ones pass unchanged.
    return unquote(client_id), unquote(secret)


async def _form(request: Request) -> dict[str, str]:
    body = await request.body()
    try:
        return dict(parse_qsl(body.decode("utf-8"), keep_blank_values=True)) if body else {}
    except UnicodeDecodeError:
        raise OidcError(400, "invalid_request",
                        "The body must be form-encoded (application/x-www-form-urlencoded) "
                        "UTF-8.") from None


async def authorization_server(request: Request) -> JSONResponse:
    oidc: WorkspaceOidc = request.app.state.oidc
    issuer = oidc.token_endpoint.removesuffix("/v1/token")
    return JSONResponse({
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/v1/authorize",
        "token_endpoint": oidc.token_endpoint,
        "grant_types_supported": [CLIENT_CREDENTIALS, TOKEN_EXCHANGE],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "scopes_supported": ["all-apis", "offline_access"],
        "response_types_supported": ["code"],
    })


async def token(request: Request) -> JSONResponse:
    oidc: WorkspaceOidc = request.app.state.oidc
    try:
        client_id, answer = oidc.issue(TokenRequest.of(await _form(request),
                                                       _basic_credentials(request)))
    except OidcError as error:
        return JSONResponse(error.body(), status_code=error.status, headers=NO_STORE)
    request.scope[CLIENT_ID_KEY] = client_id
    return JSONResponse(answer, headers=NO_STORE)


def add_oidc_routes(app: FastAPI) -> None:
    # On the app itself, not through a router: the support list finds the routes left out
    # of the OpenAPI document among the app's own.
    app.add_api_route("/oidc/.well-known/oauth-authorization-server", authorization_server,
                      methods=["GET"], include_in_schema=False)
    # The account host's discovery (one identity provider serves the account and the
    # workspace here: the same document).
    app.add_api_route("/oidc/accounts/{account_id}/.well-known/oauth-authorization-server",
                      authorization_server, methods=["GET"], include_in_schema=False)
    app.add_api_route("/oidc/v1/token", token, methods=["POST"], include_in_schema=False)
