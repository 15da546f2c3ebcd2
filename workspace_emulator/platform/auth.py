"""Who is calling: the bearer token, checked against the identity provider and the
workspace's service principals, then the per-client rate limit.

The dependencies are `async` although they do not await: FastAPI would otherwise run them
in a worker thread, a hop per request for microseconds of work.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPBearer

from workspace_emulator import clock
from workspace_emulator.edge import CLIENT_ID_KEY
from workspace_emulator.errors import PermissionDenied, RequestLimitExceeded, Unauthenticated
from workspace_emulator.identity.models import TokenGrant
from workspace_emulator.platform import workspace_admission
from workspace_emulator.platform.directory import Caller
from workspace_emulator.platform.workspace import Workspace
from workspace_emulator.rate_limit import RateLimiter, retry_after_header


class KnownCallers:
    """Who a token stands for, without a hash and three queries per call. A grant of the
    identity provider never changes once issued (only its expiry, checked on each use, and a
    reset keeps tokens), so it is kept (a personal access token's is not: it can be
    deleted); its principal is kept while the directory's principals and groups are
    unchanged (a principal deactivated or moved out of `admins` makes it
    stale; writes to anything else, e.g. jobs, do not)."""

    MAX_ENTRIES = 1024

    def __init__(self) -> None:
        self._grants: dict[str, TokenGrant] = {}
        self._callers: dict[str, tuple[int, Caller | None]] = {}

    def lookup(self, ws: Workspace, token: str, platform_resource: str
               ) -> tuple[TokenGrant | None, Caller | None]:
        grant = self._grants.get(token)
        if grant is None:
            grant = ws.identity.resolve(token)
            if grant is None:
                # A token an area knows (a personal access token) can be deleted at any
                # time: never kept.
                grant = _resolved_by_an_area(ws, token, platform_resource)
                if grant is None:
                    return None, None
            else:
                if len(self._grants) >= self.MAX_ENTRIES:
                    self._grants.clear()
                self._grants[token] = grant
        elif grant.expires_at <= clock.now():
            return None, None
        generation = ws.directory.generation
        known = self._callers.get(grant.client_id)
        if known is not None and known[0] == generation:
            return grant, known[1]
        caller = ws.directory.caller(grant.client_id)
        if len(self._callers) >= self.MAX_ENTRIES:
            self._callers.clear()
        self._callers[grant.client_id] = (generation, caller)
        return grant, caller


def _resolved_by_an_area(ws: Workspace, token: str, platform_resource: str
                         ) -> TokenGrant | None:
    for resolve in ws.token_resolvers:
        grant = resolve(token, platform_resource)
        if grant is not None:
            return grant
    return None


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


def _bearer_token(request: Request) -> str | None:
    """The token of the first Authorization header, where HTTPBearer would find one (a
    'Bearer' scheme in any case, a non-empty token), read from the raw headers: HTTPBearer
    itself builds a header map and a credentials model for it on every request."""
    for name, value in request.scope["headers"]:
        if name == b"authorization":
            scheme, _, token = value.decode("latin-1").partition(" ")
            token = token.strip()
            return token if scheme.lower() == "bearer" and token else None
    return None


class PlatformBearer(HTTPBearer):
    """The bearer scheme of the OpenAPI document that also resolves the caller: one
    dependency where a scheme and a resolver on top of it cost FastAPI two per request."""

    async def __call__(self, request: Request) -> Caller:  # type: ignore[override]
        ws: Workspace = request.app.state.workspace
        # Like the service, IP access lists are applied before the credentials are looked
        # at: each area's `refuses_address`.
        if ws.address_checks:
            address = caller_address(request)
            for refuse in ws.address_checks:
                refuse(address, ws.workspace_id)
        token = _bearer_token(request)
        if token is None:
            raise Unauthenticated("Missing 'Authorization: Bearer <token>' header.")
        known: KnownCallers = request.app.state.known_callers
        platform_resource = request.app.state.platform_resource
        grant, caller = known.lookup(ws, token, platform_resource)
        if grant is None:
            raise Unauthenticated("Invalid access token: unknown or expired.")
        request.scope[CLIENT_ID_KEY] = grant.client_id
        if grant.resource != platform_resource:
            raise Unauthenticated(
                f"Invalid access token: issued for resource '{grant.resource}', not for this "
                "workspace's resource id."
            )
        limiter: RateLimiter = request.app.state.rate_limiter
        wait = limiter.acquire(grant.client_id)
        if wait:
            raise RequestLimitExceeded(
                "Too many requests from this client; retry later.", retry_after_header(wait))
        if caller is None:
            caller = workspace_admission.admit(ws, grant, request.headers)
        return caller


authenticated_caller = PlatformBearer(
    auto_error=False, scheme_name="HTTPBearer",
    description="A token from the emulator's identity provider issued for the platform "
                "resource id (also through /oidc/v1/token), or a personal access token.")


async def admin_caller(caller: Annotated[Caller, Depends(authenticated_caller)]) -> Caller:
    if not caller.is_admin:
        raise PermissionDenied(
            f"Only workspace admins may do this; {caller.application_id} is not in 'admins'.")
    return caller


WorkspaceDep = Annotated[Workspace, Depends(workspace)]
CallerDep = Annotated[Caller, Depends(authenticated_caller)]
AddressDep = Annotated[str, Depends(caller_address)]
AdminDep = Annotated[Caller, Depends(admin_caller)]
