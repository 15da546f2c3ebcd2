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
from providers.client.token_request import AccessToken


def fetch(
    connection: Connection, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    from databricks.sdk.config import Config

    secrets = connection.secret_values()
    try:
        config = Config(**_settings(connection))
        headers = config.authenticate()
        expiry = _expiry(config)
    except Exception as exc:  # the SDK raises ValueError, IOError and requests' errors alike
        raise SignInFailed(
            status=None,
            code="SIGN_IN_FAILED",
            message=redact_text(str(exc), secrets),
            method=connection.method.value,
            path="",
        ) from None
    scheme, _, value = headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not value:
        raise SignInFailed(
            status=None,
            code="NO_BEARER_TOKEN",
            message=f"the SDK's {config.auth_type!r} sign-in gave no bearer token",
            method=connection.method.value,
            path="",
        )
    return AccessToken(value, expiry if expiry is not None else math.inf, resource)


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
