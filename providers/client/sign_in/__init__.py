"""Sign-in methods: how a connection gets a token for a resource, one module per method.

`fetch(connection, resource)` makes one token request the connection's method's way; the
token cache (providers/client/token.py) decides when. A method's module loads on its
first use, so a deployment never imports the service's SDK for a method it does not use.
"""

from __future__ import annotations

import importlib
import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from providers.client.auth_type import AuthType

if TYPE_CHECKING:
    from providers.client.connection import Connection
    from providers.client.token_request import AccessToken

_MODULES: dict[AuthType, str] = {
    AuthType.AZURE_CLIENT_SECRET: "azure_client_secret",
    AuthType.GITHUB_OIDC_AZURE: "azure_client_secret",
    AuthType.AZURE_CLI: "azure_cli",
    AuthType.AZURE_MSI: "azure_msi",
    AuthType.PAT: "personal_token",
    AuthType.OAUTH_M2M: "workspace_oauth",
    AuthType.GITHUB_OIDC: "workspace_oauth",
    AuthType.DATABRICKS_CLI: "cli_profile",
}


# Set to `preview` by the pull-request workflow's preview job: every token is then the
# read-only preview principal's (`preview_client_id`), through GitHub Actions' OIDC token,
# whatever the stack deploys with: a preview needs neither the deploying principal nor
# any secret.
SIGN_IN_AS_ENV = "WORKSPACE_SIGN_IN_AS"
PREVIEW = "preview"


def acting(connection: Connection) -> Connection:
    """The connection as this process signs in: where the environment asks for previews'
    sign-in (SIGN_IN_AS_ENV), the preview principal by federation: `github-oidc-azure`
    where the stack signs in with Azure AD (the same tenant), else `github-oidc`."""
    wanted = os.environ.get(SIGN_IN_AS_ENV)
    if not wanted:
        return connection
    if wanted != PREVIEW:
        raise _refused(connection, f"{SIGN_IN_AS_ENV}={wanted!r}: the only value is {PREVIEW!r}")
    if connection.preview_client_id is None:
        raise _refused(
            connection,
            f"{SIGN_IN_AS_ENV}={PREVIEW} asks for the read-only preview principal, but the "
            "stack names none: set workspace:previewClientId",
        )
    azure = connection.auth_url is not None and connection.tenant_id is not None
    return connection.model_copy(
        update={
            "auth_type": AuthType.GITHUB_OIDC_AZURE if azure else AuthType.GITHUB_OIDC,
            "client_id": connection.preview_client_id,
            "client_secret": None,
            "token": None,
            "profile": None,
            "azure_workspace_resource_id": None,
        }
    )


def _refused(connection: Connection, message: str) -> Exception:
    from providers.client.errors import SignInFailed

    return SignInFailed(
        status=None,
        code="PREVIEW_PRINCIPAL",
        message=message,
        method=connection.method.value,
        path="",
    )


def fetch(
    connection: Connection, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    module = importlib.import_module(f"{__name__}.{_MODULES[connection.method]}")
    token: AccessToken = module.fetch(connection, resource, now=now)
    return token
