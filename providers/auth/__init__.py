"""Authentication: access tokens for a service principal, and the WorkspaceAuth component."""

from providers.auth.component import (
    WorkspaceAuth,
    WorkspaceAuthArgs,
    WorkspaceAuthError,
    check_credentials,
)
from providers.auth.token import (
    MANAGEMENT_RESOURCE,
    AccessToken,
    TokenCache,
    fetch_token,
    parse_token_response,
    tokens,
)

__all__ = [
    "MANAGEMENT_RESOURCE",
    "AccessToken",
    "TokenCache",
    "WorkspaceAuth",
    "WorkspaceAuthArgs",
    "WorkspaceAuthError",
    "check_credentials",
    "fetch_token",
    "parse_token_response",
    "tokens",
]
