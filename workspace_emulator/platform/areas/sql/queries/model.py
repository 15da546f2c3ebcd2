"""Queries of the SQL API (/api/2.0/sql/queries): text, warehouse, catalog and schema,
parameters, in a workspace folder (sql_objects.py: folders, update masks, trash, pages).

A create needs a display name; the warehouse it names must exist; each parameter has a name
and one kind of value. An update changes the fields of its mask. A delete moves the query
to the trash. The caller owns what it makes.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from workspace_emulator.errors import InvalidParameter, NotFound
from workspace_emulator.platform.areas.sql import sql_objects as objects
from workspace_emulator.storage import Database, from_json, to_json

CREATE_FIELDS = ("display_name", "query_text", "warehouse_id", "catalog", "schema",
                 "parameters", "parent_path", "description", "tags", "run_as_mode",
                 "apply_auto_limit")
UPDATABLE = ("display_name", "query_text", "warehouse_id", "catalog", "schema", "parameters",
             "description", "tags", "run_as_mode", "apply_auto_limit", "owner_user_name")
RUN_AS_MODES = ("OWNER", "VIEWER")
VALUE_KINDS = ("text_value", "numeric_value", "enum_value", "query_backed_value",
               "date_value", "date_range_value")

TABLES = """
CREATE TABLE IF NOT EXISTS sql_queries (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


def check(query: dict[str, Any], warehouse_exists: Callable[[str], bool]) -> None:
    """Refuses a query the service refuses, naming the field."""
    objects.required_text(query, "display_name")
    for field in ("query_text", "catalog", "schema", "description", "warehouse_id"):
        objects.text(query, field)
    objects.boolean(query, "apply_auto_limit")
    objects.one_of(query, "run_as_mode", RUN_AS_MODES)
    warehouse = query.get("warehouse_id")
    if warehouse and not warehouse_exists(warehouse):
        raise NotFound(f"SQL warehouse {warehouse} does not exist.")
    tags = query.get("tags")
    if tags is not None and (not isinstance(tags, list)
                             or not all(isinstance(t, str) and t for t in tags)):
        raise InvalidParameter("'tags' must be a list of non-empty strings")
    parameters = query.get("parameters")
    if parameters is None:
        return
    if not isinstance(parameters, list):
        raise InvalidParameter("'parameters' must be a list")
    names: set[str] = set()
    for index, parameter in enumerate(parameters):
        where = f"parameters[{index}]"
        if not isinstance(parameter, dict) or not parameter.get("name"):
            raise InvalidParameter(f"Missing required field: {where}.name")
        if parameter["name"] in names:
            raise InvalidParameter(f"{where}: the parameter {parameter['name']!r} is "
                                   "declared twice")
        names.add(parameter["name"])
        kinds = [kind for kind in VALUE_KINDS if parameter.get(kind) is not None]
        if len(kinds) > 1:
            raise InvalidParameter(f"{where} gives {' and '.join(kinds)}: a parameter has one "
                                   "kind of value")


class Queries:
    def __init__(self, db: Database, warehouse_exists: Callable[[str], bool],
                 folder_exists: Callable[[str], bool]) -> None:
        self._db = db
        self._warehouse_exists = warehouse_exists
        self._folder_exists = folder_exists

    # --- reads ------------------------------------------------------------------------
    def get(self, query_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            return self._stored(conn, query_id)

    def list(self, page_size: int | None, page_token: str | None) -> dict[str, Any]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM sql_queries ORDER BY rowid").fetchall()
        active = [doc for doc in map(lambda r: from_json(r["doc"]), rows)
                  if doc["lifecycle_state"] == objects.ACTIVE]
        found, next_token = objects.page(active, page_size, page_token)
        answer: dict[str, Any] = {"results": found}
        if next_token:
            answer["next_page_token"] = next_token
        return answer

    def exists(self, query_id: str) -> bool:
        """Whether an active query has this id (its permissions, an alert's query)."""
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM sql_queries WHERE id = ?",
                               (query_id,)).fetchone()
        return row is not None and from_json(row["doc"])["lifecycle_state"] == objects.ACTIVE

    # --- writes -----------------------------------------------------------------------
    def create(self, query: Any, caller: str) -> dict[str, Any]:
        if not isinstance(query, dict):
            raise InvalidParameter("Missing required field: query")
        settings = {k: query[k] for k in CREATE_FIELDS if query.get(k) is not None}
        check(settings, self._warehouse_exists)
        settings["parent_path"] = objects.parent_folder(
            settings.get("parent_path"), caller, self._folder_exists)
        now = objects.timestamp()
        doc = {
            **settings,
            "id": str(uuid.uuid4()),
            "owner_user_name": caller,
            "last_modifier_user_name": caller,
            "lifecycle_state": objects.ACTIVE,
            "run_as_mode": settings.get("run_as_mode", "OWNER"),
            "create_time": now,
            "update_time": now,
        }
        with self._db.write() as conn:
            conn.execute("INSERT INTO sql_queries (id, doc) VALUES (?, ?)",
                         (doc["id"], to_json(doc)))
        return doc

    def update(self, query_id: str, update_mask: Any, query: Any, caller: str) -> dict[str, Any]:
        fields = objects.mask_fields(update_mask, UPDATABLE)
        given = query if isinstance(query, dict) else {}
        with self._db.write() as conn:
            doc = self._active(conn, query_id)
            changed = objects.masked(doc, given, fields)
            changed.setdefault("run_as_mode", "OWNER")
            changed.setdefault("owner_user_name", doc["owner_user_name"])
            check(changed, self._warehouse_exists)
            changed.update(update_time=objects.timestamp(), last_modifier_user_name=caller)
            conn.execute("UPDATE sql_queries SET doc = ? WHERE id = ?",
                         (to_json(changed), query_id))
        return changed

    def trash(self, query_id: str) -> None:
        with self._db.write() as conn:
            doc = self._active(conn, query_id)
            doc.update(lifecycle_state=objects.TRASHED, update_time=objects.timestamp())
            conn.execute("UPDATE sql_queries SET doc = ? WHERE id = ?", (to_json(doc), query_id))

    # --- helpers ----------------------------------------------------------------------
    @staticmethod
    def _stored(conn, query_id: str) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM sql_queries WHERE id = ?", (query_id,)).fetchone()
        if row is None:
            raise NotFound(f"Query {query_id} does not exist.")
        return dict(from_json(row["doc"]))

    def _active(self, conn, query_id: str) -> dict[str, Any]:
        doc = self._stored(conn, query_id)
        if doc["lifecycle_state"] != objects.ACTIVE:
            raise NotFound(f"Query {query_id} is in the trash.")
        return doc
