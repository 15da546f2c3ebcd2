"""Unity Catalog tables (views and materialized views among them) and functions, kept in the
unity_catalog area's schemas: each kind is that area's `SchemaMembers`, so grants reach them
(`table`, `function`), a schema's delete counts them and a schema's rename moves them. No
HTTP here.

A table is made through the API's create, which the service limits to external Delta tables
(table_type EXTERNAL, data_source_format DELTA, a storage_location); views and materialized
views are made by SQL and pipelines, which the emulator does not run, so `add_table` (the
tests' hook, the pipelines' too) puts one of any type. A function's create takes the SDK's
`CreateFunction` (function_info); its body is stored, never run. Names are stored lower case.
Creating needs an admin, the schema's owner, or USE_CATALOG, USE_SCHEMA and CREATE_TABLE
(CREATE_FUNCTION for a function); deleting, its owner or MANAGE.
"""

from __future__ import annotations

import sqlite3
import uuid
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import (
    FUNCTION,
    SCHEMA,
    TABLE,
    KeptSecurables,
    UnityCatalog,
    check_name,
)
from workspace_emulator.platform.directory import Caller
from workspace_emulator.storage import Database, from_json

TABLES = """
CREATE TABLE IF NOT EXISTS uc_schema_objects (kind TEXT NOT NULL, key TEXT NOT NULL,
    schema TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (kind, key));
CREATE INDEX IF NOT EXISTS uc_schema_objects_by_schema ON uc_schema_objects (kind, schema);
"""

TABLE_TYPES = ("MANAGED", "EXTERNAL", "VIEW", "MATERIALIZED_VIEW", "STREAMING_TABLE")
# What the API's create takes (the rest come from SQL or a pipeline).
CREATABLE = ("EXTERNAL", "DELTA")


def _split(full_name: str, label: str) -> tuple[str, str, str]:
    parts = full_name.split(".")
    if len(parts) != 3 or not all(parts):
        raise InvalidParameter(f"Invalid {label} full name '{full_name}': expected "
                               f"catalog.schema.{label}.")
    return parts[0].lower(), parts[1].lower(), parts[2].lower()


class SchemaObjects(KeptSecurables):
    """One kind of securable in schemas (tables, or functions): the unity_catalog area's
    `SchemaMembers` for it."""

    table = "uc_schema_objects"

    def _hold(self, unity_catalog: UnityCatalog) -> None:
        unity_catalog.hold_in_schemas(self.kind, self)

    def _row(self, doc: dict[str, Any]) -> dict[str, str]:
        return {"key": doc["full_name"], "schema": f"{doc['catalog_name']}.{doc['schema_name']}"}

    # --- SchemaMembers (inside the unity_catalog area's transactions) ----------------------

    def count(self, conn: sqlite3.Connection, schema: str) -> int:
        return int(conn.execute("SELECT count(*) FROM uc_schema_objects WHERE kind = ? AND "
                                "schema = ?", (self.kind, schema.lower())).fetchone()[0])

    def drop_all(self, conn: sqlite3.Connection, schema: str) -> None:
        for row in conn.execute("SELECT key FROM uc_schema_objects WHERE kind = ? AND "
                                "schema = ?", (self.kind, schema.lower())).fetchall():
            self._drop(conn, row["key"])

    def rename_schema(self, conn: sqlite3.Connection, old: str, catalog: str, name: str
                      ) -> None:
        for row in conn.execute("SELECT doc FROM uc_schema_objects WHERE kind = ? AND "
                                "schema = ?", (self.kind, old.lower())).fetchall():
            doc = from_json(row["doc"])
            old_key = doc["full_name"]
            doc.update(catalog_name=catalog, schema_name=name,
                       full_name=f"{catalog}.{name}.{doc['name']}")
            conn.execute("DELETE FROM uc_schema_objects WHERE kind = ? AND key = ?",
                         (self.kind, old_key))
            self._put(conn, doc)
            self._uc.move_grants(conn, self.kind, old_key, doc["full_name"])

    # --- the objects -----------------------------------------------------------------------

    def _drop(self, conn: sqlite3.Connection, key: str) -> None:
        conn.execute("DELETE FROM uc_schema_objects WHERE kind = ? AND key = ?",
                     (self.kind, key.lower()))
        self._uc.drop_grants(conn, self.kind, key)

    def _make(self, spec: dict[str, Any], caller: Caller, fields: dict[str, Any]
              ) -> dict[str, Any]:
        catalog = check_name(spec.get("catalog_name"), "catalog_name").lower()
        schema = check_name(spec.get("schema_name"), "schema_name").lower()
        name = check_name(spec.get("name"), "name").lower()
        full_name = f"{catalog}.{schema}.{name}"
        with self._db.write() as conn:
            self._uc.refuse_unless(conn, caller, SCHEMA, f"{catalog}.{schema}", "USE_CATALOG",
                                   "USE_SCHEMA", self._create_privilege,
                                   action=f"create a {self.label.lower()} in it")
            if self.load(conn, full_name) is not None:
                raise AlreadyExists(f"{self.label} '{full_name}' already exists.")
            now = clock.now_ms()
            doc = {"name": name, "catalog_name": catalog, "schema_name": schema,
                   "full_name": full_name, "owner": caller.application_id,
                   "metastore_id": self._uc.metastore_id, **fields,
                   "created_at": now, "created_by": caller.application_id,
                   "updated_at": now, "updated_by": caller.application_id}
            self._put(conn, doc)
        return doc

    def get(self, full_name: str) -> dict[str, Any]:
        _split(full_name, self.label.lower())
        with self._db.read() as conn:
            doc = self.load(conn, full_name)
        if doc is None:
            raise NotFound(f"{self.label} '{full_name}' does not exist.")
        return doc

    def exists(self, full_name: str) -> bool:
        _split(full_name, self.label.lower())
        with self._db.read() as conn:
            return self.load(conn, full_name) is not None

    def list(self, catalog_name: str, schema_name: str) -> list[dict[str, Any]]:
        schema = f"{catalog_name}.{schema_name}".lower()
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM uc_schema_objects WHERE kind = ? AND "
                                "schema = ? ORDER BY key", (self.kind, schema)).fetchall()
            if not rows and conn.execute(
                    "SELECT 1 FROM uc_objects WHERE kind = ? AND key = ?",
                    (SCHEMA, schema)).fetchone() is None:
                raise NotFound(f"Schema '{schema}' does not exist.")
        return [from_json(r["doc"]) for r in rows]

    def delete(self, full_name: str, caller: Caller) -> None:
        _split(full_name, self.label.lower())
        with self._db.write() as conn:
            self._uc.refuse_unless(conn, caller, self.kind, full_name, "MANAGE",
                                   action="delete it")
            self._drop(conn, full_name)


