"""MLflow experiments (the 2.0 paths): create, get, get by name, rename, delete to the trash,
restore, search, and their tags. No HTTP here.

An experiment's name is a workspace path (absolute; its folder must exist) and unique among
every experiment, the deleted ones too: a create or rename to the name of one in the trash is
refused (RESOURCE_ALREADY_EXISTS) until it is restored. A delete moves it to the trash
(`lifecycle_stage: deleted`): it is still read by id and by name, searched with a view type
that shows deleted ones, and restored by id. Tags change on an active experiment only.
Ids are decimal strings; the default artifact location is under the tracking root.
"""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, InvalidState, NotFound
from workspace_emulator.platform.areas.workspace.workspace_objects.model import WorkspaceObjects
from workspace_emulator.storage import Database, from_json, to_json

TABLES = """
CREATE TABLE IF NOT EXISTS experiments (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE,
    doc TEXT NOT NULL);
"""

ACTIVE, DELETED = "active", "deleted"
VIEW_TYPES = {"ACTIVE_ONLY": (ACTIVE,), "DELETED_ONLY": (DELETED,), "ALL": (ACTIVE, DELETED)}
ARTIFACT_ROOT = "dbfs:/databricks/mlflow-tracking"
FIRST_ID = 1000000000000001
MAX_RESULTS = 3000
DEFAULT_RESULTS = 1000
ORDER_KEYS = ("name", "experiment_id", "creation_time", "last_update_time")
MAX_TAG_KEY, MAX_TAG_VALUE = 250, 5000
# One comparison of a search filter: `name = 'x'`, `name LIKE 'x%'`, `tags.k != 'v'`.
CLAUSE = re.compile(
    r"\s*(?P<field>name|tags\.`[^`]+`|tags\.[\w.-]+|attributes\.name)\s*"
    r"(?P<op>=|!=|ILIKE|LIKE)\s*'(?P<value>(?:[^']|'')*)'\s*", re.IGNORECASE)


def _like(pattern: str, value: str, fold: bool) -> bool:
    regex = "".join(".*" if c == "%" else "." if c == "_" else re.escape(c) for c in pattern)
    return re.fullmatch(regex, value, re.IGNORECASE if fold else 0) is not None


def parse_filter(text: str | None) -> list[tuple[str, str, str]]:
    """(field, operator, value) per clause of `text` (joined by AND); 400 naming the part
    that is not one."""
    if not text or not text.strip():
        return []
    clauses = []
    for part in re.split(r"\s+AND\s+", text.strip(), flags=re.IGNORECASE):
        match = CLAUSE.fullmatch(part)
        if match is None:
            raise InvalidParameter(
                f"Invalid filter '{text}': '{part.strip()}' is not a comparison such as "
                "name = 'x', name LIKE 'x%' or tags.key = 'value'.")
        field = match["field"].removeprefix("attributes.")
        if field.startswith("tags."):
            field = "tags." + field[5:].strip("`")
        clauses.append((field, match["op"].upper(), match["value"].replace("''", "'")))
    return clauses


def _matches(doc: dict[str, Any], clauses: list[tuple[str, str, str]]) -> bool:
    tags = {t["key"]: t["value"] for t in doc.get("tags", [])}
    for field, op, value in clauses:
        held = doc["name"] if field == "name" else tags.get(field[5:])
        if held is None:
            return False
        if op == "=" and held != value or op == "!=" and held == value:
            return False
        if op in ("LIKE", "ILIKE") and not _like(value, held, op == "ILIKE"):
            return False
    return True


def _tags(value: Any) -> list[dict[str, str]]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidParameter("tags must be a list of {key, value}.")
    found: dict[str, str] = {}
    for index, tag in enumerate(value):
        if not isinstance(tag, dict) or not isinstance(tag.get("key"), str):
            raise InvalidParameter(f"tags[{index}] must be an object with a key and a value.")
        found[tag["key"]] = _tag_value(tag["key"], tag.get("value", ""))
    return [{"key": k, "value": v} for k, v in found.items()]


