"""Managed identities, and the loopback endpoints a host gives its workloads to get their
tokens, without a secret:

- App Service style: `GET /msi/token?resource=R&api-version=2019-08-01[&client_id=C]` with
  `X-IDENTITY-HEADER: <managed_identity_header of the info line>` (what `IDENTITY_ENDPOINT`
  and `IDENTITY_HEADER` hold on an App Service or a Function);
- the instance metadata service: `GET /metadata/identity/oauth2/token?api-version=2018-02-01
  &resource=R[&client_id=C]` with `Metadata: true`.

Without `client_id` the token is the system-assigned identity's; with one, that
user-assigned identity's. Tokens are the identity provider's, for the platform resource or
the management address, and count wherever its other tokens do.
"""

from __future__ import annotations

import hmac
import uuid
from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from workspace_emulator.edge import CLIENT_ID_KEY
from workspace_emulator.identity.models import IdentityProvider, IssuedToken

APP_SERVICE_PATH = "/msi/token"
APP_SERVICE_API_VERSION = "2019-08-01"
IMDS_PATH = "/metadata/identity/oauth2/token"
NO_STORE = {"Cache-Control": "no-store"}


# The two hosts answer errors in shapes of their own.

def _app_service_error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"statusCode": status, "message": message,
                         "correlationId": str(uuid.uuid4())}, status_code=status,
                        headers=NO_STORE)


def _imds_error(status: int, description: str) -> JSONResponse:
    return JSONResponse({"error": "invalid_request", "error_description": description},
                        status_code=status, headers=NO_STORE)


def managed_identity_routes(provider: IdentityProvider, identity_header: str) -> list[Route]:
    identities = provider.managed_identities

    def issue(request: Request, error: Callable[[int, str], JSONResponse]
              ) -> JSONResponse | tuple[str, IssuedToken]:
        resource = request.query_params.get("resource")
        known = ", ".join(provider.resources)
        if not resource:
            return error(400, "Required 'resource' parameter not specified: the platform "
                              f"resource id or the management address ({known}).")
        if resource not in provider.resources:
            return error(400, f"The resource '{resource}' is not known to the identity "
                              f"provider; use one of {known}.")
        client_id = identities.pick(request.query_params.get("client_id"))
        if client_id is None:
            named = request.query_params.get("client_id")
            return error(400, f"No managed identity found for client_id '{named}'; use one of the "
                              "initial data's identity.managed_identities." if named else
                              "No system-assigned managed identity is in the initial data "
                              "(identity.managed_identities); pass client_id= of a "
                              "user-assigned one.")
        request.scope[CLIENT_ID_KEY] = client_id
        return client_id, provider.issue_for(client_id, resource)

    async def app_service_token(request: Request) -> JSONResponse:
        presented = request.headers.get("x-identity-header", "")
        if not presented or not hmac.compare_digest(presented, identity_header):
            return _app_service_error(
                401, "The X-IDENTITY-HEADER header is missing or wrong; send the "
                     "managed_identity_header of the emulator's start-up line.")
        version = request.query_params.get("api-version")
        if version != APP_SERVICE_API_VERSION:
            return _app_service_error(
                400, f"api-version must be {APP_SERVICE_API_VERSION} (got '{version}').")
        outcome = issue(request, _app_service_error)
        if isinstance(outcome, JSONResponse):
            return outcome
        client_id, issued = outcome
        return JSONResponse({
            "access_token": issued.access_token,
            "expires_on": str(issued.expires_on),
            "resource": issued.resource,
            "token_type": "Bearer",
            "client_id": client_id,
        }, headers=NO_STORE)

    async def imds_token(request: Request) -> JSONResponse:
        if request.headers.get("metadata", "").lower() != "true":
            return _imds_error(400, "Required metadata header not specified: send "
                                    "'Metadata: true'.")
        if not request.query_params.get("api-version"):
            return _imds_error(400, "Required 'api-version' parameter not specified, e.g. "
                                    "api-version=2018-02-01.")
        outcome = issue(request, _imds_error)
        if isinstance(outcome, JSONResponse):
            return outcome
        client_id, issued = outcome
        return JSONResponse({
            "access_token": issued.access_token,
            "refresh_token": "",
            "expires_in": str(issued.lifetime_seconds),
            "expires_on": str(issued.expires_on),
            "not_before": str(issued.not_before),
            "resource": issued.resource,
            "token_type": "Bearer",
            "client_id": client_id,
        }, headers=NO_STORE)

    return [Route(APP_SERVICE_PATH, app_service_token, methods=["GET"]),
            Route(IMDS_PATH, imds_token, methods=["GET"])]
