"""Pipelines and their updates, kept in SQLite.

spec.py checks a pipeline's settings and fills in what the service does; updates.py plays
an update out over time and gives its events. What needs the rest of the workspace is
checked here: a `run_as` principal must exist (a user, or an active service principal), an
update's notebooks and files must be in the workspace's tree (areas/workspace_objects) and
its catalog and schema in Unity Catalog (areas/unity_catalog), else it fails.

The rules of the service kept here: a name another pipeline has is refused unless
`allow_duplicate_names`; `dry_run` checks and stores nothing; edit replaces every setting,
refused when `expected_last_modified` is not the pipeline's last change; one active update
at a time; the pipeline is RUNNING while an update is active, else IDLE.
"""

from __future__ import annotations

import base64
import binascii
import re
import sqlite3
import uuid
from collections.abc import Callable
from datetime import datetime
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import InvalidParameter, NotFound, ResourceConflict
from workspace_emulator.platform import paging
from workspace_emulator.platform.areas.pipelines.pipelines import spec as pipeline_spec
from workspace_emulator.platform.areas.pipelines.pipelines import updates
from workspace_emulator.platform.directory import Caller, Directory
from workspace_emulator.storage import Database, from_json, to_json

TABLES = """
CREATE TABLE IF NOT EXISTS pipelines (pipeline_id TEXT PRIMARY KEY, name TEXT NOT NULL,
    doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS pipelines_by_name ON pipelines (name);
CREATE TABLE IF NOT EXISTS pipeline_updates (update_id TEXT PRIMARY KEY,
    pipeline_id TEXT NOT NULL, seq INTEGER NOT NULL, doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS pipeline_updates_by_pipeline ON pipeline_updates (pipeline_id, seq);
"""

DEFAULT_PIPELINES_PAGE, MAX_PIPELINES_PAGE = 25, 100
DEFAULT_UPDATES_PAGE, MAX_UPDATES_PAGE = 25, 100
DEFAULT_EVENTS_PAGE, MAX_EVENTS_PAGE = 25, 250
LATEST_UPDATES = 5
PIPELINES_TOKEN, UPDATES_TOKEN, EVENTS_TOKEN = "pipelines", "updates", "events"
RUN_AS_KINDS = {"user_name": "user", "service_principal_name": "service_principal"}
NAME_LIKE = re.compile(r"^\s*name\s+like\s+'((?:[^']|'')*)'\s*$", re.IGNORECASE)
NOTEBOOK_IS = re.compile(r"^\s*notebook\s*=\s*'((?:[^']|'')*)'\s*$", re.IGNORECASE)
ORDERS = {"id": "pipeline_id", "name": "name"}
# A source's path -> why an update cannot load it (None: it can), per kind of library.
SourceProblem = Callable[[str, str], "str | None"]
# "catalog.schema" -> whether that schema exists in Unity Catalog.
SchemaExists = Callable[[str], bool]


def _page_size(value: int | None, name: str, default: int, maximum: int) -> int:
    if value is None:
        return default
    if not 1 <= value <= maximum:
        raise InvalidParameter(f"{name} must be between 1 and {maximum}, got {value}.")
    return value


def _like(pattern: str) -> re.Pattern[str]:
    """A SQL LIKE pattern as a regular expression: % any run, _ any one character."""
    wildcards = {"%": ".*", "_": "."}
    parts = (wildcards.get(char) or re.escape(char) for char in pattern)
    return re.compile("^" + "".join(parts) + "$", re.DOTALL)