def _tag_value(key: Any, value: Any) -> str:
    if not isinstance(key, str) or not key or len(key) > MAX_TAG_KEY:
        raise InvalidParameter(f"Tag key must be a string of 1 to {MAX_TAG_KEY} characters.")
    if not isinstance(value, str) or len(value) > MAX_TAG_VALUE:
        raise InvalidParameter(f"Tag value of '{key}' must be a string of at most "
                               f"{MAX_TAG_VALUE} characters.")
    return value


class Experiments:
    def __init__(self, db: Database, workspace: WorkspaceObjects) -> None:
        self._db = db
        self._workspace = workspace

    def exists(self, experiment_id: str) -> bool:
        """An active experiment of that id: the permissions path's objects."""
        if not experiment_id.isdigit():
            return False
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM experiments WHERE id = ?",
                               (int(experiment_id),)).fetchone()
        return row is not None and from_json(row["doc"])["lifecycle_stage"] == ACTIVE

    def _check_name(self, name: Any, field: str) -> str:
        if not isinstance(name, str) or not name.strip():
            raise InvalidParameter(f"{field} must be a non-empty string.")
        if not name.startswith("/"):
            raise InvalidParameter(f"Got an invalid experiment name '{name}': an experiment "
                                   "name must be an absolute path in the workspace.")
        parent = name.rstrip("/").rsplit("/", 1)[0] or "/"
        status = self._workspace.get_status(parent)  # 404 where the folder is missing
        if status.get("object_type") not in ("DIRECTORY", "REPO"):
            raise InvalidParameter(f"Parent '{parent}' of experiment '{name}' is not a "
                                   "folder.")
        return name.rstrip("/")

    @staticmethod
    def _by_name(conn: sqlite3.Connection, name: str) -> dict[str, Any] | None:
        row = conn.execute("SELECT doc FROM experiments WHERE name = ?", (name,)).fetchone()
        return None if row is None else from_json(row["doc"])

    @staticmethod
    def _load(conn: sqlite3.Connection, experiment_id: Any) -> dict[str, Any]:
        if experiment_id is None or experiment_id == "":
            raise InvalidParameter("Missing value for required parameter 'experiment_id'.")
        text = str(experiment_id)
        row = None
        if text.isdigit():
            row = conn.execute("SELECT doc FROM experiments WHERE id = ?",
                               (int(text),)).fetchone()
        if row is None:
            raise NotFound(f"Node ID {text} does not exist.")
        return from_json(row["doc"])

    @staticmethod
    def _save(conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
        conn.execute("UPDATE experiments SET name = ?, doc = ? WHERE id = ?",
                     (doc["name"], to_json(doc), int(doc["experiment_id"])))

    @staticmethod
    def _refuse_taken(conn: sqlite3.Connection, name: str) -> None:
        held = Experiments._by_name(conn, name)
        if held is None:
            return
        if held["lifecycle_stage"] == DELETED:
            raise AlreadyExists(
                f"Experiment with name '{name}' already exists in the trash (id "
                f"{held['experiment_id']}): restore it, or delete it permanently, to use "
                "the name.")
        raise AlreadyExists(f"Experiment with name '{name}' already exists.")

    def create(self, spec: dict[str, Any]) -> str:
        name = self._check_name(spec.get("name"), "name")
        tags = _tags(spec.get("tags"))
        location = spec.get("artifact_location")
        if location is not None and (not isinstance(location, str) or "://" not in location
                                     and not location.startswith("/")):
            raise InvalidParameter(f"artifact_location '{location}' is not a URI.")
        now = clock.now_ms()
        with self._db.write() as conn:
            self._refuse_taken(conn, name)
            number = int(conn.execute("SELECT coalesce(max(id), ?) + 1 FROM experiments",
                                      (FIRST_ID - 1,)).fetchone()[0])
            doc = {
                "experiment_id": str(number), "name": name,
                "artifact_location": (location.rstrip("/") if location
                                      else f"{ARTIFACT_ROOT}/{number}"),
                "lifecycle_stage": ACTIVE, "creation_time": now, "last_update_time": now,
                "tags": tags,
            }
            conn.execute("INSERT INTO experiments (id, name, doc) VALUES (?, ?, ?)",
                         (number, name, to_json(doc)))
        return str(number)

    def get(self, experiment_id: Any) -> dict[str, Any]:
        with self._db.read() as conn:
            return self._load(conn, experiment_id)

    def get_by_name(self, name: str) -> dict[str, Any]:
        with self._db.read() as conn:
            doc = self._by_name(conn, name.rstrip("/"))
        if doc is None:
            raise NotFound(f"Node {name} does not exist.")
        return doc

    def _change(self, experiment_id: Any, active_only: bool, change) -> None:
        with self._db.write() as conn:
            doc = self._load(conn, experiment_id)
            if active_only and doc["lifecycle_stage"] != ACTIVE:
                raise InvalidState(f"Experiment {doc['experiment_id']} is deleted: it must be "
                                   "active (restore it first).")
            change(conn, doc)
            doc["last_update_time"] = clock.now_ms()
            self._save(conn, doc)

    def rename(self, experiment_id: Any, new_name: Any) -> None:
        if new_name is None:  # nothing to change, but the experiment must exist
            self.get(experiment_id)
            return
        name = self._check_name(new_name, "new_name")

        def rename(conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
            if name != doc["name"]:
                self._refuse_taken(conn, name)
                doc["name"] = name

        self._change(experiment_id, True, rename)

    def delete(self, experiment_id: Any) -> None:
        self._change(experiment_id, False,
                     lambda conn, doc: doc.update(lifecycle_stage=DELETED))

    def restore(self, experiment_id: Any) -> None:
        self._change(experiment_id, False,
                     lambda conn, doc: doc.update(lifecycle_stage=ACTIVE))

    def set_tag(self, experiment_id: Any, key: Any, value: Any) -> None:
        value = _tag_value(key, value)

        def set_tag(conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
            doc["tags"] = [t for t in doc.get("tags", []) if t["key"] != key]
            doc["tags"].append({"key": key, "value": value})

        self._change(experiment_id, True, set_tag)

    def delete_tag(self, experiment_id: Any, key: Any) -> None:
        def delete_tag(conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
            if not any(t["key"] == key for t in doc.get("tags", [])):
                raise NotFound(f"No tag with name: {key} in experiment "
                               f"{doc['experiment_id']}.")
            doc["tags"] = [t for t in doc["tags"] if t["key"] != key]

        self._change(experiment_id, True, delete_tag)

    def search(self, spec: dict[str, Any]) -> dict[str, Any]:
        """A page of the experiments the filter and view type select, in `order_by` order
        (default: newest first), with the next page's token."""
        clauses = parse_filter(spec.get("filter"))
        view = spec.get("view_type") or "ACTIVE_ONLY"
        if view not in VIEW_TYPES:
            raise InvalidParameter(f"view_type must be one of {', '.join(VIEW_TYPES)}.")
        size = spec.get("max_results") or DEFAULT_RESULTS
        if isinstance(size, bool) or not isinstance(size, int) or not 0 < size <= MAX_RESULTS:
            raise InvalidParameter(f"max_results must be between 1 and {MAX_RESULTS}.")
        token = spec.get("page_token") or "0"
        if not str(token).isdigit():
            raise InvalidParameter(f"Invalid page token '{token}'.")
        with self._db.read() as conn:
            docs = [from_json(r["doc"]) for r in conn.execute(
                "SELECT doc FROM experiments ORDER BY id DESC").fetchall()]
        docs = [d for d in docs if d["lifecycle_stage"] in VIEW_TYPES[view]
                and _matches(d, clauses)]
        for order in reversed(spec.get("order_by") or []):
            key, _, direction = str(order).strip().partition(" ")
            key = key.removeprefix("attributes.")
            if key not in ORDER_KEYS or direction.strip().upper() not in ("", "ASC", "DESC"):
                raise InvalidParameter(f"Invalid order_by clause '{order}'.")
            numeric = key != "name"
            docs.sort(key=lambda d: int(d[key]) if numeric else d[key],
                      reverse=direction.strip().upper() == "DESC")
        start = int(token)
        page = docs[start:start + size]
        answer: dict[str, Any] = {"experiments": page}
        if start + size < len(docs):
            answer["next_page_token"] = str(start + size)
        return answer
