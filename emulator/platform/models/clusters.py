"""Clusters come with the workspace's initial data; they can be started and terminated.

A transitional state (PENDING, RESTARTING, RESIZING, TERMINATING) moves on by itself once
its transition time has passed. The move is computed from stored timestamps whenever the
cluster is read, so no background task runs and the outcome does not depend on timing of
reads. Each move records its own transition time, so a restart with another
--transition-seconds does not rewrite history.
"""

from __future__ import annotations

from typing import Any

from emulator import clock
from emulator.errors import InvalidParameter, InvalidState, NotFound
from emulator.storage import Database, from_json, to_json

STATES = ("PENDING", "RUNNING", "RESTARTING", "RESIZING", "TERMINATING", "TERMINATED", "ERROR",
          "UNKNOWN")
SETTLES_TO = {
    "PENDING": ("RUNNING", ""),
    "RESTARTING": ("RUNNING", ""),
    "RESIZING": ("RUNNING", ""),
    "TERMINATING": ("TERMINATED", "Terminated by user request"),
}
STATE_MESSAGES = {"PENDING": "Starting Spark", "TERMINATING": "Terminating cluster"}
INTERNAL_FIELDS = ("state_changed_at_ms", "transition_ms")
SHAPE_FIELDS = ("cluster_name", "spark_version", "node_type_id", "num_workers", "autoscale",
                "creator_user_name", "driver_node_type_id", "spark_conf", "custom_tags",
                "autotermination_minutes", "cluster_source")


def settle(doc: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """The cluster as it is at `now_ms`, after any due automatic move."""
    state = doc["state"]
    if state not in SETTLES_TO:
        return doc
    due_at = doc["state_changed_at_ms"] + doc["transition_ms"]
    if now_ms < due_at:
        return doc
    settled_state, message = SETTLES_TO[state]
    settled = dict(doc, state=settled_state, state_message=message, state_changed_at_ms=due_at)
    if settled_state == "TERMINATED":
        settled["terminated_time"] = due_at
    return settled


def public_view(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in INTERNAL_FIELDS}


class Clusters:
    def __init__(self, db: Database, transition_seconds: float) -> None:
        self._db = db
        self._transition_ms = int(transition_seconds * 1000)

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

    def all(self) -> list[dict[str, Any]]:
        now = clock.now_ms()
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM clusters ORDER BY rowid").fetchall()
        return [public_view(settle(from_json(row["doc"]), now)) for row in rows]

    def get(self, cluster_id: str) -> dict[str, Any]:
        return public_view(self._current(cluster_id))

    def exists(self, cluster_id: str) -> bool:
        with self._db.read() as conn:
            return conn.execute("SELECT 1 FROM clusters WHERE cluster_id = ?",
                                (cluster_id,)).fetchone() is not None

    def _current(self, cluster_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM clusters WHERE cluster_id = ?",
                               (cluster_id,)).fetchone()
        if row is None:
            raise NotFound(f"Cluster {cluster_id} does not exist")
        return settle(from_json(row["doc"]), clock.now_ms())

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
            self._save(conn, doc)

    def _save(self, conn, doc: dict[str, Any]) -> None:
        conn.execute("UPDATE clusters SET doc = ? WHERE cluster_id = ?",
                     (to_json(doc), doc["cluster_id"]))
