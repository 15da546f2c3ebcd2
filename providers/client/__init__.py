"""The workspace REST client: connection settings, wire forms, access tokens and their cache,
transport, typed errors."""

from providers.client.connection import Connection, InsecureUrlError, WireForm
from providers.client.errors import (
    AlreadyExists,
    IdentityError,
    InvalidClientCredentials,
    InvalidParameter,
    InvalidState,
    NotFound,
    PermissionDenied,
    RateLimited,
    ServerError,
    TemporarilyUnavailable,
    Unauthenticated,
    WorkspaceError,
    WorkspaceUnreachable,
    error_from_response,
    is_gone,
)
from providers.client.token import (
    MANAGEMENT_RESOURCE,
    AccessToken,
    TokenCache,
    fetch_token,
    parse_token_response,
    tokens,
)
from providers.client.wire import (
    WireProfile,
    normalise_job_settings,
    parse_binding_workspace_id,
    profile,
)
from providers.client.workspace import WorkspaceClient, client_for

__all__ = [
    "MANAGEMENT_RESOURCE",
    "AccessToken",
    "AlreadyExists",
    "Connection",
    "IdentityError",
    "InsecureUrlError",
    "InvalidClientCredentials",
    "InvalidParameter",
    "InvalidState",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "ServerError",
    "TemporarilyUnavailable",
    "TokenCache",
    "Unauthenticated",
    "WireForm",
    "WireProfile",
    "WorkspaceClient",
    "WorkspaceError",
    "WorkspaceUnreachable",
    "client_for",
    "error_from_response",
    "fetch_token",
    "is_gone",
    "normalise_job_settings",
    "parse_binding_workspace_id",
    "parse_token_response",
    "profile",
    "tokens",
]
