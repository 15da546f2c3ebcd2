"""The client and auth packages import each other's modules; either may be imported first."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "statement",
    [
        "import providers.client; import providers.auth",
        "import providers.auth; import providers.client",
        "from providers.auth.token import tokens; from providers.client import client_for",
    ],
)
def test_import_order_does_not_matter(statement):
    result = subprocess.run(
        [sys.executable, "-c", statement], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


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
    ]:
        assert hasattr(client, name), name
    for name in [
        "AccessToken",
        "fetch_token",
        "TokenCache",
        "tokens",
        "MANAGEMENT_RESOURCE",
        "WorkspaceAuth",
        "WorkspaceAuthArgs",
    ]:
        assert hasattr(auth, name), name
