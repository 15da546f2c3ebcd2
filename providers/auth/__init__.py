"""The WorkspaceAuth component: checks a service principal's credentials and hands out the
connection (the tokens themselves are the client's: providers.client.token)."""

from providers.auth.component import (
    WorkspaceAuth,
    WorkspaceAuthArgs,
    WorkspaceAuthError,
    check_credentials,
)

__all__ = [
    "WorkspaceAuth",
    "WorkspaceAuthArgs",
    "WorkspaceAuthError",
    "check_credentials",
]
