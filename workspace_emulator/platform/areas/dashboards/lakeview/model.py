"""Lakeview dashboards (/api/2.0/lakeview/dashboards): a draft in a workspace folder, its
serialized content, its warehouse, and its published copy.

A draft lives at `<parent_path>/<display_name>.lvdash.json`: the path is unique among the
dashboards not in the trash, and the folder must exist (default: the caller's home). The
service keeps `serialized_dashboard` in its own form (the JSON parsed and written again:
its spacing and key order are the service's); it must be a JSON object. Each change of the
draft gives it a new `etag` and `update_time`; an update naming an etag that is not the
current one is refused. A delete moves the draft to the trash (a get still answers it).
Publishing copies the draft (with its warehouse, or the one given, and `embed_credentials`,
true unless given) as the published revision; unpublishing removes it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound, ResourceConflict
from workspace_emulator.platform.areas.sql import sql_objects as objects
from workspace_emulator.storage import Database, from_json, to_json

EXTENSION = ".lvdash.json"
UPDATABLE = ("display_name", "serialized_dashboard", "warehouse_id")
# A new draft's content where the create gives none: one empty page.
EMPTY_DASHBOARD = {"pages": [{"name": "page", "displayName": "Page"}]}

TABLES = """
CREATE TABLE IF NOT EXISTS lakeview_dashboards (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


def stored_form(serialized: Any) -> str:
    """The content as the service keeps it; refused where it is no JSON object."""
    if not isinstance(serialized, str):
        raise InvalidParameter("'serialized_dashboard' must be a string holding JSON")
    try:
        parsed = json.loads(serialized)
    except ValueError as error:
        raise InvalidParameter(f"'serialized_dashboard' is not valid JSON: {error}") from None
    if not isinstance(parsed, dict):
        raise InvalidParameter("'serialized_dashboard' must be a JSON object")
    return json.dumps(parsed, sort_keys=True)


def basic_view(doc: dict[str, Any]) -> dict[str, Any]:
    """A dashboard as a list shows it (DASHBOARD_VIEW_BASIC): no content, no internals."""
    return {k: v for k, v in public_view(doc).items() if k != "serialized_dashboard"}


def public_view(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "published"}


class Dashboards:
    def __init__(self, db: Database, warehouse_exists: Callable[[str], bool],
                 folder_exists: Callable[[str], bool]) -> None:
        self._db = db
        self._warehouse_exists = warehouse_exists
        self._folder_exists = folder_exists

    # --- reads ------------------------------------------------------------------------
    def get(self, dashboard_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            return public_view(self._stored(conn, dashboard_id))

    def get_published(self, dashboard_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            doc = self._active(conn, dashboard_id)
        if not doc.get("published"):
            raise NotFound(f"Dashboard {dashboard_id} is not published.")
        return dict(doc["published"])

    def list(self, page_size: int | None, page_token: str | None,
             show_trashed: bool) -> dict[str, Any]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM lakeview_dashboards ORDER BY rowid").fetchall()
        wanted = objects.TRASHED if show_trashed else objects.ACTIVE
        shown = [basic_view(doc) for doc in (from_json(r["doc"]) for r in rows)
                 if doc["lifecycle_state"] == wanted]
        found, next_token = objects.page(shown, page_size, page_token)
        answer: dict[str, Any] = {"dashboards": found}
        if next_token:
            answer["next_page_token"] = next_token
        return answer

    def exists(self, dashboard_id: str) -> bool:
        """Whether a dashboard not in the trash has this id (its permissions)."""
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM lakeview_dashboards WHERE id = ?",
                               (dashboard_id,)).fetchone()
        return row is not None and from_json(row["doc"])["lifecycle_state"] == objects.ACTIVE

    # --- writes -----------------------------------------------------------------------
    def create(self, request: dict[str, Any], caller: str) -> dict[str, Any]:
        name = objects.required_text(request, "display_name")
        self._check_warehouse(request.get("warehouse_id"))
        parent = objects.parent_folder(request.get("parent_path"), caller, self._folder_exists)
        content = request.get("serialized_dashboard")
        now = objects.timestamp()
        doc = {
            "dashboard_id": uuid.uuid4().hex,
            "display_name": name,
            "parent_path": parent,
            "path": f"{parent}/{name}{EXTENSION}",
            "serialized_dashboard": stored_form(
                json.dumps(EMPTY_DASHBOARD) if content is None else content),
            "lifecycle_state": objects.ACTIVE,
            "create_time": now,
            "update_time": now,
            "etag": "1",
        }
        if request.get("warehouse_id"):
            doc["warehouse_id"] = request["warehouse_id"]
        with self._db.write() as conn:
            self._refuse_taken_path(conn, doc["path"], doc["dashboard_id"])
            conn.execute("INSERT INTO lakeview_dashboards (id, doc) VALUES (?, ?)",
                         (doc["dashboard_id"], to_json(doc)))
        return public_view(doc)

    def update(self, dashboard_id: str, request: dict[str, Any]) -> dict[str, Any]:
        with self._db.write() as conn:
            doc = self._active(conn, dashboard_id)
            etag = request.get("etag")
            if etag is not None and str(etag) != doc["etag"]:
                raise ResourceConflict(
                    f"The dashboard {dashboard_id} changed since etag {etag} (now "
                    f"{doc['etag']}): read it again")
            given = {k: request[k] for k in UPDATABLE if request.get(k) is not None}
            if "display_name" in given:
                objects.required_text(given, "display_name")
            if "serialized_dashboard" in given:
                given["serialized_dashboard"] = stored_form(given["serialized_dashboard"])
            self._check_warehouse(given.get("warehouse_id"))
            changed = {**doc, **given}
            changed["path"] = f"{doc['parent_path']}/{changed['display_name']}{EXTENSION}"
            self._refuse_taken_path(conn, changed["path"], dashboard_id)
            changed.update(etag=str(int(doc["etag"]) + 1), update_time=objects.timestamp())
            self._save(conn, changed)
        return public_view(changed)

    def trash(self, dashboard_id: str) -> None:
        with self._db.write() as conn:
            doc = self._active(conn, dashboard_id)
            doc.update(lifecycle_state=objects.TRASHED, update_time=objects.timestamp())
            doc.pop("published", None)
            self._save(conn, doc)

    def publish(self, dashboard_id: str, request: dict[str, Any]) -> dict[str, Any]:
        embed = request.get("embed_credentials", True)
        if not isinstance(embed, bool):
            raise InvalidParameter("'embed_credentials' must be a boolean")
        with self._db.write() as conn:
            doc = self._active(conn, dashboard_id)
            warehouse = request.get("warehouse_id") or doc.get("warehouse_id")
            if not warehouse:
                raise InvalidParameter(
                    "A dashboard is published on a warehouse: give warehouse_id, or set the "
                    "draft's")
            self._check_warehouse(warehouse)
            doc["published"] = {
                "display_name": doc["display_name"],
                "embed_credentials": embed,
                "warehouse_id": warehouse,
                "revision_create_time": objects.timestamp(),
            }
            self._save(conn, doc)
        return dict(doc["published"])

    def unpublish(self, dashboard_id: str) -> None:
        with self._db.write() as conn:
            doc = self._active(conn, dashboard_id)
            if not doc.pop("published", None):
                raise NotFound(f"Dashboard {dashboard_id} is not published.")
            self._save(conn, doc)

    # --- helpers ----------------------------------------------------------------------
    def _check_warehouse(self, warehouse_id: Any) -> None:
        if warehouse_id and not self._warehouse_exists(str(warehouse_id)):
            raise NotFound(f"SQL warehouse {warehouse_id} does not exist.")

    @staticmethod
    def _refuse_taken_path(conn, path: str, own_id: str) -> None:
        for row in conn.execute("SELECT id, doc FROM lakeview_dashboards").fetchall():
            doc = from_json(row["doc"])
            if (row["id"] != own_id and doc["path"] == path
                    and doc["lifecycle_state"] == objects.ACTIVE):
                raise AlreadyExists(f"Node named '{path.rsplit('/', 1)[-1]}' already exists")

    @staticmethod
    def _stored(conn, dashboard_id: str) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM lakeview_dashboards WHERE id = ?",
                           (dashboard_id,)).fetchone()
        if row is None:
            raise NotFound(f"Dashboard {dashboard_id} does not exist.")
        return dict(from_json(row["doc"]))

    def _active(self, conn, dashboard_id: str) -> dict[str, Any]:
        doc = self._stored(conn, dashboard_id)
        if doc["lifecycle_state"] != objects.ACTIVE:
            raise NotFound(f"Dashboard {dashboard_id} is in the trash.")
        return doc

    @staticmethod
    def _save(conn, doc: dict[str, Any]) -> None:
        conn.execute("UPDATE lakeview_dashboards SET doc = ? WHERE id = ?",
                     (to_json(doc), doc["dashboard_id"]))
