"""`databricks-cli`: a profile of the service's config file (`~/.databrickscfg`, or
DATABRICKS_CONFIG_FILE) and the DATABRICKS_* / ARM_* environment variables, read as the
service's CLI reads them (the service's SDK's configuration loader), and signed in to the
stack's workspace (`baseUrl`).

- The profile's `host` (or DATABRICKS_HOST), where it names one, must be the stack's
  workspace: a profile's credential is for its host, and is never sent to another one.
- A token (`pat`), an OAuth secret (`oauth-m2m`) and `github-oidc` sign in here, through
  the project's transport (sign_in/workspace_oauth.py: the discovery document checked, no
  redirect followed).
- `databricks-cli` (the CLI's own login: `databricks auth token`), `azure-cli` (`az`),
  `azure-client-secret` and `github-oidc-azure` are the service's SDK's: they run the tool,
  or ask the Azure cloud's own identity provider, never an address the workspace names.
- Any other method, or a profile that names no credential, is refused naming the profile.

A new configuration per token request: the SDK's own token refresh would otherwise race the
cache's (providers/client/token.py), which decides when a token is fetched.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from providers.client.auth_type import AuthType
from providers.client.connection import Connection
from providers.client.errors import SignInFailed, redact_text
from providers.client.sign_in import github_actions
from providers.client.sign_in.workspace_oauth import Workspace, client_credentials, federated
from providers.client.token_request import AccessToken

METHOD = AuthType.DATABRICKS_CLI.value
THROUGH_THE_TRANSPORT = ("pat", "oauth-m2m", "github-oidc")
THROUGH_THE_SDK = ("databricks-cli", "azure-cli", "azure-client-secret", "github-oidc-azure")
# The profile's settings that are credentials, for redaction.
_SECRET_SETTINGS = ("token", "client_secret", "azure_client_secret", "password")


def fetch(
    connection: Connection, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    settings = read_profile(connection)
    secrets = (*connection.secret_values(), *_secret_values(settings))
    _refuse_another_host(settings.get("host"), connection)
    method = _method(settings, connection)
    workspace = Workspace.of(connection, METHOD)
    if method == "pat":
        return AccessToken(_needed(settings, "token", method, connection), math.inf, resource)
    if method == "oauth-m2m":
        client_id = _needed(settings, "client_id", method, connection)
        secret = _needed(settings, "client_secret", method, connection)
        return client_credentials(workspace, client_id, secret, resource, now=now)
    if method == "github-oidc":
        client_id = _needed(settings, "client_id", method, connection)
        github_actions.require_job_environment(METHOD)
        return federated(
            workspace,
            client_id,
            lambda audience: github_actions.id_token(audience, METHOD),
            resource,
            now=now,
        )
    return _through_the_sdk(connection, settings, method, resource, secrets)


def read_profile(connection: Connection) -> dict[str, Any]:
    """The profile's settings and the environment's, as the service's CLI resolves them,
    without signing in and without any request."""
    from databricks.sdk.config import Config

    # The SDK lists its settings from the class it is asked on, once: asked on Config first,
    # the subclass inherits the list.
    Config.attributes()

    class _SettingsOnly(Config):  # type: ignore[misc]
        def _resolve_host_metadata(self) -> None:
            """No request: the host is judged before anything is sent to it."""

        def init_auth(self) -> None:
            """No sign-in: which method, and where, is decided here."""

    try:
        loaded = (
            _SettingsOnly(profile=connection.profile) if connection.profile else _SettingsOnly()
        )
    except ValueError as exc:
        raise _failed(redact_text(str(exc), connection.secret_values())) from None
    return dict(loaded.as_dict())


def _refuse_another_host(host: str | None, connection: Connection) -> None:
    if not host:
        return
    theirs, ours = urlsplit(host), urlsplit(connection.base_url)
    if _address(theirs) != _address(ours):
        where = f"profile {connection.profile!r}" if connection.profile else "the profile in force"
        raise _failed(
            f"{where} is for {theirs.scheme}://{theirs.netloc}, not the stack's workspace "
            f"{connection.base_url}: its credential is not sent to another host. Name a "
            "profile whose host is the workspace (workspace:profile), or change the "
            "profile's host"
        )


def _address(parts: Any) -> tuple[str, str, int]:
    scheme = (parts.scheme or "https").lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)


def _method(settings: dict[str, Any], connection: Connection) -> str:
    named = settings.get("auth_type")
    if named:
        method = str(named)
    elif settings.get("token"):
        method = "pat"
    elif settings.get("client_id") and settings.get("client_secret"):
        method = "oauth-m2m"
    elif settings.get("azure_client_secret"):
        method = "azure-client-secret"
    else:
        raise _failed(
            f"{_which(connection)} names no credential (token, client_id and client_secret, "
            "or auth_type): sign in with `databricks auth login`, which writes "
            "auth_type = databricks-cli, or set the profile's auth_type"
        )
    if method not in (*THROUGH_THE_TRANSPORT, *THROUGH_THE_SDK):
        raise _failed(
            f"{_which(connection)} signs in with auth_type {method!r}, which this project "
            f"does not take from a profile; known ones: "
            f"{', '.join(repr(m) for m in (*THROUGH_THE_TRANSPORT, *THROUGH_THE_SDK))}"
        )
    return method


def _needed(settings: dict[str, Any], name: str, method: str, connection: Connection) -> str:
    value = settings.get(name)
    if not value:
        raise _failed(f"{_which(connection)} signs in with {method!r} but sets no {name}")
    return str(value)


def _through_the_sdk(
    connection: Connection,
    settings: dict[str, Any],
    method: str,
    resource: str,
    secrets: tuple[str, ...],
) -> AccessToken:
    from databricks.sdk.config import Config

    given = {k: v for k, v in settings.items() if k not in ("profile", "config_file", "host")}
    given |= {
        "host": connection.base_url,
        "auth_type": method,
        "http_timeout_seconds": connection.timeout_seconds,
        "retry_timeout_seconds": connection.max_retry_seconds,
    }
    try:
        config = Config(**given)
        headers = config.authenticate()
        scheme, _, value = headers.get("Authorization", "").partition(" ")
        expiry = _expiry(config)
    except Exception as exc:  # the SDK raises ValueError, IOError and requests' errors alike
        raise _failed(redact_text(str(exc), secrets)) from None
    if scheme.lower() != "bearer" or not value:
        raise SignInFailed(
            status=None,
            code="NO_BEARER_TOKEN",
            message=f"the SDK's {method!r} sign-in gave no bearer token",
            method=METHOD,
            path="",
        )
    return AccessToken(value, expiry if expiry is not None else math.inf, resource)


def _expiry(config: Any) -> float | None:
    """The token's expiry in epoch seconds; None for a token that does not say."""
    try:
        token = config.oauth_token()
    except ValueError:
        return None
    return token.expiry.timestamp() if token.expiry else None


def _secret_values(settings: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(settings[name]) for name in _SECRET_SETTINGS if settings.get(name))


def _which(connection: Connection) -> str:
    return f"profile {connection.profile!r}" if connection.profile else "the profile in force"


def _failed(message: str) -> SignInFailed:
    return SignInFailed(status=None, code="SIGN_IN_FAILED", message=message, method=METHOD, path="")
