"""`oauth-m2m`, `github-oidc` and `databricks-cli`: the methods the service's own SDK signs
in with, through its unified client configuration (`databricks.sdk.config.Config`).

- `oauth-m2m`: a service principal's OAuth secret exchanged at the workspace's OIDC token
  endpoint (found through the workspace's discovery document) for an `all-apis` token.
- `github-oidc`: the GitHub Actions job's OIDC token exchanged at the same endpoint for a
  workspace token (the service's token federation; the principal's federation policy says
  which repository and environment may).
- `databricks-cli`: a profile of the service's config file (`~/.databrickscfg`, or
  DATABRICKS_CONFIG_FILE) and the DATABRICKS_* environment variables, read as the service's
  CLI reads them; the profile says how to sign in (a token, an OAuth secret, Azure, or the
  CLI's own login). The stack's `baseUrl` still names the workspace: a profile never moves
  a stack to another one.

A new configuration per token request: the SDK's own token refresh would otherwise race
the cache's (providers/client/token.py), which decides when a token is fetched.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from providers.client.auth_type import AuthType
from providers.client.connection import Connection
from providers.client.errors import SignInFailed, redact_text
from providers.client.sign_in import github_actions
from providers.client.token_request import AccessToken


def fetch(
    connection: Connection, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    from databricks.sdk.config import Config

    if connection.method is AuthType.GITHUB_OIDC:
        # Checked here: the SDK would only say that no method could be configured.
        github_actions.require_job_environment(connection.method)
    secrets = connection.secret_values()
    try:
        config = Config(**_settings(connection))
        if connection.method in _OAUTH:
            # One token request: the value and the expiry of the same token (the SDK's
            # federated sign-in exchanges a new ID token on each of its calls).
            token = config.oauth_token()
            scheme, value = token.token_type or "", token.access_token
            expiry = token.expiry.timestamp() if token.expiry else None
        else:
            headers = config.authenticate()
            scheme, _, value = headers.get("Authorization", "").partition(" ")
            expiry = _expiry(config)
    except Exception as exc:  # the SDK raises ValueError, IOError and requests' errors alike
        raise SignInFailed(
            status=None,
            code="SIGN_IN_FAILED",
            message=redact_text(str(exc), secrets),
            method=connection.method.value,
            path="",
        ) from None
    if scheme.lower() != "bearer" or not value:
        raise SignInFailed(
            status=None,
            code="NO_BEARER_TOKEN",
            message=f"the SDK's {config.auth_type!r} sign-in gave no bearer token",
            method=connection.method.value,
            path="",
        )
    return AccessToken(value, expiry if expiry is not None else math.inf, resource)


# The methods that are the service's OAuth whatever the environment says.
_OAUTH = frozenset({AuthType.OAUTH_M2M, AuthType.GITHUB_OIDC})
# The workspace's OIDC discovery document. Named here: the SDK finds it only through the
# workspace's host metadata (`/.well-known/databricks-config`), and without that tries an
# address of None.
DISCOVERY_PATH = "/oidc/.well-known/oauth-authorization-server"


def _settings(connection: Connection) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "host": connection.base_url,
        "http_timeout_seconds": connection.timeout_seconds,
        "retry_timeout_seconds": connection.max_retry_seconds,
    }
    if connection.method is AuthType.DATABRICKS_CLI:
        # The profile chooses the method, as the CLI lets it.
        if connection.profile:
            settings["profile"] = connection.profile
        return settings
    settings["auth_type"] = connection.method.value
    settings["discovery_url"] = connection.base_url + DISCOVERY_PATH
    settings["client_id"] = connection.client_id
    if connection.client_secret is not None:
        settings["client_secret"] = connection.client_secret.get_secret_value()
    return settings


def _expiry(config: Any) -> float | None:
    """The token's expiry in epoch seconds; None for a token that does not say (a personal
    access token from a profile)."""
    try:
        token = config.oauth_token()
    except ValueError:
        return None
    return token.expiry.timestamp() if token.expiry else None
