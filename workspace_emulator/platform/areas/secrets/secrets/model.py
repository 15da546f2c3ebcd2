"""The secrets of a scope and the scope's access-control list, enforced.

A principal (a user name, a group name, or a service principal's application id) holds
READ, WRITE or MANAGE on a scope; a caller's permission is the highest of its own entry and
its groups' (every principal is in `users`), and workspace admins MANAGE every scope.
Listing or reading secrets needs READ, writing or deleting them WRITE, anything on the
access-control list MANAGE. The creator of a scope MANAGEs it (with `users`, when the create
said `initial_manage_principal: users`).

Values are kept as the bytes' base64, and leave only in get-secret's answer: no error
message names one.
"""

from __future__ import annotations

import base64
import binascii
import re
import sqlite3
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import InvalidParameter, NotFound, PermissionDenied
from workspace_emulator.platform.directory import Caller, Directory
from workspace_emulator.storage import Database, from_json

PERMISSIONS = ("READ", "WRITE", "MANAGE")
RANK = {permission: rank for rank, permission in enumerate(PERMISSIONS, start=1)}
KEY_PATTERN = re.compile(r"[A-Za-z0-9_.\-]{1,128}")
MAX_VALUE_BYTES = 128 * 1024
MAX_SECRETS_PER_SCOPE = 1000
KINDS = ("service_principal", "user", "group")


TABLES = """
CREATE TABLE IF NOT EXISTS secrets (scope TEXT NOT NULL, key TEXT NOT NULL,
    value TEXT NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (scope, key));
CREATE TABLE IF NOT EXISTS secret_acls (scope TEXT NOT NULL, principal TEXT NOT NULL,
    permission TEXT NOT NULL, PRIMARY KEY (scope, principal));
"""


