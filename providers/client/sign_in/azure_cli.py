"""`azure-cli`: the token of whoever is signed in to the Azure CLI (`az login`), through
the service's SDK's token source (it runs `az account get-access-token`). The CLI keeps its
own token cache, so the program and the provider host get the same token."""

from __future__ import annotations

import time
from collections.abc import Callable

from providers.client.auth_type import AuthType
from providers.client.connection import Connection
from providers.client.errors import SignInFailed
from providers.client.token_request import AccessToken


def fetch(
    connection: Connection, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    from databricks.sdk.credentials_provider import AzureCliTokenSource

    try:
        token = AzureCliTokenSource(resource, tenant=connection.tenant_id).token()
    except FileNotFoundError:
        raise _failed("the Azure CLI (`az`) is not on PATH: install it, run `az login`") from None
    except (OSError, ValueError) as exc:
        raise _failed(f"{exc}; run `az login` (--tenant where the stack sets tenantId)") from None
    except KeyError as exc:  # the SDK reads the CLI's answer by key
        raise _failed(f"the Azure CLI's token has no {exc}: update the Azure CLI") from None
    expires_on = token.expiry.timestamp() if token.expiry else now() + 300
    return AccessToken(token.access_token, expires_on, resource)


def _failed(message: str) -> SignInFailed:
    return SignInFailed(
        status=None, code="AZURE_CLI", message=message, method=AuthType.AZURE_CLI, path=""
    )
