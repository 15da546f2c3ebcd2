"""SQL warehouses: their settings as the service checks and fills them, and their state
machine.

A create starts the warehouse (STARTING, then RUNNING once the transition time has passed);
a stop moves a STARTING or RUNNING warehouse to STOPPING, then STOPPED; a start moves a
STOPPED or STOPPING one to STARTING. A RUNNING warehouse with `auto_stop_mins` set stops
once it has run that long (the emulator's warehouses never run queries, so they are idle
from the moment they run). As with clusters, the moves are computed from stored timestamps
(through `emulator.clock`) whenever a warehouse is read.

An edit changes the fields it gives and keeps the others. An edit of a RUNNING warehouse
that changes how its clusters are built (size, type, serverless, Photon, channel, spot
policy) restarts it (STARTING); a STOPPED warehouse stays stopped. A delete removes the
warehouse: every later read answers RESOURCE_DOES_NOT_EXIST. Names are unique.
"""

from __future__ import annotations

import hashlib
from typing import Any
from urllib.parse import urlsplit

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound
from workspace_emulator.storage import Database, from_json, to_json

STATES = ("STARTING", "RUNNING", "STOPPING", "STOPPED", "DELETING", "DELETED")
SETTLES_TO = {"STARTING": "RUNNING", "STOPPING": "STOPPED"}
CLUSTER_SIZES = ("2X-Small", "X-Small", "Small", "Medium", "Large", "X-Large", "2X-Large",
                 "3X-Large", "4X-Large", "5X-Large")
WAREHOUSE_TYPES = ("PRO", "CLASSIC")
SPOT_POLICIES = ("COST_OPTIMIZED", "RELIABILITY_OPTIMIZED", "POLICY_UNSPECIFIED")
CHANNELS = ("CHANNEL_NAME_CURRENT", "CHANNEL_NAME_PREVIEW", "CHANNEL_NAME_PREVIOUS",
            "CHANNEL_NAME_CUSTOM")
MAX_NAME = 100
MAX_TAGS = 45
MAX_CLUSTERS = 40
MAX_MIN_CLUSTERS = 30
MIN_AUTO_STOP = 10
# What the service fills in where a create leaves it out.
DEFAULTS: dict[str, Any] = {
    "auto_stop_mins": 120,
    "min_num_clusters": 1,
    "enable_photon": True,
    "enable_serverless_compute": False,
    "warehouse_type": "CLASSIC",
    "spot_instance_policy": "COST_OPTIMIZED",
    "channel": {"name": "CHANNEL_NAME_CURRENT"},
}
SETTINGS = ("name", "cluster_size", "min_num_clusters", "max_num_clusters", "auto_stop_mins",
            "enable_photon", "enable_serverless_compute", "warehouse_type", "channel", "tags",
            "spot_instance_policy", "instance_profile_arn", "statement_timeout",
            "creator_name")
# A change of these, of a running warehouse, restarts it.
RESTARTING_SETTINGS = ("cluster_size", "enable_photon", "enable_serverless_compute",
                       "warehouse_type", "channel", "spot_instance_policy",
                       "instance_profile_arn")
INTERNAL_FIELDS = ("state_changed_at_ms", "transition_ms")

