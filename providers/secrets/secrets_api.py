"""The secrets area of the REST API: the secrets in a scope (put, list, delete; the service
lists keys and never a value) and a scope's access-control list (put, get, list, delete).

A secret's value goes out in one request body and nowhere else: not in a path or a query,
and any error the service answers a put with has the value taken out before it is raised."""

from __future__ import annotations

import copy
from typing import Any

from providers.client.calls import Calls
from providers.client.errors import WorkspaceError, redact_text

SECRETS_PATH = "/api/2.0/secrets"


class SecretsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"SecretsApi({self.client!r})"

    # --- secrets --------------------------------------------------------------------
    def put(
        self, scope: str, key: str, *, string_value: str | None = None,
        bytes_value: str | None = None,
    ) -> None:
        """Write the secret (created or overwritten): `string_value`, or `bytes_value` (the
        bytes in base64), exactly one. Safe to repeat: a second put writes the same."""
        if (string_value is None) == (bytes_value is None):
            raise ValueError("give exactly one of string_value and bytes_value")
        value = string_value if string_value is not None else bytes_value
        body = {"scope": scope, "key": key}
        body["string_value" if string_value is not None else "bytes_value"] = str(value)
        try:
            self.client.post(f"{SECRETS_PATH}/put", body, idempotent=True)
        except WorkspaceError as error:
            raise _without(error, str(value)) from None

    def list_secrets(self, scope: str) -> list[dict[str, Any]]:
        """The scope's secrets: `{key, last_updated_timestamp}` each, never a value."""
        answer = self.client.get(f"{SECRETS_PATH}/list", {"scope": scope})
        return answer.get("secrets") or []

    def get(self, scope: str, key: str) -> dict[str, Any]:
        """`{key, value}`, the value in base64: the one call that returns a value (an import
        reads it once, to record its digest). Needs READ on the scope."""
        return self.client.get(f"{SECRETS_PATH}/get", {"scope": scope, "key": key})

    def delete(self, scope: str, key: str) -> None:
        self.client.post(f"{SECRETS_PATH}/delete", {"scope": scope, "key": key}, idempotent=True)

    # --- the scope's access-control list ----------------------------------------------
    def put_acl(self, scope: str, principal: str, permission: str) -> None:
        """Grant `permission` (READ, WRITE, MANAGE) on the scope; replaces the principal's."""
        body = {"scope": scope, "principal": principal, "permission": permission}
        self.client.post(f"{SECRETS_PATH}/acls/put", body, idempotent=True)

    def get_acl(self, scope: str, principal: str) -> dict[str, Any]:
        """`{principal, permission}`; NotFound when the principal has no entry."""
        return self.client.get(f"{SECRETS_PATH}/acls/get", {"scope": scope, "principal": principal})

    def list_acls(self, scope: str) -> list[dict[str, Any]]:
        answer = self.client.get(f"{SECRETS_PATH}/acls/list", {"scope": scope})
        return answer.get("items") or []

    def delete_acl(self, scope: str, principal: str) -> None:
        body = {"scope": scope, "principal": principal}
        self.client.post(f"{SECRETS_PATH}/acls/delete", body, idempotent=True)


def _without(error: WorkspaceError, value: str) -> WorkspaceError:
    """The same error with `value` taken out of everything the service said."""
    cleaned = copy.copy(error)
    cleaned.message = redact_text(error.message, (value,))
    cleaned.code = redact_text(error.code, (value,))
    cleaned.args = (str(cleaned),)
    return cleaned