class Tables(SchemaObjects):
    def __init__(self, db: Database, unity_catalog: UnityCatalog) -> None:
        super().__init__(db, unity_catalog, TABLE, "Table", "CREATE_TABLE")

    def create(self, spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        """The API's create: an external Delta table only, as the service allows."""
        given = (spec.get("table_type"), spec.get("data_source_format"))
        if given != CREATABLE:
            raise InvalidParameter(
                "The Create Table API creates external Delta tables only: table_type "
                f"EXTERNAL and data_source_format DELTA (got {given[0]}, {given[1]}).")
        location = spec.get("storage_location")
        if not isinstance(location, str) or "://" not in location:
            raise InvalidParameter("storage_location must be a cloud storage URL.")
        return self.add(spec, caller)

    def add(self, spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        """A table of any type (what SQL or a pipeline's update makes): the tests' hook."""
        table_type = spec.get("table_type") or "MANAGED"
        if table_type not in TABLE_TYPES:
            raise InvalidParameter(f"table_type must be one of {', '.join(TABLE_TYPES)}.")
        fields: dict[str, Any] = {"table_type": table_type, "table_id": str(uuid.uuid4()),
                                  "securable_kind": "TABLE_DELTA",
                                  "data_source_format": spec.get("data_source_format")
                                  or ("DELTA" if table_type != "VIEW" else None),
                                  "columns": spec.get("columns") or []}
        for field in ("storage_location", "properties", "comment", "view_definition",
                      "pipeline_id"):
            if spec.get(field) is not None:
                fields[field] = spec[field]
        return {k: v for k, v in self._make(spec, caller, fields).items() if v is not None}


class Functions(SchemaObjects):
    def __init__(self, db: Database, unity_catalog: UnityCatalog) -> None:
        super().__init__(db, unity_catalog, FUNCTION, "Function", "CREATE_FUNCTION")

    def create(self, info: Any, caller: Caller) -> dict[str, Any]:
        if not isinstance(info, dict):
            raise InvalidParameter("function_info is required.")
        for field in ("data_type", "full_data_type", "routine_body", "routine_definition"):
            if not info.get(field):
                raise InvalidParameter(f"function_info.{field} is required.")
        fields = {k: info[k] for k in (
            "data_type", "full_data_type", "routine_body", "routine_definition",
            "input_params", "return_params", "parameter_style", "is_deterministic",
            "sql_data_access", "is_null_call", "security_type", "specific_name", "comment",
            "external_language", "sql_path") if info.get(k) is not None}
        fields["function_id"] = str(uuid.uuid4())
        return self._make(info, caller, fields)