def _string_list(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InvalidParameter(f"{name} must be a list of table names.")
    return list(value)


class Pipelines:
    def __init__(self, db: Database, directory: Directory, transition_seconds: float,
                 workspace_id: int, source_problem: SourceProblem | None = None,
                 schema_exists: SchemaExists | None = None) -> None:
        self._db = db
        self._directory = directory
        self._transition_ms = int(transition_seconds * 1000)
        self._workspace_id = workspace_id
        # Why an update cannot load a notebook or file at a path (areas/workspace_objects);
        # None: every source is there.
        self._source_problem = source_problem
        # Whether a schema of Unity Catalog exists (areas/unity_catalog); None: all do.
        self._schema_exists = schema_exists

    # storage

    @staticmethod
    def _load(conn: sqlite3.Connection, pipeline_id: str) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM pipelines WHERE pipeline_id = ?",
                           (pipeline_id,)).fetchone()
        if row is None:
            raise NotFound(f"The specified pipeline {pipeline_id} was not found.")
        return from_json(row["doc"])

    @staticmethod
    def _save(conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
        conn.execute(
            "INSERT INTO pipelines (pipeline_id, name, doc) VALUES (?, ?, ?) "
            "ON CONFLICT (pipeline_id) DO UPDATE SET name = excluded.name, doc = excluded.doc",
            (doc["pipeline_id"], doc["spec"]["name"], to_json(doc)))

    @staticmethod
    def _updates(conn: sqlite3.Connection, pipeline_id: str) -> list[dict[str, Any]]:
        """The pipeline's updates, newest first."""
        rows = conn.execute("SELECT doc FROM pipeline_updates WHERE pipeline_id = ? "
                            "ORDER BY seq DESC", (pipeline_id,)).fetchall()
        return [from_json(row["doc"]) for row in rows]

    def exists(self, pipeline_id: str) -> bool:
        with self._db.read() as conn:
            return conn.execute("SELECT 1 FROM pipelines WHERE pipeline_id = ?",
                                (pipeline_id,)).fetchone() is not None

    def task_problem(self, pipeline_id: str) -> str | None:
        """Why a job's pipeline task fails at once on the pipeline of `pipeline_id` (none
        there, or an update of it would fail loading its sources); None: it runs."""
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM pipelines WHERE pipeline_id = ?",
                               (pipeline_id,)).fetchone()
        if row is None:
            return f"The pipeline {pipeline_id} does not exist: the pipeline task cannot run."
        doc = from_json(row["doc"])
        return self._failure(doc["spec"], self._run_as_user_name(doc))

    def require(self, pipeline_id: str) -> None:
        """NotFound, as the service words it, when there is no such pipeline."""
        with self._db.read() as conn:
            self._load(conn, pipeline_id)

    def owner(self, pipeline_id: str) -> tuple[str, str] | None:
        """(kind, name) of the pipeline's owner, its creator; None when there is none."""
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM pipelines WHERE pipeline_id = ?",
                               (pipeline_id,)).fetchone()
        if row is None:
            return None
        creator = from_json(row["doc"])["creator_user_name"]
        return ("user" if self._directory.user_by_name(creator) else "service_principal",
                creator)

    # checks that need the workspace

    def _check_run_as(self, run_as: Any) -> None:
        pipeline_spec.check_run_as(run_as)
        if run_as is None:
            return
        field = next(name for name in RUN_AS_KINDS if run_as.get(name) is not None)
        kind, name = RUN_AS_KINDS[field], run_as[field]
        if kind == "service_principal":
            principal = self._directory.find_service_principal(name)
            known = principal is not None and principal.application_id == name \
                and principal.active
        else:
            known = self._directory.principal_exists(kind, name)
        if not known:
            wanted = ("a user" if kind == "user"
                      else "an active service principal (its application id)")
            raise InvalidParameter(
                f"run_as.{field} '{name}' does not exist: name {wanted} of this workspace.")

    @staticmethod
    def _check_unique_name(conn: sqlite3.Connection, name: str, allow_duplicates: bool,
                           pipeline_id: str | None = None) -> None:
        if allow_duplicates:
            return
        row = conn.execute("SELECT pipeline_id FROM pipelines WHERE name = ? AND "
                           "pipeline_id IS NOT ?", (name, pipeline_id)).fetchone()
        if row is not None:
            raise ResourceConflict(
                f"Pipeline name '{name}' is already used by another pipeline "
                f"({row['pipeline_id']}): choose another name, or set allow_duplicate_names "
                "to true.")

    # views

    @staticmethod
    def _run_as_user_name(doc: dict[str, Any]) -> str:
        run_as = doc.get("run_as") or {}
        return next((run_as[name] for name in RUN_AS_KINDS if run_as.get(name)),
                    doc["creator_user_name"])

    def _summary(self, doc: dict[str, Any], history: list[dict[str, Any]], now_ms: int
                 ) -> dict[str, Any]:
        """What get and list share (the SDK's PipelineStateInfo)."""
        active = next((u for u in history if updates.is_active(u, now_ms)), None)
        shown: dict[str, Any] = {
            "pipeline_id": doc["pipeline_id"],
            "name": doc["spec"]["name"],
            "state": "RUNNING" if active else "IDLE",
            "creator_user_name": doc["creator_user_name"],
            "run_as_user_name": self._run_as_user_name(doc),
        }
        if history:
            shown["latest_updates"] = [updates.state_info(u, now_ms)
                                       for u in history[:LATEST_UPDATES]]
        if active is not None and active.get("cluster_id"):
            shown["cluster_id"] = active["cluster_id"]
        return shown

    def _view(self, doc: dict[str, Any], history: list[dict[str, Any]]) -> dict[str, Any]:
        now_ms = clock.now_ms()
        shown = self._summary(doc, history, now_ms)
        shown["spec"] = doc["spec"]
        shown["last_modified"] = doc["last_modified"]
        for name in ("run_as", "parameters"):
            if doc.get(name):
                shown[name] = doc[name]
        if history and not updates.is_active(history[0], now_ms):
            shown["health"] = ("UNHEALTHY" if updates.state(history[0], now_ms) == "FAILED"
                               else "HEALTHY")
        return shown

    # pipelines

    def create(self, body: dict[str, Any], caller: Caller) -> dict[str, Any]:
        """The new pipeline's id; with `dry_run`, the settings it would have and nothing
        stored."""
        settings = pipeline_spec.settings(body)
        self._check_run_as(body.get("run_as"))
        parameters = body.get("parameters")
        if parameters is not None and not pipeline_spec.is_string_map(parameters):
            raise InvalidParameter("parameters must be an object of string values.")
        pipeline_id = str(uuid.uuid4())
        effective = pipeline_spec.effective(settings, pipeline_id)
        with self._db.write() as conn:
            self._check_unique_name(conn, settings["name"],
                                    body.get("allow_duplicate_names") is True)
            if body.get("dry_run") is True:
                return {"effective_settings": effective}
            now = clock.now_ms()
            doc = {"pipeline_id": pipeline_id, "spec": effective,
                   "creator_user_name": caller.application_id, "created_time": now,
                   "last_modified": now}
            for name in ("run_as", "parameters"):
                if body.get(name) is not None:
                    doc[name] = body[name]
            self._save(conn, doc)
        return {"pipeline_id": pipeline_id}

    def get(self, pipeline_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            doc = self._load(conn, pipeline_id)
            history = self._updates(conn, pipeline_id)
        return self._view(doc, history)

    def edit(self, pipeline_id: str, body: dict[str, Any]) -> None:
        """Replaces every setting with the body's."""
        given_id = body.get("id")
        if given_id is not None and given_id != pipeline_id:
            raise InvalidParameter(
                f"id '{given_id}' is not the id of the pipeline edited ({pipeline_id}): "
                "leave it out, or give that id.")
        settings = pipeline_spec.settings(body)
        self._check_run_as(body.get("run_as"))
        parameters = body.get("parameters")
        if parameters is not None and not pipeline_spec.is_string_map(parameters):
            raise InvalidParameter("parameters must be an object of string values.")
        expected = body.get("expected_last_modified")
        with self._db.write() as conn:
            doc = self._load(conn, pipeline_id)
            if expected is not None and expected != doc["last_modified"]:
                raise ResourceConflict(
                    f"The pipeline {pipeline_id} was modified at {doc['last_modified']}, "
                    f"after expected_last_modified {expected}: read it again and retry the "
                    "edit on its current settings.")
            self._check_unique_name(conn, settings["name"],
                                    body.get("allow_duplicate_names") is True, pipeline_id)
            doc["spec"] = pipeline_spec.effective(settings, pipeline_id)
            # run_as and parameters are replaced as the settings are.
            for name in ("run_as", "parameters"):
                doc.pop(name, None)
                if body.get(name) is not None:
                    doc[name] = body[name]
            doc["last_modified"] = max(clock.now_ms(), doc["last_modified"] + 1)
            self._save(conn, doc)

    def delete(self, pipeline_id: str) -> None:
        with self._db.write() as conn:
            self._load(conn, pipeline_id)
            conn.execute("DELETE FROM pipelines WHERE pipeline_id = ?", (pipeline_id,))
            conn.execute("DELETE FROM pipeline_updates WHERE pipeline_id = ?", (pipeline_id,))

    def list_pipelines(self, filter_: str | None, max_results: int | None,
                       order_by: list[str] | None, page_token: str | None,
                       visible: Callable[[str], bool] = lambda pipeline_id: True
                       ) -> dict[str, Any]:
        """A page of the pipelines `visible` keeps (those the caller may view)."""
        size = _page_size(max_results, "max_results", DEFAULT_PIPELINES_PAGE,
                          MAX_PIPELINES_PAGE)
        column, descending = self._pipelines_order(order_by)
        offset = paging.decode_token(PIPELINES_TOKEN, page_token) if page_token else 0
        keep = self._pipelines_filter(filter_)
        now_ms = clock.now_ms()
        with self._db.read() as conn:
            rows = conn.execute(f"SELECT doc FROM pipelines ORDER BY {column} "
                                f"{'DESC' if descending else 'ASC'}, pipeline_id").fetchall()
            docs = [doc for doc in (from_json(row["doc"]) for row in rows)
                    if keep(doc) and visible(doc["pipeline_id"])]
            page = [self._summary(doc, self._updates(conn, doc["pipeline_id"]), now_ms)
                    for doc in docs[offset:offset + size]]
        answer: dict[str, Any] = {"statuses": page} if page else {}
        if offset + size < len(docs):
            answer["next_page_token"] = paging.encode_token(PIPELINES_TOKEN, offset + size)
        return answer

    @staticmethod
    def _pipelines_order(order_by: list[str] | None) -> tuple[str, bool]:
        if not order_by:
            return ORDERS["id"], False
        field, _, direction = order_by[0].strip().partition(" ")
        direction = direction.strip().lower() or "asc"
        if field not in ORDERS or direction not in ("asc", "desc") or len(order_by) > 1:
            raise InvalidParameter(
                f"order_by {order_by} is not supported: give one of 'id asc', 'id desc', "
                "'name asc', 'name desc'.")
        return ORDERS[field], direction == "desc"

    @staticmethod
    def _pipelines_filter(filter_: str | None) -> Callable[[dict[str, Any]], bool]:
        if not filter_:
            return lambda doc: True
        like = NAME_LIKE.match(filter_)
        if like:
            pattern = _like(like.group(1).replace("''", "'"))
            return lambda doc: bool(pattern.match(doc["spec"]["name"]))
        notebook = NOTEBOOK_IS.match(filter_)
        if notebook:
            path = notebook.group(1).replace("''", "'")
            return lambda doc: any(kind == "notebook" and source == path for kind, source
                                   in pipeline_spec.workspace_sources(doc["spec"]))
        raise InvalidParameter(
            f"filter \"{filter_}\" is not supported: give name LIKE '<pattern>' or "
            "notebook='<path>' (composite filters are not supported).")

    # updates

    def _failure(self, settings: dict[str, Any], run_as: str) -> str | None:
        """Why an update of these settings fails when it loads its sources, None if not."""
        if self._source_problem is not None:
            for kind, path in pipeline_spec.workspace_sources(settings):
                problem = self._source_problem(path, kind)
                if problem == "does not exist":
                    return (f"Unable to load the {kind} '{path}': it does not exist, or the "
                            f"identity this pipeline runs as, {run_as}, cannot read it.")
                if problem is not None:
                    return f"Unable to load the {kind} '{path}': it {problem}."
        catalog = settings.get("catalog")
        schema = settings.get("schema") or settings.get("target")
        if catalog and schema and self._schema_exists is not None \
                and not self._schema_exists(f"{catalog}.{schema}"):
            return (f"The schema '{catalog}.{schema}' the pipeline publishes to does not "
                    "exist: create it (and its catalog) before the update, or publish to "
                    "another schema.")
        return None

    def start_update(self, pipeline_id: str, body: dict[str, Any]) -> dict[str, Any]:
        full_refresh = body.get("full_refresh") is True
        validate_only = body.get("validate_only") is True
        refresh = _string_list(body.get("refresh_selection"), "refresh_selection")
        full = _string_list(body.get("full_refresh_selection"), "full_refresh_selection")
        if full_refresh and (refresh or full):
            raise InvalidParameter(
                "full_refresh cannot be combined with refresh_selection or "
                "full_refresh_selection: a full refresh resets every table; drop one.")
        cause = body.get("cause") or "API_CALL"
        if cause not in updates.CAUSES:
            raise InvalidParameter(
                f"cause '{cause}' is not an update cause: use one of "
                f"{', '.join(updates.CAUSES)}.")
        parameters = body.get("parameters")
        if parameters is not None and not pipeline_spec.is_string_map(parameters):
            raise InvalidParameter("parameters must be an object of string values.")
        now = clock.now_ms()
        with self._db.write() as conn:
            doc = self._load(conn, pipeline_id)
            history = self._updates(conn, pipeline_id)
            active = next((u for u in history if updates.is_active(u, now)), None)
            if active is not None:
                raise ResourceConflict(
                    f"An active update {active['update_id']} already exists for pipeline "
                    f"{pipeline_id}: wait for it to end, or stop the pipeline first.")
            update_id = str(uuid.uuid4())
            settings = doc["spec"]
            update = {
                "update_id": update_id, "pipeline_id": pipeline_id,
                "seq": (history[0]["seq"] + 1) if history else 1,
                "creation_time": now, "transition_ms": self._transition_ms,
                "cause": cause, "full_refresh": full_refresh, "validate_only": validate_only,
                "refresh_selection": refresh, "full_refresh_selection": full,
                "parameters": parameters or doc.get("parameters") or {},
                "config": settings,
                "failure": self._failure(settings, self._run_as_user_name(doc)),
            }
            if settings.get("serverless") is not True:
                update["cluster_id"] = updates.cluster_id_for(update_id)
            conn.execute("INSERT INTO pipeline_updates (update_id, pipeline_id, seq, doc) "
                         "VALUES (?, ?, ?, ?)",
                         (update_id, pipeline_id, update["seq"], to_json(update)))
        return {"update_id": update_id}

    def _update(self, conn: sqlite3.Connection, pipeline_id: str, update_id: str
                ) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM pipeline_updates WHERE update_id = ? AND "
                           "pipeline_id = ?", (update_id, pipeline_id)).fetchone()
        if row is None:
            raise NotFound(f"The specified update {update_id} was not found in pipeline "
                           f"{pipeline_id}.")
        return from_json(row["doc"])

    def get_update(self, pipeline_id: str, update_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            self._load(conn, pipeline_id)
            update = self._update(conn, pipeline_id, update_id)
        return {"update": updates.view(update, clock.now_ms(), with_config=True)}

    def list_updates(self, pipeline_id: str, max_results: int | None,
                     page_token: str | None, until_update_id: str | None) -> dict[str, Any]:
        size = _page_size(max_results, "max_results", DEFAULT_UPDATES_PAGE, MAX_UPDATES_PAGE)
        offset = paging.decode_token(UPDATES_TOKEN, page_token) if page_token else 0
        with self._db.read() as conn:
            self._load(conn, pipeline_id)
            history = self._updates(conn, pipeline_id)
            if until_update_id is not None:
                until = self._update(conn, pipeline_id, until_update_id)
                history = [u for u in history if u["seq"] >= until["seq"]]
        now_ms = clock.now_ms()
        page = history[offset:offset + size]
        answer: dict[str, Any] = {
            "updates": [updates.view(u, now_ms, with_config=False) for u in page]} \
            if page else {}
        if offset + size < len(history):
            answer["next_page_token"] = paging.encode_token(UPDATES_TOKEN, offset + size)
        if offset > 0:
            answer["prev_page_token"] = paging.encode_token(UPDATES_TOKEN,
                                                            max(0, offset - size))
        return answer

    def stop(self, pipeline_id: str) -> None:
        """Cancels the active update, if any."""
        now = clock.now_ms()
        with self._db.write() as conn:
            self._load(conn, pipeline_id)
            for update in self._updates(conn, pipeline_id):
                if updates.is_active(update, now):
                    update["canceled_at"] = now
                    conn.execute("UPDATE pipeline_updates SET doc = ? WHERE update_id = ?",
                                 (to_json(update), update["update_id"]))

    # events

    def events(self, pipeline_id: str, filter_: str | None, max_results: int | None,
               order_by: list[str] | None, page_token: str | None) -> dict[str, Any]:
        size = _page_size(max_results, "max_results", DEFAULT_EVENTS_PAGE, MAX_EVENTS_PAGE)
        if page_token:
            # The token carries the listing it pages: the service refuses any other field
            # but max_results beside it.
            if filter_ or order_by:
                raise InvalidParameter(
                    "page_token cannot be given with filter or order_by: the token carries "
                    "the filter and order of the listing it pages; send it with max_results "
                    "only.")
            offset, filter_, ascending = _decode_events_token(page_token)
        else:
            offset, ascending = 0, _events_ascending(order_by)
        keep = event_filter(filter_)
        now_ms = clock.now_ms()
        with self._db.read() as conn:
            doc = self._load(conn, pipeline_id)
            history = self._updates(conn, pipeline_id)
        found = [event for update in history
                 for event in updates.events(update, now_ms, doc["spec"]["name"],
                                             self._workspace_id) if keep(event)]
        found.sort(key=lambda e: (e["_at"], e["sequence"]["control_plane_seq_no"]),
                   reverse=not ascending)
        page = [{k: v for k, v in event.items() if k != "_at"}
                for event in found[offset:offset + size]]
        answer: dict[str, Any] = {"events": page}
        if offset + size < len(found):
            answer["next_page_token"] = _encode_events_token(offset + size, filter_,
                                                             ascending)
        if offset > 0:
            answer["prev_page_token"] = _encode_events_token(max(0, offset - size), filter_,
                                                             ascending)
        return answer


# event listing: filters, order and page tokens

LEVELS = ("INFO", "WARN", "ERROR", "METRICS")
_CLAUSE_SPLIT = re.compile(r"\s+and\s+", re.IGNORECASE)
_LEVEL_IS = re.compile(r"^level\s*=\s*'(\w+)'$", re.IGNORECASE)
_LEVEL_IN = re.compile(r"^level\s+in\s*\(([^)]*)\)$", re.IGNORECASE)
_FIELD_IS = re.compile(r"^(id|update_id|origin\.update_id)\s*=\s*'([^']*)'$", re.IGNORECASE)
_TIMESTAMP = re.compile(r"^timestamp\s*(>=|<=|>|<|=)\s*'([^']+)'$", re.IGNORECASE)
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    ">": lambda a, b: a > b, ">=": lambda a, b: a >= b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, "=": lambda a, b: a == b}


