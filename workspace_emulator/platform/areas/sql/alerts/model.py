"""Alerts of the SQL API (/api/2.0/sql/alerts): a query's result checked against a
condition, with notification and re-trigger settings, in a workspace folder (sql_objects.py:
folders, update masks, trash, pages).

A create needs a display name, an active query and a condition: an operator, the operand
column's name and, but for IS_NULL, a threshold of one value. A new alert's state is
UNKNOWN (never evaluated). An update changes the fields of its mask. A delete moves the
alert to the trash. The caller owns what it makes.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from workspace_emulator.errors import InvalidParameter, NotFound
from workspace_emulator.platform.areas.sql import sql_objects as objects
from workspace_emulator.storage import Database, from_json, to_json

CREATE_FIELDS = ("display_name", "query_id", "condition", "custom_subject", "custom_body",
                 "notify_on_ok", "seconds_to_retrigger", "parent_path")
UPDATABLE = ("display_name", "query_id", "condition", "custom_subject", "custom_body",
             "notify_on_ok", "seconds_to_retrigger", "owner_user_name")
OPERATORS = ("EQUAL", "NOT_EQUAL", "GREATER_THAN", "GREATER_THAN_OR_EQUAL", "LESS_THAN",
             "LESS_THAN_OR_EQUAL", "IS_NULL")
STATES = ("OK", "TRIGGERED", "UNKNOWN")
VALUE_KINDS = ("bool_value", "double_value", "string_value")

TABLES = """
CREATE TABLE IF NOT EXISTS sql_alerts (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


def check_condition(condition: Any) -> None:
    if not isinstance(condition, dict):
        raise InvalidParameter("Missing required field: condition")
    objects.one_of(condition, "op", OPERATORS)
    if condition.get("op") is None:
        raise InvalidParameter("Missing required field: condition.op")
    column = (condition.get("operand") or {}).get("column") or {}
    if not isinstance(column, dict) or not column.get("name"):
        raise InvalidParameter("Missing required field: condition.operand.column.name")
    objects.one_of(condition, "empty_result_state", STATES)
    if condition["op"] == "IS_NULL":
        return
    value = (condition.get("threshold") or {}).get("value")
    kinds = [k for k in VALUE_KINDS if isinstance(value, dict) and value.get(k) is not None]
    if len(kinds) != 1:
        raise InvalidParameter(
            "condition.threshold.value must give exactly one of bool_value, double_value, "
            f"string_value for the operator {condition['op']}")


def check(alert: dict[str, Any], query_exists: Callable[[str], bool]) -> None:
    """Refuses an alert the service refuses, naming the field."""
    objects.required_text(alert, "display_name")
    query_id = objects.required_text(alert, "query_id")
    if not query_exists(query_id):
        raise NotFound(f"Query {query_id} does not exist.")
    check_condition(alert.get("condition"))
    for field in ("custom_subject", "custom_body"):
        objects.text(alert, field)
    objects.boolean(alert, "notify_on_ok")
    seconds = alert.get("seconds_to_retrigger")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int)
                                or seconds < 0):
        raise InvalidParameter("'seconds_to_retrigger' must be an integer of 0 or more")


class Alerts:
    def __init__(self, db: Database, query_exists: Callable[[str], bool],
                 folder_exists: Callable[[str], bool]) -> None:
        self._db = db
        self._query_exists = query_exists
        self._folder_exists = folder_exists

    # --- reads ------------------------------------------------------------------------
    def get(self, alert_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            return self._stored(conn, alert_id)

    def list(self, page_size: int | None, page_token: str | None) -> dict[str, Any]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM sql_alerts ORDER BY rowid").fetchall()
        active = [doc for doc in (from_json(r["doc"]) for r in rows)
                  if doc["lifecycle_state"] == objects.ACTIVE]
        found, next_token = objects.page(active, page_size, page_token)
        answer: dict[str, Any] = {"results": found}
        if next_token:
            answer["next_page_token"] = next_token
        return answer

    def exists(self, alert_id: str) -> bool:
        """Whether an active alert has this id (its permissions)."""
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM sql_alerts WHERE id = ?",
                               (alert_id,)).fetchone()
        return row is not None and from_json(row["doc"])["lifecycle_state"] == objects.ACTIVE

    # --- writes -----------------------------------------------------------------------
    def create(self, alert: Any, caller: str) -> dict[str, Any]:
        if not isinstance(alert, dict):
            raise InvalidParameter("Missing required field: alert")
        settings = {k: alert[k] for k in CREATE_FIELDS if alert.get(k) is not None}
        check(settings, self._query_exists)
        settings["parent_path"] = objects.parent_folder(
            settings.get("parent_path"), caller, self._folder_exists)
        now = objects.timestamp()
        doc = {
            **settings,
            "id": str(uuid.uuid4()),
            "owner_user_name": caller,
            "lifecycle_state": objects.ACTIVE,
            "state": "UNKNOWN",
            "create_time": now,
            "update_time": now,
        }
        with self._db.write() as conn:
            conn.execute("INSERT INTO sql_alerts (id, doc) VALUES (?, ?)",
                         (doc["id"], to_json(doc)))
        return doc

    def update(self, alert_id: str, update_mask: Any, alert: Any) -> dict[str, Any]:
        fields = objects.mask_fields(update_mask, UPDATABLE)
        given = alert if isinstance(alert, dict) else {}
        with self._db.write() as conn:
            doc = self._active(conn, alert_id)
            changed = objects.masked(doc, given, fields)
            changed.setdefault("owner_user_name", doc["owner_user_name"])
            check(changed, self._query_exists)
            changed["update_time"] = objects.timestamp()
            conn.execute("UPDATE sql_alerts SET doc = ? WHERE id = ?",
                         (to_json(changed), alert_id))
        return changed

    def trash(self, alert_id: str) -> None:
        with self._db.write() as conn:
            doc = self._active(conn, alert_id)
            doc.update(lifecycle_state=objects.TRASHED, update_time=objects.timestamp())
            conn.execute("UPDATE sql_alerts SET doc = ? WHERE id = ?", (to_json(doc), alert_id))

    # --- helpers ----------------------------------------------------------------------
    @staticmethod
    def _stored(conn, alert_id: str) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM sql_alerts WHERE id = ?", (alert_id,)).fetchone()
        if row is None:
            raise NotFound(f"Alert {alert_id} does not exist.")
        return dict(from_json(row["doc"]))

    def _active(self, conn, alert_id: str) -> dict[str, Any]:
        doc = self._stored(conn, alert_id)
        if doc["lifecycle_state"] != objects.ACTIVE:
            raise NotFound(f"Alert {alert_id} is in the trash.")
        return doc
