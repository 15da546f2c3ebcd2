"""A pipeline update's life, played out over the transition time T and computed when it is
read (like job runs and clusters: no background work), and the events it leaves.

Timeline: the update goes through QUEUED, WAITING_FOR_RESOURCES, INITIALIZING,
SETTING_UP_TABLES and RUNNING, each a fifth of T, and is COMPLETED at T. Its outcome is
decided when it starts: an update whose notebook or file library is not in the workspace
(or is not a notebook, a file), or whose catalog or schema does not exist, fails when its
sources are loaded, FAILED at the end of INITIALIZING; a `validate_only` update materializes
nothing and is COMPLETED at the end of SETTING_UP_TABLES. `stop` ends an active update at
once, CANCELED. With T = 0 every update has ended when it is first read.

Events, newest first by default: `create_update` when it starts, an `update_progress` for
each state it reached; the FAILED one is level ERROR and carries the reason as its error's
exception message.
"""

from __future__ import annotations

import hashlib
import uuid
from datetime import UTC, datetime
from typing import Any

PHASES = ("QUEUED", "WAITING_FOR_RESOURCES", "INITIALIZING", "SETTING_UP_TABLES", "RUNNING")
FAILS_AFTER = PHASES.index("INITIALIZING") + 1  # sources are loaded while initializing
VALIDATED_AFTER = PHASES.index("SETTING_UP_TABLES") + 1
TERMINAL = frozenset({"COMPLETED", "FAILED", "CANCELED"})
CAUSES = ("API_CALL", "INFRASTRUCTURE_MAINTENANCE", "JOB_TASK", "RETRY_ON_FAILURE",
          "SCHEMA_CHANGE", "SERVICE_UPGRADE", "USER_ACTION")
FAILURE_CLASS = "com.databricks.pipelines.common.errors.PipelineSourceException"
EVENT_NAMESPACE = uuid.UUID("5b0c1a6e-7d2f-4c3b-9e8a-1f2d3c4b5a69")


def iso(ms: int) -> str:
    """A time as the events and latest_updates show it: ISO 8601, milliseconds, UTC."""
    moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def cluster_id_for(update_id: str) -> str:
    """The id of the cluster a classic (not serverless) update runs on."""
    digest = hashlib.sha256(update_id.encode()).hexdigest()
    return f"{digest[:4]}-{digest[4:10]}-{digest[10:18]}"


def timeline(update: dict[str, Any]) -> list[tuple[str, int]]:
    """(state, when it began) of every state the update goes through, terminal last."""
    start, transition = update["creation_time"], update["transition_ms"]
    slot = [start + transition * index // len(PHASES) for index in range(len(PHASES) + 1)]
    if update.get("failure"):
        phases, end, final = PHASES[:FAILS_AFTER], slot[FAILS_AFTER], "FAILED"
    elif update.get("validate_only"):
        phases, end, final = PHASES[:VALIDATED_AFTER], slot[VALIDATED_AFTER], "COMPLETED"
    else:
        phases, end, final = PHASES, slot[len(PHASES)], "COMPLETED"
    steps = [(phase, slot[index]) for index, phase in enumerate(phases)]
    canceled_at = update.get("canceled_at")
    if canceled_at is not None and canceled_at < end:
        return [(s, at) for s, at in steps if at <= canceled_at] + [("CANCELED", canceled_at)]
    return [*steps, (final, end)]


def reached(update: dict[str, Any], now_ms: int) -> list[tuple[str, int]]:
    """The states the update has reached by `now_ms` (at least its first)."""
    steps = timeline(update)
    return [steps[0], *(step for step in steps[1:] if step[1] <= now_ms)]


def state(update: dict[str, Any], now_ms: int) -> str:
    return reached(update, now_ms)[-1][0]


def is_active(update: dict[str, Any], now_ms: int) -> bool:
    return state(update, now_ms) not in TERMINAL


def view(update: dict[str, Any], now_ms: int, with_config: bool) -> dict[str, Any]:
    """The update as the SDK's UpdateInfo (`config` only for get-update)."""
    shown: dict[str, Any] = {
        "pipeline_id": update["pipeline_id"],
        "update_id": update["update_id"],
        "state": state(update, now_ms),
        "creation_time": update["creation_time"],
        "cause": update["cause"],
        "full_refresh": update["full_refresh"],
        "validate_only": update["validate_only"],
    }
    for name in ("cluster_id", "refresh_selection", "full_refresh_selection", "parameters"):
        if update.get(name):
            shown[name] = update[name]
    if with_config:
        shown["config"] = update["config"]
    return shown


def state_info(update: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """The update as latest_updates lists it (the SDK's UpdateStateInfo)."""
    return {"update_id": update["update_id"], "state": state(update, now_ms),
            "creation_time": iso(update["creation_time"])}


def _event(update: dict[str, Any], index: int, at: int, event_type: str, level: str,
           message: str, pipeline_name: str, org_id: int) -> dict[str, Any]:
    origin = {"pipeline_id": update["pipeline_id"], "pipeline_name": pipeline_name,
              "update_id": update["update_id"], "org_id": org_id}
    if update.get("cluster_id"):
        origin["cluster_id"] = update["cluster_id"]
    return {
        "id": str(uuid.uuid5(EVENT_NAMESPACE, f"{update['update_id']}/{index}")),
        "event_type": event_type,
        "level": level,
        "maturity_level": "STABLE",
        "message": message,
        "origin": origin,
        "sequence": {"control_plane_seq_no": update["seq"] * 100 + index},
        "timestamp": iso(at),
        "_at": at,
    }


def events(update: dict[str, Any], now_ms: int, pipeline_name: str, org_id: int
           ) -> list[dict[str, Any]]:
    """The events of the update by `now_ms`, oldest first (each with its time in ms as
    `_at`, for ordering and filtering; not shown)."""
    short = update["update_id"][:6]
    found = [_event(update, 0, update["creation_time"], "create_update", "INFO",
                    f"Update {short} started by {update['cause']}.", pipeline_name, org_id)]
    for index, (reached_state, at) in enumerate(reached(update, now_ms), start=1):
        failed = reached_state == "FAILED"
        event = _event(update, index, at, "update_progress", "ERROR" if failed else "INFO",
                       f"Update {short} is {reached_state}.", pipeline_name, org_id)
        if failed:
            event["error"] = {"fatal": True, "exceptions": [
                {"class_name": FAILURE_CLASS, "message": update["failure"]}]}
        found.append(event)
    return found
