"""The workspace's own OAuth (`oauth-m2m`, `github-oidc`, and a `databricks-cli` profile
holding an OAuth secret or naming `github-oidc`), through the project's transport.

The token endpoint comes from the workspace's discovery document
(`{baseUrl}/oidc/.well-known/oauth-authorization-server`), and the document is only
trusted so far: the endpoint it names must be https (plain http to a literal loopback host
with allowInsecureHttp, as the workspace's own address), and on the workspace's own host
or one of the identity hosts of the workspace's cloud (`IDENTITY_HOSTS`). Anything else is
refused before the secret or the job's OIDC token is sent. Both requests go through
providers/client/http.py: no redirect is followed, so a 307 or 308 never carries the
secret elsewhere.
"""

from __future__ import annotations

import base64
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import requests
from requests.auth import AuthBase

from providers.client.auth_type import AuthType
from providers.client.connection import Connection, InsecureUrlError, require_secure_url
from providers.client.errors import SignInFailed, WorkspaceError, error_from_response
from providers.client.sign_in import github_actions
from providers.client.token_request import AccessToken, parse_token_response

DISCOVERY_PATH = "/oidc/.well-known/oauth-authorization-server"
# An account connection's (the account host's OAuth is per account).
ACCOUNT_DISCOVERY_PATH = "/oidc/accounts/{account_id}/.well-known/oauth-authorization-server"
SCOPE = "all-apis"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt"
# Where a job's OIDC token is asked for another audience than the token endpoint (as the
# service's tools read it).
AUDIENCE_ENV = "DATABRICKS_TOKEN_AUDIENCE"

# The hosts besides the workspace's own that may answer its token requests, by the DNS zone
# of the workspace's host: the cloud's account console, and on Azure, Azure AD.
IDENTITY_HOSTS: dict[str, tuple[str, ...]] = {
    ".azuredatabricks.net": ("accounts.azuredatabricks.net", "login.microsoftonline.com"),
    ".cloud.databricks.com": ("accounts.cloud.databricks.com",),
    ".gcp.databricks.com": ("accounts.gcp.databricks.com",),
}


@dataclass(frozen=True)
class Workspace:
    """Where and how to ask: the workspace's address and the connection's transport
    settings, for `method` (the auth type errors name)."""

    base_url: str
    method: str
    timeout_seconds: float
    max_attempts: int
    max_retry_seconds: float
    allow_insecure_http: bool
    account_id: str | None = None

    @classmethod
    def of(cls, connection: Connection, method: str | None = None) -> Workspace:
        return cls(
            connection.base_url,
            method or connection.method.value,
            connection.timeout_seconds,
            connection.max_attempts,
            connection.max_retry_seconds,
            connection.allow_insecure_http,
            connection.account_id,
        )


