"""One token request to the identity provider (Azure AD's client-credentials grant), and
the access token every sign-in method answers with.

Both wire forms call ``{auth_url}/{tenant}/oauth2/token``: the legacy form as a GET with
``grant_type=client_credential`` in the query (to a loopback address only: the query holds
the client secret), the public form as a form-encoded POST with
``grant_type=client_credentials``. A token is requested either for the platform's
resource id (``Connection.resource``) or for the management resource address.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from pydantic import SecretStr

from providers.client.connection import (
    InsecureUrlError,
    WireForm,
    is_loopback_host,
    require_secure_url,
)
from providers.client.errors import (
    IdentityError,
    InvalidClientCredentials,
    error_from_response,
)
from providers.client.wire import profile

MANAGEMENT_RESOURCE = "https://management.core.windows.net/"


@dataclass(frozen=True)
class AccessToken:
    value: str = field(repr=False)
    expires_on: float
    resource: str


def token_url(auth_url: str, tenant_id: str) -> str:
    return f"{auth_url.rstrip('/')}/{quote(tenant_id, safe='')}/oauth2/token"


JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


def fetch_token(
    auth_url: str,
    tenant_id: str,
    client_id: str,
    client_secret: str | SecretStr | None,
    resource: str,
    form: WireForm | str = WireForm.PUBLIC,
    *,
    client_assertion: str | None = None,
    timeout_seconds: float = 30.0,
    max_attempts: int = 6,
    max_retry_seconds: float = 300.0,
    allow_insecure_http: bool = False,
    now: Callable[[], float] = time.time,
) -> AccessToken:
    """One token request, with the client secret or, in its place, a signed assertion (a
    federated credential: the CI provider's OIDC token). Raises ``InvalidClientCredentials``
    for a wrong id or secret, ``IdentityError`` for other refusals, ``WorkspaceUnreachable``
    without an answer. ``now`` is the local clock the expiry is counted on (the cache's)."""
    secret = (
        client_secret.get_secret_value()
        if isinstance(client_secret, SecretStr)
        else client_secret or client_assertion or ""
    )
    url = token_url(
        require_secure_url(auth_url, allow_insecure_http=allow_insecure_http, field="auth_url"),
        tenant_id,
    )
    wire = profile(form)
    if wire.token_method == "GET":
        _refuse_secret_in_a_remote_url(url, wire.form)
    fields = {"grant_type": wire.token_grant_type, "client_id": client_id, "resource": resource}
    if client_assertion is not None:
        fields |= {"client_assertion_type": JWT_BEARER_ASSERTION, "client_assertion": secret}
    else:
        fields["client_secret"] = secret
    payload: dict[str, Any] = {"params": fields} if wire.token_method == "GET" else {"data": fields}
    # Loaded here: the HTTP stack (requests, urllib3) is a tenth of a second that a program
    # whose token is cached, as in most runs, never needs.
    from providers.client import http

    response = http.send(
        wire.token_method,
        url,
        policy=http.CallPolicy(timeout_seconds, max_attempts, max_retry_seconds),
        idempotent=True,
        secrets=(secret,),
        **payload,
    )
    if not response.ok:
        error = error_from_response(response, secrets=(secret,))
        if isinstance(error, InvalidClientCredentials):
            raise InvalidClientCredentials(
                status=error.status,
                code=error.code,
                message=(
                    f"the identity provider rejected client id {client_id!r} in tenant "
                    f"{tenant_id!r}: {error.message}"
                ),
                method=error.method,
                path=error.path,
            )
        raise error
    try:
        return parse_token_response(json.loads(response.content), resource, now=now)
    except ValueError as exc:
        # Never the body: it may hold the token.
        raise IdentityError(
            status=response.status_code,
            code="INVALID_TOKEN_RESPONSE",
            message=f"the token response could not be used: {exc}",
            method=wire.token_method,
            path=token_url("", tenant_id),
        ) from None


def _refuse_secret_in_a_remote_url(url: str, form: WireForm) -> None:
    """The legacy form's GET puts the client secret in the URL's query string, which proxies,
    load balancers and access logs keep. It stays for loopback addresses only: the emulator,
    the one identity provider that speaks the legacy form, where the URL never leaves the
    machine. Anywhere else the call is refused before anything is sent, rather than sent as a
    POST: a legacy identity provider answers the GET of its specification, and quietly
    changing the method would make a different request than the wire form the stack names.
    The public form, the real service's, always sends the secret in a POST body."""
    host = urlsplit(url).hostname or ""
    if is_loopback_host(host):
        return
    raise InsecureUrlError(
        f"the {form.value!r} wire form sends the client secret in the token request's URL, "
        f"which is only allowed to a loopback address (the emulator), not to {host!r}: set "
        f"workspace:wireForm to {WireForm.PUBLIC.value!r} (the token request then carries "
        "the secret in a POST body), or point workspace:authUrl at the emulator on "
        "127.0.0.1"
    )


def parse_token_response(
    body: Any, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    """The token response of docs/api.md#token (its numbers are strings). The expiry is in
    the local clock's epoch seconds: receipt plus `expires_in`, else `expires_on`."""
    if not isinstance(body, dict):
        raise ValueError("expected a JSON object")
    value = body.get("access_token")
    if not isinstance(value, str) or not value:
        raise ValueError("no access_token")
    token_type = body.get("token_type", "Bearer")
    if str(token_type).lower() != "bearer":
        raise ValueError(f"token_type {token_type!r} is not Bearer")
    # `expires_in` first: relative, so counted from receipt on the local clock, it holds
    # whatever the skew between this machine and the identity provider. `expires_on` is the
    # provider's clock: a local clock ahead of it by more than a token's lifetime would see
    # every token as expired on arrival and fetch a new one for every call.
    expires_in = _seconds(body.get("expires_in"))
    expires_on = now() + expires_in if expires_in is not None else _seconds(body.get("expires_on"))
    if expires_on is None:
        raise ValueError("neither expires_in nor expires_on is a number")
    return AccessToken(value=value, expires_on=expires_on, resource=resource)


def _seconds(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(value)
    except (TypeError, ValueError):
        return None
