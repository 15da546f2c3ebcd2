"""The workspace REST client: connection settings, wire forms, access tokens and their cache,
transport, typed errors.

Each name loads its module on first use: `from providers.client import Connection` does not
import the service areas (`WorkspaceClient` and the SDK's service modules behind it, ~0.3 s),
so a provider host that only validates a configuration never pays for them.
"""

# The imports for type checkers below are this package's names, not unused.
# ruff: noqa: F401
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Module -> the names it gives this package. tests/unit/test_client_imports.py checks that
# the imports below (for type checkers) list the same names.
_EXPORTS: dict[str, tuple[str, ...]] = {
    "providers.client.connection": ("Connection", "InsecureUrlError", "WireForm"),
    "providers.client.errors": (
        "AlreadyExists",
        "IdentityError",
        "InvalidClientCredentials",
        "InvalidParameter",
        "InvalidState",
        "NotFound",
        "PermissionDenied",
        "RateLimited",
        "RedirectRefused",
        "ServerError",
        "TemporarilyUnavailable",
        "Unauthenticated",
        "WorkspaceError",
        "WorkspaceUnreachable",
        "error_from_response",
        "is_gone",
    ),
    "providers.client.token": ("TokenCache", "tokens"),
    "providers.client.token_request": (
        "MANAGEMENT_RESOURCE",
        "AccessToken",
        "fetch_token",
        "parse_token_response",
    ),
    "providers.client.wire": (
        "WireProfile",
        "normalise_job_settings",
        "parse_binding_workspace_id",
        "profile",
    ),
    "providers.client.workspace": ("WorkspaceClient", "client_for"),
}
_HOMES = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_HOMES)

if TYPE_CHECKING:
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
        RedirectRefused,
        ServerError,
        TemporarilyUnavailable,
        Unauthenticated,
        WorkspaceError,
        WorkspaceUnreachable,
        error_from_response,
        is_gone,
    )
    from providers.client.token import TokenCache, tokens
    from providers.client.token_request import (
        MANAGEMENT_RESOURCE,
        AccessToken,
        fetch_token,
        parse_token_response,
    )
    from providers.client.wire import (
        WireProfile,
        normalise_job_settings,
        parse_binding_workspace_id,
        profile,
    )
    from providers.client.workspace import WorkspaceClient, client_for


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        # Not a name of ours: a submodule (`from providers.client import http`) is then
        # imported by the import system itself.
        raise AttributeError(f"module 'providers.client' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
