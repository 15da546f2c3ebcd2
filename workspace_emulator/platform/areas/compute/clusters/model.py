"""Clusters: the workspace's initial ones and those made through the API, their state
machine, pins, events and libraries.

A transitional state (PENDING, RESTARTING, RESIZING, TERMINATING) moves on by itself once
its transition time has passed; a RUNNING cluster with `autotermination_minutes` set
terminates once it has run that long (the emulator's clusters never do any work, so they
are idle from the moment they run). The move is computed from stored timestamps (through
`emulator.clock`) whenever the cluster is read, so no background task runs and the outcome
does not depend on timing of reads. Each move records its own transition time, so a restart
with another --transition-seconds does not rewrite history, and its event is dated when it
was due.

As the service: a create starts the cluster (PENDING); an edit of a RUNNING cluster
restarts it and of a TERMINATED one leaves it terminated, other states are INVALID_STATE; a
resize applies to a RUNNING cluster only, without a restart; a restart of a cluster that is
not RUNNING changes nothing; a permanent delete removes it (after which it is unknown).
Libraries install when the cluster runs, and an uninstall takes effect at the next restart.
A cluster under a policy is checked against the policy's rules on create, edit and resize
(policy_rules.py).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import InvalidParameter, InvalidState, NotFound
from workspace_emulator.platform.areas.compute.cluster_policies import policy_rules
from workspace_emulator.platform.areas.compute.cluster_policies.compute_catalog import (
    NODE_TYPE_IDS,
    SPARK_VERSION_KEYS,
)
from workspace_emulator.storage import Database, from_json, to_json

STATES = ("PENDING", "RUNNING", "RESTARTING", "RESIZING", "TERMINATING", "TERMINATED", "ERROR",
          "UNKNOWN")
SETTLES_TO = {
    "PENDING": ("RUNNING", ""),
    "RESTARTING": ("RUNNING", ""),
    "RESIZING": ("RUNNING", ""),
    "TERMINATING": ("TERMINATED", "Terminated by user request"),
}
STATE_MESSAGES = {"PENDING": "Starting Spark", "TERMINATING": "Terminating cluster",
                  "RESTARTING": "Restarting Spark", "RESIZING": "Resizing cluster"}
INTERNAL_FIELDS = ("state_changed_at_ms", "transition_ms", "events", "libraries", "pinned")
SHAPE_FIELDS = ("cluster_name", "spark_version", "node_type_id", "num_workers", "autoscale",
                "creator_user_name", "driver_node_type_id", "spark_conf", "custom_tags",
                "autotermination_minutes", "cluster_source")
# What the service computes or keeps itself: never taken from a create or edit body.
OUTPUT_FIELDS = frozenset({
    "cluster_id", "state", "state_message", "start_time", "terminated_time",
    "termination_reason", "creator_user_name", "cluster_source", "default_tags",
    "last_restarted_time", "spark_context_id", "jdbc_port", "driver", "executors",
    "cluster_memory_mb", "cluster_cores", "spec", *INTERNAL_FIELDS,
})
EDITABLE_STATES = ("RUNNING", "TERMINATED")
MAX_EVENTS = 500
EVENTS_PAGE_LIMIT = 500
AUTOTERMINATION_RANGE = (10, 10000)


def _event(cluster_id: str, at_ms: int, kind: str, **details: Any) -> dict[str, Any]:
    return {"cluster_id": cluster_id, "timestamp": at_ms, "type": kind, "details": details}


def _add_event(doc: dict[str, Any], at_ms: int, kind: str, **details: Any) -> None:
    events = doc.setdefault("events", [])
    events.append(_event(doc["cluster_id"], at_ms, kind, **details))
    del events[:-MAX_EVENTS]


def settle(doc: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """The cluster as it is at `now_ms`, after every due automatic move."""
    while True:
        moved = _next_move(doc, now_ms)
        if moved is None:
            return doc
        doc = moved


def _next_move(doc: dict[str, Any], now_ms: int) -> dict[str, Any] | None:
    state = doc["state"]
    if state == "RUNNING":
        minutes = doc.get("autotermination_minutes") or 0
        due_at = doc["state_changed_at_ms"] + minutes * 60_000
        if not minutes or now_ms < due_at:
            return None
        settled = dict(doc, state="TERMINATED", state_changed_at_ms=due_at, terminated_time=due_at,
                       state_message=f"Inactive cluster terminated (inactive for {minutes} "
                                     "minutes).",
                       termination_reason={"code": "INACTIVITY", "type": "SUCCESS",
                                           "parameters": {"inactivity_duration_min":
                                                          str(minutes)}},
                       events=list(doc.get("events", [])))
        # The service names a termination by the event of its start, with the reason.
        _add_event(settled, due_at, "TERMINATING", reason={"code": "INACTIVITY"})
        return settled
    if state not in SETTLES_TO:
        return None
    due_at = doc["state_changed_at_ms"] + doc["transition_ms"]
    if now_ms < due_at:
        return None
    settled_state, message = SETTLES_TO[state]
    settled = dict(doc, state=settled_state, state_message=message, state_changed_at_ms=due_at,
                   events=list(doc.get("events", [])))
    if settled_state == "TERMINATED":
        settled["terminated_time"] = due_at
    elif state == "RESIZING":
        _add_event(settled, due_at, "UPSIZE_COMPLETED")
    else:
        _add_event(settled, due_at, "RUNNING")
        if state == "RESTARTING":
            settled["last_restarted_time"] = due_at
    return settled


def public_view(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in INTERNAL_FIELDS}


def _cluster_id(now_ms: int, seed: str) -> str:
    stamp = time.strftime("%m%d-%H%M%S", time.gmtime(now_ms / 1000))
    suffix = hashlib.sha256(f"{seed}/{now_ms}".encode()).hexdigest()[:8]
    return f"{stamp}-{suffix}"


def _spec_of(request: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in request.items() if k not in OUTPUT_FIELDS and v is not None}


def _validate_spec(spec: dict[str, Any], policies: Any, pools: Any = None) -> None:
    version = spec.get("spark_version")
    if not version:
        raise InvalidParameter("Missing required field: spark_version")
    if version not in SPARK_VERSION_KEYS:
        raise InvalidParameter(
            f"Invalid spark version {version}: see clusters/spark-versions for the valid keys")
    for field in ("node_type_id", "driver_node_type_id"):
        node_type = spec.get(field)
        if node_type is not None and node_type not in NODE_TYPE_IDS:
            raise InvalidParameter(f"Node type {node_type} is not supported ({field})")
    if ("node_type_id" not in spec and "instance_pool_id" not in spec
            and "policy_id" not in spec):
        raise InvalidParameter("Missing required field: node_type_id")
    workers, autoscale = spec.get("num_workers"), spec.get("autoscale")
    if workers is None and autoscale is None and "policy_id" not in spec:
        raise InvalidParameter("Missing required field: num_workers or autoscale")
    if isinstance(workers, int) and workers < 0:
        raise InvalidParameter(f"num_workers must be at least 0, got {workers}")
    if isinstance(autoscale, dict):
        low, high = autoscale.get("min_workers"), autoscale.get("max_workers")
        if not isinstance(high, int) or (isinstance(low, int) and low > high):
            raise InvalidParameter(
                "autoscale needs max_workers, and min_workers must not exceed it")
    minutes = spec.get("autotermination_minutes")
    low, high = AUTOTERMINATION_RANGE
    if minutes is not None and minutes != 0 and not low <= minutes <= high:
        raise InvalidParameter(
            f"autotermination_minutes must be 0 (never) or between {low} and {high}, "
            f"got {minutes}")
    for field in ("instance_pool_id", "driver_instance_pool_id"):
        pool_id = spec.get(field)
        if pool_id is not None and not isinstance(pool_id, str):
            raise InvalidParameter(f"{field} must be a string")
        if pool_id is not None and pools is not None and not pools.exists(pool_id):
            raise InvalidParameter(f"Instance pool {pool_id} does not exist or is deleted "
                                   f"({field})")
    policy_id = spec.get("policy_id")
    if policy_id is not None:
        try:
            policy = policies.get(policy_id)
        except NotFound:
            raise InvalidParameter(f"Cluster policy {policy_id} does not exist") from None
        definition = json.loads(policy.get("definition") or "{}")
        broken = policy_rules.violations(definition, spec)
        if broken:
            raise InvalidParameter(
                f"Validation failed against cluster policy {policy_id}: " + "; ".join(broken))


TABLES = """
CREATE TABLE IF NOT EXISTS clusters (cluster_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


class Clusters:
    def __init__(self, db: Database, transition_seconds: float, policies: Any = None,
                 pools: Any = None) -> None:
        self._db = db
        self._transition_ms = int(transition_seconds * 1000)
        self._policies = policies
        self._pools = pools

    def add_initial(self, conn, spec: dict[str, Any]) -> None:
        state = spec.get("state", "TERMINATED")
        if state not in STATES:
            raise InvalidParameter(
                f"Initial-data cluster {spec.get('cluster_id')}: unknown state {state}")
        now = clock.now_ms()
        doc = {key: spec[key] for key in SHAPE_FIELDS if key in spec}
        doc.update(
            cluster_id=spec["cluster_id"],
            state=state,
            state_message=spec.get("state_message", STATE_MESSAGES.get(state, "")),
            start_time=spec.get("start_time", now),
            state_changed_at_ms=now,
            transition_ms=self._transition_ms,
        )
        if state == "TERMINATED":
            doc["terminated_time"] = spec.get("terminated_time", now)
        doc.setdefault("creator_user_name", "workspace-admin@example.com")
        doc.setdefault("cluster_source", "UI")
        conn.execute("INSERT INTO clusters (cluster_id, doc) VALUES (?, ?)",
                     (doc["cluster_id"], to_json(doc)))

    # --- reads ------------------------------------------------------------------------

    def all(self, pinned: bool | None = None, states: Sequence[str] = (),
            sources: Sequence[str] = (), policy_id: str | None = None,
            ) -> list[dict[str, Any]]:
        """Every cluster (pinned first, as the service lists them), narrowed as the list's
        `filter_by` asks: pinned or not, in one of `states`, from one of `sources`, under
        `policy_id`."""
        now = clock.now_ms()
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM clusters ORDER BY rowid").fetchall()
        docs = [settle(from_json(row["doc"]), now) for row in rows]
        if pinned is not None:
            docs = [doc for doc in docs if bool(doc.get("pinned")) == pinned]
        if states:
            docs = [doc for doc in docs if doc.get("state") in states]
        if sources:
            docs = [doc for doc in docs if doc.get("cluster_source") in sources]
        if policy_id is not None:
            docs = [doc for doc in docs if doc.get("policy_id") == policy_id]
        docs.sort(key=lambda doc: not doc.get("pinned"))
        return [public_view(doc) for doc in docs]

    def get(self, cluster_id: str) -> dict[str, Any]:
        """An unknown id is a 400 INVALID_PARAMETER_VALUE on `clusters/get`, as on the
        service (the other calls answer RESOURCE_DOES_NOT_EXIST)."""
        try:
            return public_view(self._current(cluster_id))
        except NotFound as missing:
            raise InvalidParameter(str(missing)) from None

    def running_on_pool(self, pool_id: str) -> int:
        """How many clusters that are not terminated take instances from the pool."""
        return sum(
            1 for doc in self.all()
            if doc.get("state") not in ("TERMINATED", "TERMINATING", "ERROR")
            and pool_id in (doc.get("instance_pool_id"), doc.get("driver_instance_pool_id")))

    def exists(self, cluster_id: str) -> bool:
        with self._db.read() as conn:
            return conn.execute("SELECT 1 FROM clusters WHERE cluster_id = ?",
                                (cluster_id,)).fetchone() is not None

    def events(self, request: dict[str, Any]) -> dict[str, Any]:
        doc = self._current(_required_id(request))
        events = doc.get("events", [])
        kinds = request.get("event_types")
        if kinds:
            events = [e for e in events if e["type"] in kinds]
        start, end = request.get("start_time"), request.get("end_time")
        events = [e for e in events if (start is None or e["timestamp"] >= start)
                  and (end is None or e["timestamp"] <= end)]
        if request.get("order", "DESC") == "DESC":
            events = events[::-1]
        offset = int(request.get("offset") or 0)
        limit = min(int(request.get("limit") or 50), EVENTS_PAGE_LIMIT)
        page = events[offset:offset + limit]
        body: dict[str, Any] = {"events": page, "total_count": len(events)}
        if offset + limit < len(events):
            body["next_page"] = {**request, "offset": offset + limit}
        return body

    def library_statuses(self, cluster_id: str) -> list[dict[str, Any]]:
        return _library_statuses(self._current(cluster_id))

    def all_library_statuses(self) -> list[dict[str, Any]]:
        """`{cluster_id, library_statuses}` of each cluster that has libraries."""
        now = clock.now_ms()
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM clusters ORDER BY rowid").fetchall()
        docs = [settle(from_json(row["doc"]), now) for row in rows]
        return [{"cluster_id": doc["cluster_id"], "library_statuses": _library_statuses(doc)}
                for doc in docs if doc.get("libraries")]

    # --- writes -----------------------------------------------------------------------

    def create(self, request: dict[str, Any], creator: str) -> str:
        spec = _spec_of(request)
        _validate_spec(spec, self._policies, self._pools)
        now = clock.now_ms()
        with self._db.write() as conn:
            cluster_id = _cluster_id(now, f"{creator}/{self._db.next_value(conn, 'cluster', 1)}")
            doc: dict[str, Any] = {
                **spec,
                "cluster_id": cluster_id,
                "creator_user_name": creator,
                "cluster_source": "API",
                "enable_elastic_disk": spec.get("enable_elastic_disk", True),
                "state": "PENDING",
                "state_message": STATE_MESSAGES["PENDING"],
                "start_time": now,
                "state_changed_at_ms": now,
                "transition_ms": self._transition_ms,
            }
            doc["default_tags"] = self._default_tags(doc)
            _add_event(doc, now, "CREATING", user=creator)
            conn.execute("INSERT INTO clusters (cluster_id, doc) VALUES (?, ?)",
                         (cluster_id, to_json(doc)))
        return cluster_id

    def edit(self, request: dict[str, Any], editor: str) -> None:
        cluster_id = _required_id(request)
        spec = _spec_of(request)
        _validate_spec(spec, self._policies, self._pools)
        with self._db.write() as conn:
            doc = self._current(cluster_id)
            if doc.get("cluster_source") == "JOB":
                raise InvalidParameter(f"Cluster {cluster_id} was made by a job: it cannot be "
                                       "edited")
            if doc["state"] not in EDITABLE_STATES:
                raise InvalidState(
                    f"Cluster {cluster_id} is in unexpected state {doc['state']}; only a "
                    "RUNNING or TERMINATED cluster can be edited.")
            now = clock.now_ms()
            kept = {k: v for k, v in doc.items() if k in OUTPUT_FIELDS}
            doc = {**kept, **spec, "enable_elastic_disk": spec.get("enable_elastic_disk", True)}
            doc["default_tags"] = self._default_tags(doc)
            _add_event(doc, now, "EDITED", user=editor)
            if doc["state"] == "RUNNING":
                self._restart(doc, now)
            self._save(conn, doc)

    def resize(self, request: dict[str, Any]) -> None:
        cluster_id = _required_id(request)
        workers, autoscale = request.get("num_workers"), request.get("autoscale")
        if (workers is None) == (autoscale is None):
            raise InvalidParameter("Give exactly one of num_workers and autoscale")
        with self._db.write() as conn:
            doc = self._current(cluster_id)
            if doc["state"] != "RUNNING":
                raise InvalidState(
                    f"Cluster {cluster_id} is in unexpected state {doc['state']}; only a "
                    "RUNNING cluster can be resized.")
            now = clock.now_ms()
            doc.pop("num_workers", None)
            doc.pop("autoscale", None)
            if workers is not None:
                doc["num_workers"] = workers
            else:
                doc["autoscale"] = autoscale
            _validate_spec(_spec_of(doc), self._policies, self._pools)
            doc.update(state="RESIZING", state_message=STATE_MESSAGES["RESIZING"],
                       state_changed_at_ms=now, transition_ms=self._transition_ms)
            _add_event(doc, now, "RESIZING", target_num_workers=workers)
            self._save(conn, doc)

    def restart(self, cluster_id: str) -> None:
        with self._db.write() as conn:
            doc = self._current(cluster_id)
            if doc["state"] != "RUNNING":
                return
            self._restart(doc, clock.now_ms())
            self._save(conn, doc)

    def start(self, cluster_id: str) -> None:
        with self._db.write() as conn:
            doc = self._current(cluster_id)
            if doc["state"] != "TERMINATED":
                raise InvalidState(
                    f"Cluster {cluster_id} is in unexpected state {doc['state']}; only a "
                    "TERMINATED cluster can be started."
                )
            now = clock.now_ms()
            doc.update(state="PENDING", state_message=STATE_MESSAGES["PENDING"], start_time=now,
                       state_changed_at_ms=now, transition_ms=self._transition_ms)
            doc.pop("terminated_time", None)
            doc.pop("termination_reason", None)
            _drop_uninstalled(doc)
            _add_event(doc, now, "STARTING")
            self._save(conn, doc)

    def terminate(self, cluster_id: str, requested_by: str) -> None:
        """Stop (seed form) and delete (public form): a no-op on a terminated cluster."""
        with self._db.write() as conn:
            doc = self._current(cluster_id)
            if doc["state"] in ("TERMINATED", "TERMINATING"):
                return
            now = clock.now_ms()
            doc.update(
                state="TERMINATING", state_message=STATE_MESSAGES["TERMINATING"],
                state_changed_at_ms=now, transition_ms=self._transition_ms,
                termination_reason={"code": "USER_REQUEST", "type": "SUCCESS",
                                    "parameters": {"username": requested_by}},
            )
            _add_event(doc, now, "TERMINATING", user=requested_by)
            self._save(conn, doc)

    def permanent_delete(self, cluster_id: str) -> None:
        with self._db.write() as conn:
            self._current(cluster_id)  # unknown: RESOURCE_DOES_NOT_EXIST
            conn.execute("DELETE FROM clusters WHERE cluster_id = ?", (cluster_id,))

    def set_pinned(self, cluster_id: str, pinned: bool) -> None:
        with self._db.write() as conn:
            doc = self._current(cluster_id)
            if bool(doc.get("pinned")) == pinned:
                return
            doc["pinned"] = pinned
            _add_event(doc, clock.now_ms(), "PINNED" if pinned else "UNPINNED")
            self._save(conn, doc)

    def install_libraries(self, cluster_id: str, libraries: list[dict[str, Any]]) -> None:
        _check_libraries(libraries)
        with self._db.write() as conn:
            doc = self._current(cluster_id)
            entries = doc.setdefault("libraries", [])
            for library in libraries:
                found = _entry_of(entries, library)
                if found is None:
                    entries.append({"library": library})
                else:
                    found.pop("uninstall", None)  # installed again before the restart
            self._save(conn, doc)

    def uninstall_libraries(self, cluster_id: str, libraries: list[dict[str, Any]]) -> None:
        _check_libraries(libraries)
        with self._db.write() as conn:
            doc = self._current(cluster_id)
            entries = doc.get("libraries", [])
            for library in libraries:
                found = _entry_of(entries, library)
                if found is not None:
                    if doc["state"] == "RUNNING":
                        found["uninstall"] = True
                    else:
                        entries.remove(found)  # never installed: gone at once
            self._save(conn, doc)

    # --- helpers ----------------------------------------------------------------------

    def _restart(self, doc: dict[str, Any], now: int) -> None:
        doc.update(state="RESTARTING", state_message=STATE_MESSAGES["RESTARTING"],
                   state_changed_at_ms=now, transition_ms=self._transition_ms)
        _drop_uninstalled(doc)
        _add_event(doc, now, "RESTARTING")

    @staticmethod
    def _default_tags(doc: dict[str, Any]) -> dict[str, str]:
        return {"Vendor": "Databricks", "Creator": doc.get("creator_user_name", ""),
                "ClusterName": doc.get("cluster_name", ""), "ClusterId": doc["cluster_id"]}

    def _current(self, cluster_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM clusters WHERE cluster_id = ?",
                               (cluster_id,)).fetchone()
        if row is None:
            raise NotFound(f"Cluster {cluster_id} does not exist")
        return settle(from_json(row["doc"]), clock.now_ms())

    def _save(self, conn, doc: dict[str, Any]) -> None:
        conn.execute("UPDATE clusters SET doc = ? WHERE cluster_id = ?",
                     (to_json(doc), doc["cluster_id"]))


def _required_id(request: dict[str, Any]) -> str:
    cluster_id = request.get("cluster_id")
    if not isinstance(cluster_id, str) or not cluster_id:
        raise InvalidParameter("Missing required field: cluster_id")
    return cluster_id


def _drop_uninstalled(doc: dict[str, Any]) -> None:
    if "libraries" in doc:
        doc["libraries"] = [e for e in doc["libraries"] if not e.get("uninstall")]


def _library_key(library: dict[str, Any]) -> str:
    return json.dumps(library, sort_keys=True)


def _entry_of(entries: list[dict[str, Any]], library: dict[str, Any]) -> dict[str, Any] | None:
    key = _library_key(library)
    return next((e for e in entries if _library_key(e["library"]) == key), None)


LIBRARY_KINDS = ("jar", "egg", "whl", "pypi", "maven", "cran", "requirements")


def _check_libraries(libraries: Any) -> None:
    if not isinstance(libraries, list) or not libraries:
        raise InvalidParameter("Missing required field: libraries")
    for index, library in enumerate(libraries):
        kinds = [k for k in LIBRARY_KINDS if isinstance(library, dict) and k in library]
        if len(kinds) != 1:
            raise InvalidParameter(
                f"libraries[{index}] must give exactly one of {', '.join(LIBRARY_KINDS)}")


def _library_statuses(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """A cluster's libraries: installed while it runs, pending otherwise, and those
    uninstalled while it ran marked for removal at the next restart."""
    running = doc["state"] == "RUNNING"
    return [
        {
            "library": entry["library"],
            "status": "UNINSTALL_ON_RESTART" if entry.get("uninstall")
            else ("INSTALLED" if running else "PENDING"),
            "is_library_for_all_clusters": False,
        }
        for entry in doc.get("libraries", [])
    ]
