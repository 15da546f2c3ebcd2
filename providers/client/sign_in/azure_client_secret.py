"""`azure-client-secret` and `github-oidc-azure`: a token from the identity provider
(Azure AD) for the principal's application, proven by its client secret, or by a federated
credential: the CI provider's OIDC token, presented as a signed client assertion."""

from __future__ import annotations

import time
from collections.abc import Callable

from providers.client.auth_type import AuthType
from providers.client.connection import Connection
from providers.client.sign_in import github_actions
from providers.client.token_request import AccessToken, fetch_token

# The audience Azure AD expects of a federated credential's token.
AZURE_FEDERATION_AUDIENCE = "api://AzureADTokenExchange"


def fetch(
    connection: Connection, resource: str, *, now: Callable[[], float] = time.time
) -> AccessToken:
    assert connection.auth_url and connection.tenant_id and connection.client_id
    assertion = None
    if connection.method is AuthType.GITHUB_OIDC_AZURE:
        assertion = github_actions.id_token(AZURE_FEDERATION_AUDIENCE, connection.method)
    return fetch_token(
        connection.auth_url,
        connection.tenant_id,
        connection.client_id,
        connection.client_secret,
        resource,
        connection.wire_form,
        client_assertion=assertion,
        timeout_seconds=connection.timeout_seconds,
        max_attempts=connection.max_attempts,
        max_retry_seconds=connection.max_retry_seconds,
        allow_insecure_http=connection.allow_insecure_http,
        now=now,
    )