def _clause(text: str) -> Callable[[dict[str, Any]], bool]:
    if match := _LEVEL_IS.match(text):
        level = match.group(1).upper()
        return lambda event: event["level"] == level
    if match := _LEVEL_IN.match(text):
        levels = {item.strip().strip("'").upper() for item in match.group(1).split(",")}
        return lambda event: event["level"] in levels
    if match := _FIELD_IS.match(text):
        field, value = match.group(1).lower(), match.group(2)
        if field == "id":
            return lambda event: event["id"] == value
        return lambda event: event["origin"]["update_id"] == value
    if match := _TIMESTAMP.match(text):
        try:
            moment = datetime.fromisoformat(match.group(2))
        except ValueError:
            raise InvalidParameter(
                f"timestamp '{match.group(2)}' in filter is not an ISO 8601 time such as "
                "2021-07-22T06:37:33.083Z.") from None
        at = int(moment.timestamp() * 1000)
        compare = _COMPARE[match.group(1)]
        return lambda event: compare(event["_at"], at)
    raise InvalidParameter(
        f"filter clause \"{text}\" is not supported: use level='<LEVEL>', level in "
        "('<LEVEL>', ...), id='<event id>', update_id='<update id>' or timestamp "
        "<op> '<ISO time>', joined by AND.")