TABLES = """
CREATE TABLE IF NOT EXISTS sql_warehouses (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


def settle(doc: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """The warehouse as it is at `now_ms`, after every due automatic move."""
    while True:
        state = doc["state"]
        if state in SETTLES_TO:
            due_at = doc["state_changed_at_ms"] + doc["transition_ms"]
            if now_ms < due_at:
                return doc
            doc = dict(doc, state=SETTLES_TO[state], state_changed_at_ms=due_at)
        elif state == "RUNNING" and doc.get("auto_stop_mins"):
            due_at = doc["state_changed_at_ms"] + doc["auto_stop_mins"] * 60_000
            if now_ms < due_at:
                return doc
            doc = dict(doc, state="STOPPED", state_changed_at_ms=due_at)
        else:
            return doc


def public_view(doc: dict[str, Any]) -> dict[str, Any]:
    view = {k: v for k, v in doc.items() if k not in INTERNAL_FIELDS}
    running = doc["state"] == "RUNNING"
    view["num_clusters"] = doc.get("min_num_clusters", 1) if running else 0
    view["num_active_sessions"] = 0
    view["health"] = {"status": "HEALTHY"} if running else {}
    return view


def _int(settings: dict[str, Any], field: str) -> int | None:
    value = settings.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameter(f"'{field}' must be an integer, got {value!r}")
    return value


def check(settings: dict[str, Any]) -> None:
    """Refuses settings the service refuses, naming the field."""
    name = settings.get("name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameter("Missing required field: name")
    if len(name) >= MAX_NAME:
        raise InvalidParameter(f"'name' must be shorter than {MAX_NAME} characters")
    size = settings.get("cluster_size")
    if size is None:
        raise InvalidParameter("Missing required field: cluster_size")
    if size not in CLUSTER_SIZES:
        raise InvalidParameter(
            f"'cluster_size' {size!r} is not supported: one of {', '.join(CLUSTER_SIZES)}")
    low, high = _int(settings, "min_num_clusters"), _int(settings, "max_num_clusters")
    if low is not None and not 0 < low <= MAX_MIN_CLUSTERS:
        raise InvalidParameter(
            f"'min_num_clusters' must be between 1 and {MAX_MIN_CLUSTERS}, got {low}")
    if high is not None and not 0 < high <= MAX_CLUSTERS:
        raise InvalidParameter(
            f"'max_num_clusters' must be between 1 and {MAX_CLUSTERS}, got {high}")
    if low is not None and high is not None and low > high:
        raise InvalidParameter(
            f"'min_num_clusters' ({low}) must not exceed 'max_num_clusters' ({high})")
    minutes = _int(settings, "auto_stop_mins")
    if minutes is not None and minutes != 0 and minutes < MIN_AUTO_STOP:
        raise InvalidParameter(
            f"'auto_stop_mins' must be 0 (never) or at least {MIN_AUTO_STOP}, got {minutes}")
    kind = settings.get("warehouse_type")
    if kind is not None and kind not in (*WAREHOUSE_TYPES, "TYPE_UNSPECIFIED"):
        raise InvalidParameter(f"'warehouse_type' must be PRO or CLASSIC, not {kind!r}")
    if settings.get("enable_serverless_compute") and kind != "PRO":
        raise InvalidParameter(
            "Serverless compute needs a PRO warehouse: set 'warehouse_type' to PRO")
    policy = settings.get("spot_instance_policy")
    if policy is not None and policy not in SPOT_POLICIES:
        raise InvalidParameter(
            f"'spot_instance_policy' must be one of {', '.join(SPOT_POLICIES)}, not {policy!r}")
    channel = settings.get("channel")
    if channel is not None:
        if not isinstance(channel, dict):
            raise InvalidParameter("'channel' must be an object")
        if channel.get("name", "CHANNEL_NAME_CURRENT") not in CHANNELS:
            raise InvalidParameter(f"'channel.name' must be one of {', '.join(CHANNELS)}")
        if channel.get("name") == "CHANNEL_NAME_CUSTOM" and not channel.get("dbsql_version"):
            raise InvalidParameter("'channel.dbsql_version' is required with CHANNEL_NAME_CUSTOM")
    tags = settings.get("tags")
    if tags is not None:
        if not isinstance(tags, dict):
            raise InvalidParameter("'tags' must be an object: {custom_tags: [...]}")
        pairs = tags.get("custom_tags")
        if pairs is not None and (not isinstance(pairs, list) or not all(
                isinstance(p, dict) and isinstance(p.get("key"), str) and p["key"]
                for p in pairs)):
            raise InvalidParameter("'tags.custom_tags' must be a list of {key, value} pairs")
        if pairs and len(pairs) >= MAX_TAGS:
            raise InvalidParameter(f"'tags.custom_tags' holds {len(pairs)} tags; fewer than "
                                   f"{MAX_TAGS} are allowed")


def _settings_of(request: dict[str, Any]) -> dict[str, Any]:
    return {k: request[k] for k in SETTINGS if request.get(k) is not None}


class SqlWarehouses:
    def __init__(self, db: Database, transition_seconds: float, base_url: str) -> None:
        self._db = db
        self._transition_ms = int(transition_seconds * 1000)
        self._host = urlsplit(base_url).hostname or "localhost"

    # --- reads ------------------------------------------------------------------------

    def all(self) -> list[dict[str, Any]]:
        now = clock.now_ms()
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM sql_warehouses ORDER BY rowid").fetchall()
        return [public_view(settle(from_json(row["doc"]), now)) for row in rows]

    def get(self, warehouse_id: str) -> dict[str, Any]:
        return public_view(self._current(warehouse_id))

    def exists(self, warehouse_id: str) -> bool:
        with self._db.read() as conn:
            return conn.execute("SELECT 1 FROM sql_warehouses WHERE id = ?",
                                (warehouse_id,)).fetchone() is not None

    # --- writes -----------------------------------------------------------------------

    def create(self, request: dict[str, Any], creator: str) -> str:
        settings = {**DEFAULTS, **_settings_of(request)}
        if settings.get("warehouse_type") == "TYPE_UNSPECIFIED":
            settings["warehouse_type"] = DEFAULTS["warehouse_type"]
        settings.setdefault("max_num_clusters", settings["min_num_clusters"])
        check(settings)
        now = clock.now_ms()
        with self._db.write() as conn:
            self._refuse_taken_name(conn, settings["name"], None)
            serial = self._db.next_value(conn, "sql_warehouse", 1)
            warehouse_id = hashlib.sha256(f"{creator}/{serial}/{now}".encode()).hexdigest()[:16]
            path = f"/sql/1.0/warehouses/{warehouse_id}"
            doc = {
                **settings,
                "id": warehouse_id,
                "creator_name": settings.get("creator_name") or creator,
                "state": "STARTING",
                "jdbc_url": (f"jdbc:spark://{self._host}:443/default;transportMode=http;ssl=1;"
                             f"AuthMech=3;httpPath={path};"),
                "odbc_params": {"hostname": self._host, "path": path, "port": 443,
                                "protocol": "https"},
                "state_changed_at_ms": now,
                "transition_ms": self._transition_ms,
            }
            conn.execute("INSERT INTO sql_warehouses (id, doc) VALUES (?, ?)",
                         (warehouse_id, to_json(doc)))
        return warehouse_id

    def edit(self, warehouse_id: str, request: dict[str, Any]) -> None:
        given = _settings_of(request)
        with self._db.write() as conn:
            doc = self._current(warehouse_id)
            if given.get("warehouse_type") == "TYPE_UNSPECIFIED":
                given["warehouse_type"] = doc["warehouse_type"]
            edited = {**doc, **given}
            check(edited)
            self._refuse_taken_name(conn, edited["name"], warehouse_id)
            restarts = any(doc.get(k) != edited.get(k) for k in RESTARTING_SETTINGS)
            if restarts and doc["state"] in ("RUNNING", "STARTING"):
                self._move(edited, "STARTING")
            self._save(conn, edited)

    def start(self, warehouse_id: str) -> None:
        with self._db.write() as conn:
            doc = self._current(warehouse_id)
            if doc["state"] in ("STOPPED", "STOPPING"):
                self._move(doc, "STARTING")
                self._save(conn, doc)

    def stop(self, warehouse_id: str) -> None:
        with self._db.write() as conn:
            doc = self._current(warehouse_id)
            if doc["state"] in ("STARTING", "RUNNING"):
                self._move(doc, "STOPPING")
                self._save(conn, doc)

    def delete(self, warehouse_id: str) -> None:
        with self._db.write() as conn:
            self._current(warehouse_id)
            conn.execute("DELETE FROM sql_warehouses WHERE id = ?", (warehouse_id,))

    # --- helpers ----------------------------------------------------------------------

    def _move(self, doc: dict[str, Any], state: str) -> None:
        doc.update(state=state, state_changed_at_ms=clock.now_ms(),
                   transition_ms=self._transition_ms)

    def _refuse_taken_name(self, conn, name: str, own_id: str | None) -> None:
        for row in conn.execute("SELECT id, doc FROM sql_warehouses").fetchall():
            if row["id"] != own_id and from_json(row["doc"]).get("name") == name:
                raise AlreadyExists(f"SQL warehouse with name '{name}' already exists "
                                    f"(id {row['id']}).")

    def _current(self, warehouse_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM sql_warehouses WHERE id = ?",
                               (warehouse_id,)).fetchone()
        if row is None:
            raise NotFound(f"SQL warehouse {warehouse_id} does not exist.")
        return settle(from_json(row["doc"]), clock.now_ms())

    def _save(self, conn, doc: dict[str, Any]) -> None:
        conn.execute("UPDATE sql_warehouses SET doc = ? WHERE id = ?",
                     (to_json(doc), doc["id"]))
