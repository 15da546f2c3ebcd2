"""Sign-in methods: how a connection gets a token for a resource, one module per method.

`fetch(connection, resource)` makes one token request the connection's method's way; the
token cache (providers/client/token.py) decides when. A method's module loads on its
first use, so a deployment never imports the service's SDK for a method it does not use.
"""

from __future__ import annotations

import importlib
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
    AuthType.OAUTH_M2M: "service_sdk",
    AuthType.GITHUB_OIDC: "service_sdk",
    AuthType.DATABRICKS_CLI: "service_sdk",
}


def fetch(
    connection: Connection, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    module = importlib.import_module(f"{__name__}.{_MODULES[connection.method]}")
    token: AccessToken = module.fetch(connection, resource, now=now)
    return token