class Secrets:
    def __init__(self, db: Database, directory: Directory) -> None:
        self._db = db
        self._directory = directory

    # --- secrets --------------------------------------------------------------------
    def put(self, request: dict[str, Any], caller: Caller) -> None:
        scope, key = request.get("scope"), request.get("key")
        if not isinstance(key, str) or not KEY_PATTERN.fullmatch(key):
            raise InvalidParameter(
                "key must consist of letters, digits, dashes, underscores and periods, "
                "at most 128 characters")
        value = _value_bytes(request)
        with self._db.write() as conn:
            doc = self._authorised(conn, scope, caller, "WRITE")
            if doc["backend_type"] != "DATABRICKS":
                raise InvalidParameter(
                    f"Scope {scope} is backed by a key vault: write its secrets in the vault.")
            exists = conn.execute("SELECT 1 FROM secrets WHERE scope = ? AND key = ?",
                                  (scope, key)).fetchone()
            count = conn.execute("SELECT COUNT(*) FROM secrets WHERE scope = ?",
                                 (scope,)).fetchone()[0]
            if not exists and count >= MAX_SECRETS_PER_SCOPE:
                raise InvalidParameter(
                    f"Scope {scope} holds {MAX_SECRETS_PER_SCOPE} secrets, the most it may.")
            conn.execute(
                "INSERT INTO secrets (scope, key, value, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (scope, key) DO UPDATE SET value = excluded.value, "
                "updated_at = excluded.updated_at",
                (scope, key, base64.b64encode(value).decode(), clock.now_ms()))

    def list_secrets(self, scope: Any, caller: Caller) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            self._authorised(conn, scope, caller, "READ")
            rows = conn.execute(
                "SELECT key, updated_at FROM secrets WHERE scope = ? ORDER BY key", (scope,))
            return [{"key": r["key"], "last_updated_timestamp": r["updated_at"]} for r in rows]

    def get(self, scope: Any, key: Any, caller: Caller) -> dict[str, Any]:
        with self._db.read() as conn:
            self._authorised(conn, scope, caller, "READ")
            row = conn.execute("SELECT value FROM secrets WHERE scope = ? AND key = ?",
                               (scope, key)).fetchone()
        if row is None:
            raise NotFound(f"Secret {key} does not exist in scope {scope}.")
        return {"key": key, "value": row["value"]}

    def delete(self, scope: Any, key: Any, caller: Caller) -> None:
        with self._db.write() as conn:
            self._authorised(conn, scope, caller, "WRITE")
            deleted = conn.execute("DELETE FROM secrets WHERE scope = ? AND key = ?",
                                   (scope, key)).rowcount
        if not deleted:
            raise NotFound(f"Secret {key} does not exist in scope {scope}.")

    # --- the access-control list ----------------------------------------------------
    def put_acl(self, scope: Any, principal: Any, permission: Any, caller: Caller) -> None:
        if not isinstance(permission, str) or permission not in RANK:
            raise InvalidParameter(
                f"permission must be one of {', '.join(PERMISSIONS)}, got {permission!r}")
        if not isinstance(principal, str) or not self._principal_exists(principal):
            raise InvalidParameter(f"Principal {principal} does not exist.")
        with self._db.write() as conn:
            self._authorised(conn, scope, caller, "MANAGE")
            grant(conn, scope, principal, permission)

    def get_acl(self, scope: Any, principal: Any, caller: Caller) -> dict[str, Any]:
        with self._db.read() as conn:
            self._authorised(conn, scope, caller, "MANAGE")
            row = conn.execute(
                "SELECT permission FROM secret_acls WHERE scope = ? AND principal = ?",
                (scope, principal)).fetchone()
        if row is None:
            raise NotFound(f"No ACL for principal {principal} in scope {scope}.")
        return {"principal": principal, "permission": row["permission"]}

    def list_acls(self, scope: Any, caller: Caller) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            self._authorised(conn, scope, caller, "MANAGE")
            rows = conn.execute("SELECT principal, permission FROM secret_acls WHERE scope = ?"
                                " ORDER BY principal", (scope,)).fetchall()
        return [{"principal": r["principal"], "permission": r["permission"]} for r in rows]

    def delete_acl(self, scope: Any, principal: Any, caller: Caller) -> None:
        with self._db.write() as conn:
            self._authorised(conn, scope, caller, "MANAGE")
            deleted = conn.execute(
                "DELETE FROM secret_acls WHERE scope = ? AND principal = ?",
                (scope, principal)).rowcount
        if not deleted:
            raise NotFound(f"No ACL for principal {principal} in scope {scope}.")

    # --- helpers --------------------------------------------------------------------
    def _authorised(self, conn: sqlite3.Connection, scope: Any, caller: Caller,
                    needed: str) -> dict[str, Any]:
        if not isinstance(scope, str):
            raise InvalidParameter("scope must be a string")
        row = conn.execute("SELECT doc FROM secret_scopes WHERE name = ?", (scope,)).fetchone()
        if row is None:
            raise NotFound(f"Scope {scope} does not exist!")
        if self._permission_rank(conn, scope, caller) < RANK[needed]:
            raise PermissionDenied(
                f"{caller.application_id} does not have {needed} permission on scope {scope}.")
        return from_json(row["doc"])

    @staticmethod
    def _permission_rank(conn: sqlite3.Connection, scope: str, caller: Caller) -> int:
        if caller.is_admin:
            return RANK["MANAGE"]
        names = {caller.application_id, *caller.group_names}
        rows = conn.execute("SELECT principal, permission FROM secret_acls WHERE scope = ?",
                            (scope,)).fetchall()
        return max((RANK[r["permission"]] for r in rows if r["principal"] in names), default=0)

    def _principal_exists(self, principal: str) -> bool:
        return any(self._directory.principal_exists(kind, principal) for kind in KINDS)


def grant(conn: sqlite3.Connection, scope: str, principal: str, permission: str) -> None:
    conn.execute(
        "INSERT INTO secret_acls (scope, principal, permission) VALUES (?, ?, ?) "
        "ON CONFLICT (scope, principal) DO UPDATE SET permission = excluded.permission",
        (scope, principal, permission))


def _value_bytes(request: dict[str, Any]) -> bytes:
    """The value to store; the messages never name it."""
    given = [f for f in ("string_value", "bytes_value") if request.get(f) is not None]
    if len(given) != 1:
        raise InvalidParameter("give exactly one of string_value and bytes_value")
    raw = request[given[0]]
    if not isinstance(raw, str):
        raise InvalidParameter(f"{given[0]} must be a string")
    if given[0] == "string_value":
        value = raw.encode("utf-8")
    else:
        try:
            value = base64.b64decode(raw, validate=True)
        except (binascii.Error, ValueError):
            raise InvalidParameter("bytes_value must be base64") from None
    if len(value) > MAX_VALUE_BYTES:
        raise InvalidParameter(f"A secret's value may hold at most {MAX_VALUE_BYTES} bytes.")
    return value