def event_filter(filter_: str | None) -> Callable[[dict[str, Any]], bool]:
    if not filter_ or not filter_.strip():
        return lambda event: True
    clauses = [_clause(text.strip()) for text in _CLAUSE_SPLIT.split(filter_.strip())]
    return lambda event: all(clause(event) for clause in clauses)


def _events_ascending(order_by: list[str] | None) -> bool:
    if not order_by:
        return False
    wanted = " ".join(order_by[0].split()).lower()
    if len(order_by) > 1 or wanted not in ("timestamp asc", "timestamp desc", "timestamp"):
        raise InvalidParameter(
            f"order_by {order_by} is not supported: give 'timestamp asc' or "
            "'timestamp desc'.")
    return wanted == "timestamp asc"


def _encode_events_token(offset: int, filter_: str | None, ascending: bool) -> str:
    state = to_json({"offset": offset, "filter": filter_, "ascending": ascending})
    return base64.urlsafe_b64encode(f"{EVENTS_TOKEN}:{state}".encode()).decode()


def _decode_events_token(token: str) -> tuple[int, str | None, bool]:
    try:
        kind, _, state = base64.urlsafe_b64decode(token.encode()).decode().partition(":")
        found = from_json(state) if kind == EVENTS_TOKEN else None
        if not isinstance(found, dict) or not isinstance(found.get("offset"), int):
            raise ValueError(token)
        return found["offset"], found.get("filter"), bool(found.get("ascending"))
    except (ValueError, binascii.Error, UnicodeError) as exc:
        raise InvalidParameter(f"Invalid page_token '{token}'") from exc
