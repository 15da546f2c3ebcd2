"""The OAuth secrets of a service principal, through the workspace's proxy of the account
API: create, list, delete.

`service_principal_id` is the workspace's own (SCIM) id of the principal, not its
application id. The secret's value comes in the create's answer and nowhere else: the list
shows each secret's id, status and times, never a value. So the value is handed back to
the caller and never goes into an error: an answer without the fields a kind records is
refused in words of its own, not by quoting the answer.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls
from providers.client.errors import WorkspaceError

PRINCIPALS_PATH = "/api/2.0/accounts/servicePrincipals"
# What a create's answer must hold: the secret's id and its value.
CREATED_FIELDS = ("id", "secret")
# The code of the error a create's answer without them raises: the secret may be made.
INVALID_RESPONSE = "INVALID_RESPONSE"


class ServicePrincipalSecretsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ServicePrincipalSecretsApi({self.client!r})"

    def create(self, service_principal_id: str, lifetime: str | None = None) -> dict[str, Any]:
        """A new secret: `{id, secret, secret_hash, status, create_time, expire_time, ...}`.
        `lifetime` is a duration in seconds, `"<n>s"` (the service's default: 730 days).
        Not repeated after a lost answer: a second try makes a second secret."""
        body = {} if lifetime is None else {"lifetime": lifetime}
        path = _secrets_path(service_principal_id)
        answer = self.client.post(path, body)
        missing = [field for field in CREATED_FIELDS if not answer.get(field)]
        if missing:
            raise WorkspaceError(
                status=200,
                code=INVALID_RESPONSE,
                message=f"the created secret's answer has no {' and no '.join(missing)}",
                method="POST",
                path=path,
            )
        return answer

    def list(self, service_principal_id: str) -> list[dict[str, Any]]:
        """Every secret of the principal, all pages: `{id, status, create_time, expire_time,
        update_time, secret_hash}` each, never a value."""
        path = _secrets_path(service_principal_id)
        found: list[dict[str, Any]] = []
        params: dict[str, Any] = {}
        while True:
            page = self.client.get(path, params or None)
            found += page.get("secrets") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {"page_token": token}

    def delete(self, service_principal_id: str, secret_id: str) -> None:
        """Revoke the secret: sign-ins with it fail from then on."""
        path = f"{_secrets_path(service_principal_id)}/{quote(str(secret_id), safe='')}"
        self.client.delete(path)


def _secrets_path(service_principal_id: str) -> str:
    principal = quote(str(service_principal_id), safe="")
    return f"{PRINCIPALS_PATH}/{principal}/credentials/secrets"
