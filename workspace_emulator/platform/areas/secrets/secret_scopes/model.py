"""Secret scopes: workspace-backed (DATABRICKS) or key-vault backed; immutable once made.

The key-vault backend has two spellings (docs/api.md#wire-forms): seed CLOUD_KEYVAULT with
`backend_cloud_keyvault`, public AZURE_KEYVAULT with `backend_azure_keyvault`. A scope is
listed with the spelling it was created with.
"""

from __future__ import annotations

import re
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound
from workspace_emulator.platform.areas.secrets.secrets.model import grant
from workspace_emulator.storage import Database, from_json, to_json

NAME_PATTERN = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
KEYVAULT_FIELD_BY_BACKEND = {
    "CLOUD_KEYVAULT": "backend_cloud_keyvault",
    "AZURE_KEYVAULT": "backend_azure_keyvault",
}
DATABRICKS_BACKEND = "DATABRICKS"
INITIAL_MANAGE_PRINCIPALS = ("users",)


def _keyvault_metadata(backend: str, settings: Any) -> dict[str, str]:
    field = KEYVAULT_FIELD_BY_BACKEND[backend]
    if not isinstance(settings, dict):
        raise InvalidParameter(f"scope_backend_type {backend} requires '{field}'")
    resource_id, dns_name = settings.get("resource_id"), settings.get("dns_name")
    if not isinstance(resource_id, str) or "/providers/microsoft.keyvault/vaults/" not in \
            resource_id.lower():
        raise InvalidParameter(
            f"{field}.resource_id must be a key vault resource id "
            "(/subscriptions/.../providers/Microsoft.KeyVault/vaults/<name>)"
        )
    if not isinstance(dns_name, str) or not dns_name.startswith("https://"):
        raise InvalidParameter(f"{field}.dns_name must be the vault's https:// address")
    return {"resource_id": resource_id, "dns_name": dns_name}


TABLES = """
CREATE TABLE IF NOT EXISTS secret_scopes (name TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


class SecretScopes:
    def __init__(self, db: Database) -> None:
        self._db = db

    def all(self) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM secret_scopes ORDER BY name").fetchall()
        return [self._render(from_json(row["doc"])) for row in rows]

    @staticmethod
    def _render(doc: dict[str, Any]) -> dict[str, Any]:
        view = {"name": doc["name"], "backend_type": doc["backend_type"]}
        if "keyvault_metadata" in doc:
            view["keyvault_metadata"] = doc["keyvault_metadata"]
        return view

    def create(self, request: dict[str, Any], created_by: str, creator_is_principal: bool = True
               ) -> None:
        """The creator (a principal's application id, unless `creator_is_principal` is false)
        MANAGEs the new scope, and so do all users with `initial_manage_principal: users`."""
        name = request.get("scope")
        if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
            raise InvalidParameter(
                "Scope name must consist of letters, digits, dashes, underscores and periods, "
                f"at most 128 characters; got {name!r}"
            )
        backend = request.get("scope_backend_type") or DATABRICKS_BACKEND
        principal = request.get("initial_manage_principal")
        if principal is not None and principal not in INITIAL_MANAGE_PRINCIPALS:
            raise InvalidParameter(
                f"initial_manage_principal must be 'users' or left out; got {principal!r}")
        doc: dict[str, Any] = {"name": name, "backend_type": backend, "created_by": created_by,
                               "created_at": clock.now_ms()}
        if backend in KEYVAULT_FIELD_BY_BACKEND:
            other = next(f for b, f in KEYVAULT_FIELD_BY_BACKEND.items() if b != backend)
            if other in request:
                raise InvalidParameter(
                    f"scope_backend_type {backend} goes with "
                    f"'{KEYVAULT_FIELD_BY_BACKEND[backend]}', not '{other}'")
            doc["keyvault_metadata"] = _keyvault_metadata(
                backend, request.get(KEYVAULT_FIELD_BY_BACKEND[backend]))
        elif backend != DATABRICKS_BACKEND:
            raise InvalidParameter(
                f"scope_backend_type must be DATABRICKS, AZURE_KEYVAULT or CLOUD_KEYVAULT; "
                f"got {backend!r}")
        with self._db.write() as conn:
            if conn.execute("SELECT 1 FROM secret_scopes WHERE name = ?", (name,)).fetchone():
                raise AlreadyExists(f"Scope {name} already exists!")
            conn.execute("INSERT INTO secret_scopes (name, doc) VALUES (?, ?)",
                         (name, to_json(doc)))
            if creator_is_principal:
                grant(conn, name, created_by, "MANAGE")
            if principal is not None:
                grant(conn, name, principal, "MANAGE")

    def delete(self, name: Any) -> None:
        if not isinstance(name, str):
            raise InvalidParameter("scope must be a string")
        with self._db.write() as conn:
            deleted = conn.execute("DELETE FROM secret_scopes WHERE name = ?", (name,)).rowcount
            conn.execute("DELETE FROM secrets WHERE scope = ?", (name,))
            conn.execute("DELETE FROM secret_acls WHERE scope = ?", (name,))
        if not deleted:
            raise NotFound(f"Scope {name} does not exist!")