def fetch(
    connection: Connection, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    workspace = Workspace.of(connection)
    assert connection.client_id is not None  # both methods require it
    if connection.method is AuthType.GITHUB_OIDC:
        # Checked first: without the job's environment there is nothing to exchange.
        github_actions.require_job_environment(connection.method)
        return federated(
            workspace,
            connection.client_id,
            lambda audience: github_actions.id_token(audience, connection.method),
            resource,
            now=now,
        )
    assert connection.client_secret is not None  # oauth-m2m requires it
    return client_credentials(
        workspace,
        connection.client_id,
        connection.client_secret.get_secret_value(),
        resource,
        now=now,
    )


def client_credentials(
    workspace: Workspace,
    client_id: str,
    client_secret: str,
    resource: str,
    *,
    now: Callable[[], float] = time.time,
) -> AccessToken:
    """`oauth-m2m`: the OAuth secret by Basic authentication, for an `all-apis` token."""
    endpoint = token_endpoint(workspace)
    basic = base64.b64encode(f"{client_id}:{client_secret}".encode()).decode()
    return _token_request(
        workspace,
        endpoint,
        {"grant_type": "client_credentials", "scope": SCOPE},
        _Basic(basic),
        (client_secret, basic),
        resource,
        now,
    )


def federated(
    workspace: Workspace,
    client_id: str,
    id_token: Callable[[str], str],
    resource: str,
    *,
    now: Callable[[], float] = time.time,
) -> AccessToken:
    """`github-oidc`: the job's OIDC token (`id_token(audience)`, asked for the token
    endpoint unless AUDIENCE_ENV names another audience) exchanged for a workspace token."""
    endpoint = token_endpoint(workspace)
    subject = id_token(os.environ.get(AUDIENCE_ENV) or endpoint)
    form = {
        "grant_type": TOKEN_EXCHANGE,
        "subject_token": subject,
        "subject_token_type": JWT_TOKEN_TYPE,
        "scope": SCOPE,
        "client_id": client_id,
    }
    return _token_request(workspace, endpoint, form, _NoAuth(), (subject,), resource, now)


def token_endpoint(workspace: Workspace) -> str:
    """The discovery document's `token_endpoint`, once it is found acceptable."""
    path = (DISCOVERY_PATH if workspace.account_id is None
            else ACCOUNT_DISCOVERY_PATH.format(account_id=workspace.account_id))
    url = workspace.base_url + path
    response = _send(workspace, "GET", url, (), auth=_NoAuth())
    if not response.ok:
        raise _failed(workspace, error_from_response(response))
    try:
        document = json.loads(response.content)
        endpoint = document["token_endpoint"]
    except (ValueError, KeyError, TypeError):
        endpoint = None
    if not isinstance(endpoint, str) or not endpoint:
        raise _refused(workspace, f"the discovery document {url} names no token_endpoint")
    return check_token_endpoint(endpoint, workspace)


def check_token_endpoint(endpoint: str, workspace: Workspace) -> str:
    """`endpoint` if a token request may go there: https (or loopback http where the
    workspace's own address is allowed plain http), on the workspace's host and port, or
    on an identity host of its cloud."""
    try:
        require_secure_url(
            endpoint, allow_insecure_http=workspace.allow_insecure_http, field="token_endpoint"
        )
    except InsecureUrlError as exc:
        raise _refused(workspace, f"the workspace's discovery document is refused: {exc}") from None
    target, home = urlsplit(endpoint), urlsplit(workspace.base_url)
    host = (target.hostname or "").lower()
    if (host, _port(target)) == ((home.hostname or "").lower(), _port(home)):
        return endpoint
    allowed = identity_hosts(home.hostname or "")
    if target.scheme == "https" and target.port in (None, 443) and host in allowed:
        return endpoint
    others = f" or {', '.join(allowed)}" if allowed else ""
    raise _refused(
        workspace,
        f"the workspace's discovery document names the token endpoint {target.scheme}://"
        f"{target.netloc.rpartition('@')[2]}{target.path}, which is not on the workspace's "
        f"host ({home.hostname}{others}): no credential is sent there",
    )


def identity_hosts(workspace_host: str) -> tuple[str, ...]:
    host = workspace_host.lower()
    for zone, hosts in IDENTITY_HOSTS.items():
        if host.endswith(zone):
            return hosts
    return ()


def _port(parts: Any) -> int:
    return parts.port or (443 if parts.scheme == "https" else 80)


def _token_request(
    workspace: Workspace,
    endpoint: str,
    form: dict[str, str],
    auth: AuthBase,
    secrets: tuple[str, ...],
    resource: str,
    now: Callable[[], float],
) -> AccessToken:
    response = _send(workspace, "POST", endpoint, secrets, data=form, auth=auth)
    if not response.ok:
        raise _failed(workspace, error_from_response(response, secrets=secrets))
    try:
        return parse_token_response(json.loads(response.content), resource, now=now)
    except ValueError as exc:
        # Never the body: it may hold the token.
        raise _refused(workspace, f"the token response could not be used: {exc}") from None


def _send(
    workspace: Workspace, method: str, url: str, secrets: tuple[str, ...], **kwargs: Any
) -> requests.Response:
    # Loaded here: the HTTP stack is time a program whose token is cached never spends.
    from providers.client import http

    try:
        return http.send(
            method,
            url,
            policy=http.CallPolicy(
                workspace.timeout_seconds, workspace.max_attempts, workspace.max_retry_seconds
            ),
            idempotent=True,  # a discovery read, and a token request: a second is harmless
            secrets=secrets,
            **kwargs,
        )
    except WorkspaceError as exc:  # no answer, or a redirect refused
        raise _failed(workspace, exc) from None


class _Basic(AuthBase):
    def __init__(self, encoded: str) -> None:
        self._encoded = encoded

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = f"Basic {self._encoded}"
        return request

    def __repr__(self) -> str:
        return "_Basic(***)"


class _NoAuth(AuthBase):
    """No credentials, and none from .netrc either."""

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        return request


def _failed(workspace: Workspace, error: WorkspaceError) -> SignInFailed:
    """A refusal or no answer, as the sign-in's failure (its text is already redacted)."""
    return SignInFailed(
        status=error.status,
        code=error.code,
        message=f"{error.code}: {error.message}",
        method=workspace.method,
        path=error.path,
    )


def _refused(workspace: Workspace, message: str) -> SignInFailed:
    return SignInFailed(
        status=None,
        code="TOKEN_ENDPOINT_REFUSED",
        message=message,
        method=workspace.method,
        path="",
    )
