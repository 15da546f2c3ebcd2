"""The CI provider's OIDC token of the running GitHub Actions job, through the service's
SDK's supplier (it reads ACTIONS_ID_TOKEN_REQUEST_URL and ACTIONS_ID_TOKEN_REQUEST_TOKEN,
which GitHub sets only for a job granted `permissions: id-token: write`)."""

from __future__ import annotations

import os

from providers.client.errors import SignInFailed

REQUEST_URL = "ACTIONS_ID_TOKEN_REQUEST_URL"
REQUEST_TOKEN = "ACTIONS_ID_TOKEN_REQUEST_TOKEN"


def require_job_environment(method: str) -> None:
    """Raise naming what is missing where this is not a job that may get an OIDC token."""
    missing = [name for name in (REQUEST_URL, REQUEST_TOKEN) if not os.environ.get(name)]
    if missing:
        raise _failed(
            method,
            f"{' and '.join(missing)} not set: this is not a GitHub Actions job, or the job "
            "lacks `permissions: id-token: write`",
        )


def id_token(audience: str, method: str) -> str:
    require_job_environment(method)
    from databricks.sdk.oidc_token_supplier import GitHubOIDCTokenSupplier

    token = GitHubOIDCTokenSupplier().get_oidc_token(audience)
    if not token:
        raise _failed(method, f"GitHub Actions gave no OIDC token for audience {audience!r}")
    return token


def _failed(method: str, message: str) -> SignInFailed:
    return SignInFailed(status=None, code="NO_OIDC_TOKEN", message=message, method=method, path="")
