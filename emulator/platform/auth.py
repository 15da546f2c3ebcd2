"""Who is calling: the bearer token, checked against the identity provider and the
workspace's service principals, then the per-client rate limit.

The dependencies are `async` although they do not await: FastAPI would otherwise run them
in a worker thread, a hop per request for microseconds of work.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from emulator.edge import CLIENT_ID_KEY
from emulator.errors import PermissionDenied, RequestLimitExceeded, Unauthenticated
from emulator.platform.models import Caller, Workspace
from emulator.rate_limit import RateLimiter, retry_after_header

bearer_scheme = HTTPBearer(auto_error=False, description="A token from the emulator's "
                           "identity provider, issued for the platform resource id.")


async def workspace(request: Request) -> Workspace:
    return request.app.state.workspace


def caller_address(request: Request) -> str:
    """The address IP access lists judge: the connection's peer, or where the emulator was
    started with --trust-forwarded-for, the first X-Forwarded-For entry."""
    if request.app.state.trust_forwarded_for:
        forwarded = request.headers.get("x-forwarded-for", "").split(",")[0].strip()
        if forwarded:
            return forwarded
    return request.client.host if request.client else ""


async def authenticated_caller(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer_scheme)],
) -> Caller:
    ws: Workspace = request.app.state.workspace
    # Like the service, the lists are applied before the credentials are looked at.
    ws.ip_access_lists.refuse_if_blocked(caller_address(request), ws.workspace_id)
    if credentials is None or not credentials.credentials:
        raise Unauthenticated("Missing 'Authorization: Bearer <token>' header.")
    grant = ws.identity.resolve(credentials.credentials)
    if grant is None:
        raise Unauthenticated("Invalid access token: unknown or expired.")
    request.scope[CLIENT_ID_KEY] = grant.client_id
    if grant.resource != request.app.state.platform_resource:
        raise Unauthenticated(
            f"Invalid access token: issued for resource '{grant.resource}', not for this "
            "workspace's resource id."
        )
    limiter: RateLimiter = request.app.state.rate_limiter
    wait = limiter.acquire(grant.client_id)
    if wait:
        raise RequestLimitExceeded(
            "Too many requests from this client; retry later.", retry_after_header(wait))
    caller = ws.directory.caller(grant.client_id)
    if caller is None:
        raise PermissionDenied(
            f"Service principal {grant.client_id} is not an active member of this workspace."
        )
    return caller


async def admin_caller(caller: Annotated[Caller, Depends(authenticated_caller)]) -> Caller:
    if not caller.is_admin:
        raise PermissionDenied(
            f"Only workspace admins may do this; {caller.application_id} is not in 'admins'.")
    return caller


WorkspaceDep = Annotated[Workspace, Depends(workspace)]
CallerDep = Annotated[Caller, Depends(authenticated_caller)]
AddressDep = Annotated[str, Depends(caller_address)]
AdminDep = Annotated[Caller, Depends(admin_caller)]
