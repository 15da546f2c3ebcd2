"""Apps: their settings as the service checks them, their compute's state machine and
their deployments.

A create starts the app's compute (STARTING, ACTIVE once the transition time has passed;
`no_compute` leaves it STOPPED); a stop moves ACTIVE or STARTING compute to STOPPING, then
STOPPED; a start moves STOPPED or STOPPING compute to STARTING. An app with no successful
deployment is UNAVAILABLE; a deployment (of a workspace folder, ACTIVE compute needed) is
IN_PROGRESS (the app DEPLOYING) for the transition time, then SUCCEEDED (the app RUNNING,
the deployment its `active_deployment`), or FAILED with its message where the source code
path was missing when it was made. The moves are computed from stored timestamps (through
`emulator.clock`) on every read. An update (PATCH) replaces the settings it gives; a
delete removes the app. An app's permissions (`apps`) are addressed by its name.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, InvalidState, NotFound
from workspace_emulator.storage import Database, from_json, to_json

NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,28}[a-z0-9]")
COMPUTE_SIZES = ("MEDIUM", "LARGE", "XLARGE")
SETTLES_TO = {"STARTING": "ACTIVE", "STOPPING": "STOPPED"}
SETTINGS = ("description", "resources", "compute_size", "user_api_scopes", "budget_policy_id")
# resource type -> (the fields naming what it is, the permissions it takes)
RESOURCE_TYPES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "secret": (("scope", "key"), ("READ", "WRITE", "MANAGE")),
    "sql_warehouse": (("id",), ("CAN_USE", "CAN_MANAGE", "IS_OWNER")),
    "serving_endpoint": (("name",), ("CAN_VIEW", "CAN_QUERY", "CAN_MANAGE")),
    "job": (("id",), ("CAN_VIEW", "CAN_MANAGE_RUN", "CAN_MANAGE", "IS_OWNER")),
    "uc_securable": (("securable_full_name", "securable_type"),
                     ("EXECUTE", "MODIFY", "READ_VOLUME", "SELECT", "USE_CONNECTION",
                      "WRITE_VOLUME")),
}
INTERNAL_FIELDS = ("compute_changed_at_ms", "transition_ms", "deployments")

TABLES = """
CREATE TABLE IF NOT EXISTS apps (name TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


def _timestamp(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def settle(doc: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """The app as it is at `now_ms`: its compute's and its deployments' due moves made."""
    doc = dict(doc)
    state = doc["compute_state"]
    if state in SETTLES_TO and now_ms >= doc["compute_changed_at_ms"] + doc["transition_ms"]:
        doc["compute_state"] = SETTLES_TO[state]
    deployments = []
    for deployment in doc.get("deployments", []):
        if deployment["status"]["state"] == "IN_PROGRESS" \
                and now_ms >= deployment["made_at_ms"] + doc["transition_ms"]:
            outcome = deployment.pop("outcome")
            deployment = dict(deployment, status=outcome,
                              update_time=_timestamp(deployment["made_at_ms"]
                                                     + doc["transition_ms"]))
            if outcome["state"] == "SUCCEEDED":
                doc["active_deployment_id"] = deployment["deployment_id"]
        deployments.append(deployment)
    doc["deployments"] = deployments
    return doc


def deployment_view(deployment: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in deployment.items() if k not in ("made_at_ms", "outcome")}


def public_view(doc: dict[str, Any]) -> dict[str, Any]:
    view = {k: v for k, v in doc.items()
            if k not in (*INTERNAL_FIELDS, "compute_state", "active_deployment_id")}
    compute = doc["compute_state"]
    messages = {"ACTIVE": "App compute is running.", "STARTING": "App compute is starting.",
                "STOPPING": "App compute is stopping.", "STOPPED": "App compute is stopped."}
    view["compute_status"] = {"state": compute, "message": messages[compute]}
    by_id = {d["deployment_id"]: d for d in doc.get("deployments", [])}
    active = by_id.get(doc.get("active_deployment_id", ""))
    pending = next((d for d in reversed(doc.get("deployments", []))
                    if d["status"]["state"] == "IN_PROGRESS"), None)
    if active is not None:
        view["active_deployment"] = deployment_view(active)
        view["default_source_code_path"] = active["source_code_path"]
    if pending is not None:
        view["pending_deployment"] = deployment_view(pending)
    if compute != "ACTIVE":
        status = {"state": "UNAVAILABLE", "message": "App is not running: its compute is "
                  f"{compute}."}
    elif pending is not None:
        status = {"state": "DEPLOYING", "message": "App is being deployed."}
    elif active is not None:
        status = {"state": "RUNNING", "message": "App has status: App is running"}
    else:
        status = {"state": "UNAVAILABLE", "message": "App has not been deployed yet. Run "
                  "your app by deploying code from a workspace folder."}
    view["app_status"] = status
    return view


def check_settings(settings: dict[str, Any]) -> None:
    size = settings.get("compute_size")
    if size is not None and size not in COMPUTE_SIZES:
        raise InvalidParameter(f"'compute_size' {size!r} is not supported: one of "
                               f"{', '.join(COMPUTE_SIZES)}")
    resources = settings.get("resources") or []
    if not isinstance(resources, list):
        raise InvalidParameter("'resources' must be a list")
    names = []
    for index, resource in enumerate(resources):
        where = f"resources[{index}]"
        if not isinstance(resource, dict) or not resource.get("name"):
            raise InvalidParameter(f"Missing required field: {where}.name")
        names.append(resource["name"])
        kinds = [k for k in RESOURCE_TYPES if k in resource]
        if len(kinds) != 1:
            raise InvalidParameter(f"'{where}' must give exactly one of "
                                   f"{', '.join(RESOURCE_TYPES)}")
        fields, permissions = RESOURCE_TYPES[kinds[0]]
        body = resource[kinds[0]]
        for field in fields:
            if not isinstance(body, dict) or not body.get(field):
                raise InvalidParameter(f"Missing required field: {where}.{kinds[0]}.{field}")
        if body.get("permission") not in permissions:
            raise InvalidParameter(f"'{where}.{kinds[0]}.permission' must be one of "
                                   f"{', '.join(permissions)}")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InvalidParameter(f"Resource names must be unique: {', '.join(repeated)}")


class Apps:
    def __init__(self, db: Database, transition_seconds: float, base_url: str,
                 workspace_id: int, folder_exists: Callable[[str], bool]) -> None:
        self._db = db
        self._transition_ms = int(transition_seconds * 1000)
        self._workspace_id = workspace_id
        self._folder_exists = folder_exists

    # --- reads ------------------------------------------------------------------------
    def all(self) -> list[dict[str, Any]]:
        now = clock.now_ms()
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM apps ORDER BY name").fetchall()
        return [public_view(settle(from_json(row["doc"]), now)) for row in rows]

    def get(self, name: str) -> dict[str, Any]:
        return public_view(self._current(name))

    def exists(self, name: str) -> bool:
        with self._db.read() as conn:
            return conn.execute("SELECT 1 FROM apps WHERE name = ?", (name,)).fetchone() \
                is not None

    def deployments(self, name: str) -> list[dict[str, Any]]:
        return [deployment_view(d) for d in reversed(self._current(name)["deployments"])]

    def deployment(self, name: str, deployment_id: str) -> dict[str, Any]:
        found = next((d for d in self._current(name)["deployments"]
                      if d["deployment_id"] == deployment_id), None)
        if found is None:
            raise NotFound(f"Deployment {deployment_id} of app {name} does not exist.")
        return deployment_view(found)

    # --- writes -----------------------------------------------------------------------
    def create(self, request: dict[str, Any], creator: str, no_compute: bool) -> dict[str, Any]:
        name = request.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidParameter("Missing required field: name")
        if not NAME.fullmatch(name):
            raise InvalidParameter(
                f"App name {name!r} is invalid: 2 to 30 lower-case letters, digits and "
                "hyphens, not starting or ending with a hyphen.")
        settings = {k: request[k] for k in SETTINGS if request.get(k) is not None}
        settings.setdefault("compute_size", "MEDIUM")
        check_settings(settings)
        now = clock.now_ms()
        app_id = uuid.uuid4().hex
        doc = {
            "name": name,
            **settings,
            "id": app_id,
            "url": f"https://{name}-{self._workspace_id}.emulator.apps.local",
            "creator": creator,
            "create_time": _timestamp(now),
            "update_time": _timestamp(now),
            "service_principal_client_id": str(uuid.uuid5(uuid.NAMESPACE_URL, app_id)),
            "service_principal_name": f"app-{name}",
            "compute_state": "STOPPED" if no_compute else "STARTING",
            "compute_changed_at_ms": now,
            "transition_ms": self._transition_ms,
            "deployments": [],
        }
        with self._db.write() as conn:
            if conn.execute("SELECT 1 FROM apps WHERE name = ?", (name,)).fetchone():
                raise AlreadyExists(f"An app with the same name '{name}' already exists.")
            conn.execute("INSERT INTO apps (name, doc) VALUES (?, ?)", (name, to_json(doc)))
        return public_view(doc)

    def update(self, name: str, request: dict[str, Any]) -> dict[str, Any]:
        given = {k: request[k] for k in SETTINGS if k in request}
        with self._db.write() as conn:
            doc = self._current(name)
            edited = {**doc, **given, "update_time": _timestamp(clock.now_ms())}
            check_settings(edited)
            self._save(conn, edited)
        return public_view(edited)

    def start(self, name: str) -> dict[str, Any]:
        return self._move(name, ("STOPPED", "STOPPING"), "STARTING")

    def stop(self, name: str) -> dict[str, Any]:
        return self._move(name, ("ACTIVE", "STARTING"), "STOPPING")

    def deploy(self, name: str, request: dict[str, Any], creator: str) -> dict[str, Any]:
        with self._db.write() as conn:
            doc = self._current(name)
            path = request.get("source_code_path") or doc.get("default_source_code_path")
            if not isinstance(path, str) or not path:
                raise InvalidParameter("Missing required field: source_code_path")
            if doc["compute_state"] != "ACTIVE":
                raise InvalidState(
                    f"Cannot deploy app {name} as its compute is {doc['compute_state']}: "
                    "start the app first.")
            if any(d["status"]["state"] == "IN_PROGRESS" for d in doc["deployments"]):
                raise InvalidState(f"App {name} has a deployment in progress.")
            mode = request.get("mode", "SNAPSHOT")
            if mode not in ("SNAPSHOT", "AUTO_SYNC"):
                raise InvalidParameter("'mode' must be SNAPSHOT or AUTO_SYNC")
            now = clock.now_ms()
            outcome = (
                {"state": "SUCCEEDED", "message": "App started successfully"}
                if self._folder_exists(path) else
                {"state": "FAILED", "message": f"Source code path {path} does not exist. "
                 "Deploy from a workspace folder that holds the app's code."})
            deployment = {
                "deployment_id": uuid.uuid4().hex[:32],
                "source_code_path": path,
                "mode": mode,
                "creator": creator,
                "create_time": _timestamp(now),
                "update_time": _timestamp(now),
                "status": {"state": "IN_PROGRESS", "message": "App deployment is in progress."},
                "deployment_artifacts": {"source_code_path": path},
                "made_at_ms": now,
                "outcome": outcome,
            }
            doc["deployments"].append(deployment)
            self._save(conn, doc)
        return deployment_view(deployment)

    def delete(self, name: str) -> dict[str, Any]:
        with self._db.write() as conn:
            doc = self._current(name)
            conn.execute("DELETE FROM apps WHERE name = ?", (name,))
        return public_view(doc)

    # --- helpers ----------------------------------------------------------------------
    def _move(self, name: str, from_states: tuple[str, ...], to: str) -> dict[str, Any]:
        with self._db.write() as conn:
            doc = self._current(name)
            if doc["compute_state"] in from_states:
                doc.update(compute_state=to, compute_changed_at_ms=clock.now_ms(),
                           transition_ms=self._transition_ms)
                self._save(conn, doc)
        return public_view(doc)

    def _current(self, name: str) -> dict[str, Any]:
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM apps WHERE name = ?", (name,)).fetchone()
        if row is None:
            raise NotFound(f"App with name {name} does not exist or is deleted.")
        return settle(from_json(row["doc"]), clock.now_ms())

    def _save(self, conn, doc: dict[str, Any]) -> None:
        conn.execute("UPDATE apps SET doc = ? WHERE name = ?", (to_json(doc), doc["name"]))
