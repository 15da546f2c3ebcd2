"""The workspace REST client: connection settings, wire forms, transport, typed errors."""

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
from providers.client.wire import (
    WireProfile,
    normalise_job_settings,
    parse_binding_workspace_id,
    profile,
)
from providers.client.workspace import WorkspaceClient, client_for

__all__ = [
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
    "Unauthenticated",
    "WireForm",
    "WireProfile",
    "WorkspaceClient",
    "WorkspaceError",
    "WorkspaceUnreachable",
    "client_for",
    "error_from_response",
    "is_gone",
    "normalise_job_settings",
    "parse_binding_workspace_id",
    "profile",
]
