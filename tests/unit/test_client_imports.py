"""The names the client and auth packages export. (That neither imports the other in a
circle is a contract of pyproject.toml's [tool.importlinter]: test_import_layers.py.)"""

from __future__ import annotations


def test_public_names():
    import providers.auth as auth
    import providers.client as client

    for name in [
        "Connection",
        "WireForm",
        "WorkspaceError",
        "InvalidParameter",
        "AlreadyExists",
        "InvalidState",
        "Unauthenticated",
        "PermissionDenied",
        "NotFound",
        "RateLimited",
        "ServerError",
        "TemporarilyUnavailable",
        "IdentityError",
        "InvalidClientCredentials",
        "error_from_response",
        "profile",
        "WireProfile",
        "normalise_job_settings",
        "WorkspaceClient",
        "client_for",
        "AccessToken",
        "fetch_token",
        "TokenCache",
        "tokens",
        "MANAGEMENT_RESOURCE",
    ]:
        assert hasattr(client, name), name
    for name in ["WorkspaceAuth", "WorkspaceAuthArgs"]:
        assert hasattr(auth, name), name
