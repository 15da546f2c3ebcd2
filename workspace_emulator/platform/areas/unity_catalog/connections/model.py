"""Unity Catalog connections (Lakehouse federation): create, get, list, update, delete.

Names are stored lower case and found without regard to case. A connection belongs to the
metastore this workspace is assigned to when it is made. Its options are a map of strings;
the options that hold a credential (`SECRET_OPTIONS`, any case) are stored but never
answered, as the service keeps them. An update replaces the whole map of options (the
credential included: a client sends it again), its owner or its name; the type, comment,
properties and read-only flag are the create's. A database type needs a `host`.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound, PermissionDenied
from workspace_emulator.platform.areas.unity_catalog.catalogs.model import check_catalog_name
from workspace_emulator.platform.directory import Caller, Directory
from workspace_emulator.storage import Database, from_json, to_json

TABLES = """
CREATE TABLE IF NOT EXISTS uc_connections (name TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""

CONNECTION_TYPES = (
    "BIGQUERY", "DATABRICKS", "GA4_RAW_DATA", "GLUE", "HIVE_METASTORE", "HTTP", "MYSQL",
    "ORACLE", "POSTGRESQL", "POWER_BI", "REDSHIFT", "SALESFORCE", "SALESFORCE_DATA_CLOUD",
    "SERVICENOW", "SNOWFLAKE", "SQLDW", "SQLSERVER", "TERADATA", "WORKDAY_RAAS",
)
NEEDS_HOST = frozenset({"MYSQL", "ORACLE", "POSTGRESQL", "REDSHIFT", "SNOWFLAKE", "SQLDW",
                        "SQLSERVER", "TERADATA", "DATABRICKS", "HTTP"})
# Options that hold a credential: stored, never answered (compared in lower case).
SECRET_OPTIONS = frozenset({
    "password", "client_secret", "personalaccesstoken", "access_token", "token",
    "bearer_token", "refresh_token", "pem_private_key", "pem_private_key_password",
    "private_key", "secret_access_key", "aws_secret_access_key",
    "googleserviceaccountkeyjson",
})
INTERNAL_FIELDS = ("secret_options",)


def is_secret_option(key: str) -> bool:
    return key.lower() in SECRET_OPTIONS


def _check_options(value: Any, required: bool) -> dict[str, str] | None:
    if value is None:
        if required:
            raise InvalidParameter("options is required: a map of strings to strings.")
        return None
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise InvalidParameter("options must be a map of strings to strings.")
    return value


def _view(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in INTERNAL_FIELDS}


def _set_options(doc: dict[str, Any], options: dict[str, str]) -> None:
    doc["options"] = {k: v for k, v in options.items() if not is_secret_option(k)}
    doc["secret_options"] = {k: v for k, v in options.items() if is_secret_option(k)}


class Connections:
    def __init__(self, db: Database, directory: Directory,
                 current_metastore: Callable[[sqlite3.Connection], str | None]) -> None:
        self._db = db
        self._directory = directory
        self._current_metastore = current_metastore

    # --- what other areas ask ---------------------------------------------------------------

    def stored_name(self, conn: sqlite3.Connection, name: str) -> str | None:
        """The connection's name as stored, None where there is none of that name."""
        row = conn.execute("SELECT name FROM uc_connections WHERE name = ?",
                           (name.lower(),)).fetchone()
        return None if row is None else str(row["name"])

    label = "Connection"

    def load(self, conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
        """The connection as a securable of the grants (the unity_catalog area's `Beside`),
        None where there is none of that name."""
        if self.stored_name(conn, name) is None:
            return None
        return {**_view(self._load(conn, name)), "full_name": self.stored_name(conn, name)}

    def exists(self, name: str) -> bool:
        """Whether a connection of that name (any case) exists (what a grant on a
        connection needs)."""
        with self._db.read() as conn:
            return self.stored_name(conn, name) is not None

    # --- connections ----------------------------------------------------------------------

    def _load(self, conn: sqlite3.Connection, name: str) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM uc_connections WHERE name = ?",
                           (name.lower(),)).fetchone()
        if row is None:
            raise NotFound(f"Connection '{name}' does not exist.")
        return from_json(row["doc"])

    def create(self, spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        name = check_catalog_name(spec.get("name"), "name")
        kind = spec.get("connection_type")
        if kind not in CONNECTION_TYPES:
            raise InvalidParameter(f"connection_type {kind!r} is not one of "
                                   f"{', '.join(CONNECTION_TYPES)}.")
        options = _check_options(spec.get("options"), required=True)
        assert options is not None
        if kind in NEEDS_HOST and not options.get("host"):
            raise InvalidParameter(f"options.host is required for a {kind} connection.")
        properties = spec.get("properties")
        if properties is not None and not (isinstance(properties, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in properties.items())):
            raise InvalidParameter("properties must be a map of strings to strings.")
        if not caller.is_admin:
            raise PermissionDenied(f"User does not have CREATE CONNECTION on the metastore "
                                   f"({caller.application_id} is not a metastore admin).")
        now = clock.now_ms()
        doc: dict[str, Any] = {
            "name": name, "full_name": name, "connection_id": str(uuid.uuid4()),
            "connection_type": kind, "owner": caller.application_id,
            "read_only": bool(spec.get("read_only", False)),
            "securable_type": "CONNECTION", "credential_type": "USERNAME_PASSWORD",
            "created_at": now, "created_by": caller.application_id,
            "updated_at": now, "updated_by": caller.application_id,
        }
        _set_options(doc, options)
        for field in ("comment", "properties"):
            if spec.get(field) is not None:
                doc[field] = spec[field]
        with self._db.write() as conn:
            metastore = self._current_metastore(conn)
            if metastore is None:
                raise NotFound("No metastore assigned for the current workspace: assign one "
                               "before creating a connection.")
            doc["metastore_id"] = metastore
            if self.stored_name(conn, name) is not None:
                raise AlreadyExists(f"Connection '{name}' already exists.")
            conn.execute("INSERT INTO uc_connections (name, doc) VALUES (?, ?)",
                         (name, to_json(doc)))
        return _view(doc)

    def get(self, name: str) -> dict[str, Any]:
        with self._db.read() as conn:
            return _view(self._load(conn, name))

    def all(self) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM uc_connections ORDER BY name").fetchall()
        return [_view(from_json(row["doc"])) for row in rows]

    def update(self, name: str, changes: dict[str, Any], caller: Caller) -> dict[str, Any]:
        options = _check_options(changes.get("options"), required=True)
        assert options is not None
        owner = changes.get("owner")
        if owner is not None and not (isinstance(owner, str) and any(
                self._directory.principal_exists(kind, owner)
                for kind in ("user", "group", "service_principal"))):
            raise InvalidParameter(f"owner {owner!r} is not a user, group or service principal.")
        with self._db.write() as conn:
            doc = self._load(conn, name)
            old_name = doc["name"]
            held = doc["owner"]
            if not (caller.is_admin or held == caller.application_id
                    or held in caller.group_names):
                raise PermissionDenied(f"{caller.application_id} is neither a metastore admin "
                                       f"nor the owner of connection {old_name}.")
            if doc["connection_type"] in NEEDS_HOST and not options.get("host"):
                raise InvalidParameter(
                    f"options.host is required for a {doc['connection_type']} connection.")
            _set_options(doc, options)
            if owner is not None:
                doc["owner"] = owner
            new_name = changes.get("new_name")
            if new_name is not None and new_name.lower() != old_name:
                new_name = check_catalog_name(new_name, "new_name")
                if self.stored_name(conn, new_name) is not None:
                    raise AlreadyExists(f"Connection '{new_name}' already exists.")
                doc["name"] = doc["full_name"] = new_name
            doc.update(updated_at=clock.now_ms(), updated_by=caller.application_id)
            conn.execute("UPDATE uc_connections SET name = ?, doc = ? WHERE name = ?",
                         (doc["name"], to_json(doc), old_name))
        return _view(doc)

    def delete(self, name: str, caller: Caller) -> None:
        with self._db.write() as conn:
            doc = self._load(conn, name)
            held = doc["owner"]
            if not (caller.is_admin or held == caller.application_id
                    or held in caller.group_names):
                raise PermissionDenied(f"{caller.application_id} is neither a metastore admin "
                                       f"nor the owner of connection {doc['name']}.")
            conn.execute("DELETE FROM uc_connections WHERE name = ?", (doc["name"],))
