"""Model serving endpoints: their configuration as the service checks it, and their state
machine.

A create answers at once with the endpoint NOT_READY, its configuration as its
`pending_config` and `config_update` IN_PROGRESS; once the transition time has passed the
pending configuration is the endpoint's `config` (its `config_version` one more), the
endpoint READY and `config_update` NOT_UPDATING. A config update (PUT .../config) does the
same to a ready endpoint, which stays READY while it serves the old configuration; one
while another is IN_PROGRESS is refused (409 RESOURCE_CONFLICT), as the service refuses it.
The moves are computed from stored timestamps (through `emulator.clock`) on every read.

The AI gateway (PUT .../ai-gateway) and the tags (PATCH .../tags) change at once. An
endpoint's permissions (`serving-endpoints`) are addressed by its id.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound, ResourceConflict
from workspace_emulator.storage import Database, from_json, to_json

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,62}")
WORKLOAD_SIZES = ("Small", "Medium", "Large")
WORKLOAD_TYPES = ("CPU", "GPU_SMALL", "GPU_MEDIUM", "GPU_LARGE", "MULTIGPU_MEDIUM")
RENEWAL_PERIODS = ("minute",)
RATE_LIMIT_KEYS = ("user", "endpoint", "user_group", "service_principal")
MAX_TAGS = 20
INTERNAL_FIELDS = ("changed_at_ms", "transition_ms")

TABLES = """
CREATE TABLE IF NOT EXISTS serving_endpoints (name TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


def settle(doc: dict[str, Any], now_ms: int) -> dict[str, Any]:
    """The endpoint as it is at `now_ms`: a pending configuration due by then applied."""
    pending = doc.get("pending_config")
    if pending is None or now_ms < doc["changed_at_ms"] + doc["transition_ms"]:
        return doc
    config = {k: v for k, v in pending.items() if k != "start_time"}
    settled = {k: v for k, v in doc.items() if k != "pending_config"}
    settled.update(config=config, state={"ready": "READY", "config_update": "NOT_UPDATING"})
    settled["config"]["served_entities"] = [
        dict(entity, state={"deployment": "DEPLOYMENT_READY",
                            "deployment_state_message": ""})
        for entity in config.get("served_entities", [])]
    return settled


def public_view(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in INTERNAL_FIELDS}


def summary_view(doc: dict[str, Any]) -> dict[str, Any]:
    """An endpoint as the list shows it: its served entities by name and what they serve."""
    view: dict[str, Any] = {k: doc[k] for k in ("name", "id", "creator", "creation_timestamp",
                                "last_updated_timestamp", "state", "tags", "task")
            if k in doc}
    config = doc.get("config")
    if config is not None:
        view["config"] = {"config_version": config.get("config_version"),
                          "served_entities": [
                              {k: e[k] for k in ("name", "entity_name", "entity_version")
                               if k in e} for e in config.get("served_entities", [])]}
    return view


def _entity_problem(entity: Any, where: str) -> str | None:
    if not isinstance(entity, dict):
        return f"'{where}' must be an object"
    external = entity.get("external_model")
    if external is not None:
        if not isinstance(external, dict) or not all(
                isinstance(external.get(k), str) and external[k]
                for k in ("provider", "name", "task")):
            return f"'{where}.external_model' needs provider, name and task"
        if entity.get("entity_name") or entity.get("entity_version"):
            return f"'{where}' gives an external_model and an entity_name: one of them"
        return None
    if not isinstance(entity.get("entity_name"), str) or not entity["entity_name"]:
        return f"Missing required field: {where}.entity_name"
    size = entity.get("workload_size")
    if size is not None and size not in WORKLOAD_SIZES:
        return (f"'{where}.workload_size' {size!r} is not supported: one of "
                f"{', '.join(WORKLOAD_SIZES)}")
    kind = entity.get("workload_type")
    if kind is not None and kind not in WORKLOAD_TYPES:
        return f"'{where}.workload_type' {kind!r} is not supported: one of " \
               f"{', '.join(WORKLOAD_TYPES)}"
    if entity.get("entity_version") is not None and "scale_to_zero_enabled" not in entity:
        return (f"{where}: scaleToZeroEnabled is undefined. Please set it to either true "
                "or false.")
    env = entity.get("environment_vars")
    if env is not None and (not isinstance(env, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
        return f"'{where}.environment_vars' must map names to strings"
    return None


def served_name(entity: dict[str, Any]) -> str:
    """The name the service gives a served entity that has none: what it serves, its
    version after a dash."""
    if entity.get("external_model"):
        return str(entity["external_model"]["name"]).replace(".", "-")
    base = str(entity["entity_name"]).replace(".", "-")
    version = entity.get("entity_version")
    return f"{base}-{version}" if version else base


def checked_config(config: Any) -> dict[str, Any]:
    """The configuration as stored: checked, served entities named, the traffic filled in
    where there is one entity."""
    if not isinstance(config, dict):
        raise InvalidParameter("'config' must be an object")
    entities = config.get("served_entities")
    if not isinstance(entities, list) or not entities:
        raise InvalidParameter("The config must have at least one served entity "
                               "(config.served_entities).")
    named = []
    for index, entity in enumerate(entities):
        problem = _entity_problem(entity, f"served_entities[{index}]")
        if problem:
            raise InvalidParameter(problem)
        named.append({**entity, "name": entity.get("name") or served_name(entity)})
    names = [e["name"] for e in named]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise InvalidParameter(f"Served entity names must be unique: {', '.join(repeated)}")
    stored: dict[str, Any] = {"served_entities": named}
    traffic = config.get("traffic_config")
    routes = (traffic or {}).get("routes") if isinstance(traffic, dict) else None
    if routes:
        total = 0
        for route in routes:
            target = route.get("served_entity_name") or route.get("served_model_name")
            if target not in names:
                raise InvalidParameter(f"Traffic route names served entity {target!r}, which "
                                       f"the config does not serve (serves: "
                                       f"{', '.join(names)}).")
            percentage = route.get("traffic_percentage")
            if isinstance(percentage, bool) or not isinstance(percentage, int) \
                    or not 0 <= percentage <= 100:
                raise InvalidParameter("'traffic_percentage' must be an integer 0 to 100")
            total += percentage
        if total != 100:
            raise InvalidParameter(f"The traffic percentages must add up to 100, not {total}.")
        stored["traffic_config"] = {"routes": routes}
    elif len(named) == 1:
        stored["traffic_config"] = {"routes": [{"served_entity_name": names[0],
                                                "traffic_percentage": 100}]}
    else:
        raise InvalidParameter("A config serving more than one entity needs traffic_config "
                               "routes.")
    return stored


def checked_ai_gateway(gateway: Any) -> dict[str, Any]:
    if not isinstance(gateway, dict):
        raise InvalidParameter("'ai_gateway' must be an object")
    for index, limit in enumerate(gateway.get("rate_limits") or []):
        if limit.get("renewal_period") not in RENEWAL_PERIODS:
            raise InvalidParameter(f"'rate_limits[{index}].renewal_period' must be minute")
        if limit.get("key") is not None and limit["key"] not in RATE_LIMIT_KEYS:
            raise InvalidParameter(f"'rate_limits[{index}].key' must be one of "
                                   f"{', '.join(RATE_LIMIT_KEYS)}")
        if limit.get("calls") is None and limit.get("tokens") is None:
            raise InvalidParameter(f"'rate_limits[{index}]' needs calls or tokens")
    tables = gateway.get("inference_table_config")
    if tables and tables.get("enabled") and not (tables.get("catalog_name")
                                                 and tables.get("schema_name")):
        raise InvalidParameter("Inference tables need catalog_name and schema_name.")
    return {k: v for k, v in gateway.items() if v is not None}


def _tags(tags: Any) -> list[dict[str, Any]]:
    if tags is None:
        return []
    if not isinstance(tags, list) or not all(
            isinstance(t, dict) and isinstance(t.get("key"), str) and t["key"] for t in tags):
        raise InvalidParameter("'tags' must be a list of {key, value} pairs")
    return tags


class ServingEndpoints:
    def __init__(self, db: Database, transition_seconds: float) -> None:
        self._db = db
        self._transition_ms = int(transition_seconds * 1000)

    # --- reads ------------------------------------------------------------------------
    def all(self) -> list[dict[str, Any]]:
        now = clock.now_ms()
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM serving_endpoints ORDER BY rowid").fetchall()
        return [summary_view(settle(from_json(row["doc"]), now)) for row in rows]

    def get(self, name: str) -> dict[str, Any]:
        return public_view(self._current(name))

    def exists(self, endpoint_id: str) -> bool:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM serving_endpoints").fetchall()
        return any(from_json(row["doc"])["id"] == endpoint_id for row in rows)

    # --- writes -----------------------------------------------------------------------
    def create(self, request: dict[str, Any], creator: str) -> dict[str, Any]:
        name = request.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidParameter("Missing required field: name")
        if not NAME.fullmatch(name):
            raise InvalidParameter(
                f"Endpoint name {name!r} is invalid: up to 63 letters, digits, '-' and '_', "
                "starting with a letter or digit.")
        config = checked_config(request.get("config"))
        tags = _tags(request.get("tags"))
        if len(tags) > MAX_TAGS:
            raise InvalidParameter(f"An endpoint takes at most {MAX_TAGS} tags.")
        now = clock.now_ms()
        doc: dict[str, Any] = {
            "name": name,
            "id": uuid.uuid4().hex,
            "creator": creator,
            "creation_timestamp": now,
            "last_updated_timestamp": now,
            "state": {"ready": "NOT_READY", "config_update": "IN_PROGRESS"},
            "pending_config": {**config, "config_version": 1, "start_time": now},
            "tags": tags,
            "route_optimized": bool(request.get("route_optimized", False)),
            "permission_level": "CAN_MANAGE",
            "changed_at_ms": now,
            "transition_ms": self._transition_ms,
        }
        if request.get("ai_gateway") is not None:
            doc["ai_gateway"] = checked_ai_gateway(request["ai_gateway"])
        if request.get("description") is not None:
            doc["description"] = request["description"]
        with self._db.write() as conn:
            if conn.execute("SELECT 1 FROM serving_endpoints WHERE name = ?",
                            (name,)).fetchone():
                raise AlreadyExists(f"Endpoint with name '{name}' already exists.")
            conn.execute("INSERT INTO serving_endpoints (name, doc) VALUES (?, ?)",
                         (name, to_json(doc)))
        return public_view(doc)

    def update_config(self, name: str, request: dict[str, Any]) -> dict[str, Any]:
        config = checked_config(request)
        with self._db.write() as conn:
            doc = self._current(name)
            if doc.get("pending_config") is not None:
                raise ResourceConflict(
                    f"Endpoint {name} is currently being updated: a config update is in "
                    "progress. Wait until it completes before updating the endpoint again.")
            now = clock.now_ms()
            version = (doc.get("config") or {}).get("config_version", 0) + 1
            doc.update(pending_config={**config, "config_version": version, "start_time": now},
                       changed_at_ms=now, transition_ms=self._transition_ms,
                       last_updated_timestamp=now)
            doc["state"] = {**doc["state"], "config_update": "IN_PROGRESS"}
            self._save(conn, doc)
        return public_view(doc)

    def put_ai_gateway(self, name: str, request: dict[str, Any]) -> dict[str, Any]:
        gateway = checked_ai_gateway(request)
        with self._db.write() as conn:
            doc = self._current(name)
            doc["ai_gateway"] = gateway
            self._save(conn, doc)
        return gateway

    def patch_tags(self, name: str, add: Any, remove: Any) -> list[dict[str, Any]]:
        added = _tags(add)
        removed = remove or []
        with self._db.write() as conn:
            doc = self._current(name)
            by_key = {t["key"]: t for t in doc.get("tags", []) if t["key"] not in removed}
            by_key.update({t["key"]: t for t in added})
            if len(by_key) > MAX_TAGS:
                raise InvalidParameter(f"An endpoint takes at most {MAX_TAGS} tags.")
            doc["tags"] = list(by_key.values())
            self._save(conn, doc)
        return doc["tags"]

    def delete(self, name: str) -> None:
        with self._db.write() as conn:
            self._current(name)
            conn.execute("DELETE FROM serving_endpoints WHERE name = ?", (name,))

    # --- helpers ----------------------------------------------------------------------
    def _current(self, name: str) -> dict[str, Any]:
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM serving_endpoints WHERE name = ?",
                               (name,)).fetchone()
        if row is None:
            raise NotFound(f"Endpoint with name '{name}' does not exist.")
        return settle(from_json(row["doc"]), clock.now_ms())

    def _save(self, conn, doc: dict[str, Any]) -> None:
        conn.execute("UPDATE serving_endpoints SET doc = ? WHERE name = ?",
                     (to_json(doc), doc["name"]))
