"""Instance pools: their settings as the service checks and fills them, their statistics
and their state (ACTIVE until deleted, then DELETED).

An edit gives the pool's whole editable part (name, tags, idle and capacity bounds, the
idle instances' auto termination, remote disk settings): what it leaves out is cleared. Its
`node_type_id` is required and must be the pool's own (a pool's node type never changes),
and the other settings (cloud attributes, disk spec, elastic disk, preloaded versions and
images) cannot be changed either: an edit that gives them with another value is refused. A
deleted pool is DELETED to `get` and gone from `list`; clusters cannot name it. Names are
unique among the pools not deleted.

The emulator's pools hold `min_idle_instances` idle instances; `used_count` counts the
clusters that name the pool (as `instance_pool_id` or `driver_instance_pool_id`) and run,
where the clusters area tells (`count_users`).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, InvalidState, NotFound
from workspace_emulator.platform.areas.compute.cluster_policies.compute_catalog import (
    NODE_TYPE_IDS,
    SPARK_VERSION_KEYS,
)
from workspace_emulator.storage import Database, from_json, to_json

MAX_NAME = 100
MAX_TAGS = 45
AUTOTERMINATION_RANGE = (0, 10000)
EDITABLE = ("instance_pool_name", "custom_tags", "min_idle_instances", "max_capacity",
            "idle_instance_autotermination_minutes", "remote_disk_throughput",
            "total_initial_remote_disk_size")
FIXED = ("node_type_id", "aws_attributes", "azure_attributes", "gcp_attributes", "disk_spec",
         "enable_elastic_disk", "preloaded_spark_versions", "preloaded_docker_images",
         "node_type_flexibility")
# What the service fills in where a create leaves it out (the node types are Azure's).
DEFAULTS: dict[str, Any] = {
    "min_idle_instances": 0,
    "enable_elastic_disk": True,
    "azure_attributes": {"availability": "ON_DEMAND_AZURE"},
}
OUTPUT_FIELDS = ("instance_pool_id", "default_tags", "state", "stats", "status")

TABLES = """
CREATE TABLE IF NOT EXISTS instance_pools (instance_pool_id TEXT PRIMARY KEY,
    doc TEXT NOT NULL);
"""


def _int(settings: dict[str, Any], field: str) -> int | None:
    value = settings.get(field)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameter(f"'{field}' must be an integer, got {value!r}")
    return value


def check(settings: dict[str, Any]) -> None:
    """Refuses settings the service refuses, naming the field."""
    name = settings.get("instance_pool_name")
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameter("Missing required field: instance_pool_name")
    if len(name) > MAX_NAME:
        raise InvalidParameter(f"'instance_pool_name' must be 1 to {MAX_NAME} characters")
    node_type = settings.get("node_type_id")
    if not node_type:
        raise InvalidParameter("Missing required field: node_type_id")
    if not isinstance(node_type, str):
        raise InvalidParameter("'node_type_id' must be a string")
    if node_type not in NODE_TYPE_IDS:
        raise InvalidParameter(f"Node type {node_type} is not supported (node_type_id)")
    idle, capacity = _int(settings, "min_idle_instances"), _int(settings, "max_capacity")
    if idle is not None and idle < 0:
        raise InvalidParameter(f"'min_idle_instances' must be at least 0, got {idle}")
    if capacity is not None and capacity < 1:
        raise InvalidParameter(f"'max_capacity' must be at least 1, got {capacity}")
    if idle is not None and capacity is not None and idle > capacity:
        raise InvalidParameter(
            f"'min_idle_instances' ({idle}) must not exceed 'max_capacity' ({capacity})")
    minutes = _int(settings, "idle_instance_autotermination_minutes")
    low, high = AUTOTERMINATION_RANGE
    if minutes is not None and not low <= minutes <= high:
        raise InvalidParameter(f"'idle_instance_autotermination_minutes' must be between "
                               f"{low} and {high}, got {minutes}")
    versions = settings.get("preloaded_spark_versions")
    if versions is not None:
        if not isinstance(versions, list) or len(versions) > 1:
            raise InvalidParameter("'preloaded_spark_versions' holds at most one version")
        for version in versions:
            if not isinstance(version, str) or version not in SPARK_VERSION_KEYS:
                raise InvalidParameter(f"Invalid spark version {version} "
                                       "(preloaded_spark_versions): see clusters/spark-versions")
    tags = settings.get("custom_tags")
    if tags is not None:
        if not isinstance(tags, dict) or not all(isinstance(v, str) for v in tags.values()):
            raise InvalidParameter("'custom_tags' must map keys to string values")
        if len(tags) > MAX_TAGS:
            raise InvalidParameter(f"'custom_tags' holds {len(tags)} tags; at most {MAX_TAGS}")
    clouds = [k for k in ("aws_attributes", "azure_attributes", "gcp_attributes")
              if settings.get(k) is not None]
    if len(clouds) > 1:
        raise InvalidParameter(f"Give at most one of {', '.join(clouds)}")


def _pool_id(now_ms: int, seed: str) -> str:
    stamp = time.strftime("%m%d-%H%M%S", time.gmtime(now_ms / 1000))
    return f"{stamp}-pool-{hashlib.sha256(f'{seed}/{now_ms}'.encode()).hexdigest()[:8]}"


class InstancePools:
    def __init__(self, db: Database) -> None:
        self._db = db
        # pool id -> clusters running from it (set by the clusters area, opened after).
        self.count_users: Callable[[str], int] = lambda _pool_id: 0

    # --- reads ------------------------------------------------------------------------

    def all(self) -> list[dict[str, Any]]:
        """The pools not deleted, with their statistics."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM instance_pools ORDER BY rowid").fetchall()
        docs = [from_json(row["doc"]) for row in rows]
        return [self._view(doc) for doc in docs if doc["state"] != "DELETED"]

    def get(self, pool_id: str) -> dict[str, Any]:
        return self._view(self._doc(pool_id))

    def exists(self, pool_id: str) -> bool:
        """Whether an ACTIVE pool has this id."""
        try:
            return bool(self._doc(pool_id)["state"] == "ACTIVE")
        except NotFound:
            return False

    # --- writes -----------------------------------------------------------------------

    def create(self, request: dict[str, Any], creator: str) -> str:
        settings = {k: v for k, v in request.items() if k not in OUTPUT_FIELDS
                    and v is not None}
        if not any(settings.get(k) for k in ("aws_attributes", "gcp_attributes")):
            settings = {**DEFAULTS, **settings}
        else:
            settings = {**{k: v for k, v in DEFAULTS.items() if k != "azure_attributes"},
                        **settings}
        check(settings)
        now = clock.now_ms()
        with self._db.write() as conn:
            self._refuse_taken_name(conn, settings["instance_pool_name"], None)
            serial = self._db.next_value(conn, "instance_pool", 1)
            pool_id = _pool_id(now, f"{creator}/{serial}")
            doc = {
                **settings,
                "instance_pool_id": pool_id,
                "default_tags": {"Vendor": "Databricks",
                                 "DatabricksInstancePoolCreatorId": creator,
                                 "DatabricksInstancePoolId": pool_id},
                "state": "ACTIVE",
            }
            conn.execute("INSERT INTO instance_pools (instance_pool_id, doc) VALUES (?, ?)",
                         (pool_id, to_json(doc)))
        return pool_id

    def edit(self, request: dict[str, Any]) -> None:
        pool_id = request.get("instance_pool_id")
        if not isinstance(pool_id, str) or not pool_id:
            raise InvalidParameter("Missing required field: instance_pool_id")
        for field in ("instance_pool_name", "node_type_id"):
            if not request.get(field):
                raise InvalidParameter(f"Missing required field: {field}")
        with self._db.write() as conn:
            doc = self._doc(pool_id)
            if doc["state"] == "DELETED":
                raise InvalidState(f"Instance pool {pool_id} is deleted: it cannot be edited")
            for field in FIXED:
                if request.get(field) is not None and request[field] != doc.get(field):
                    raise InvalidParameter(
                        f"'{field}' of instance pool {pool_id} cannot be changed "
                        f"(it is {doc.get(field)!r}); create a new pool instead")
            edited = {k: v for k, v in doc.items() if k not in EDITABLE}
            edited.update({k: request[k] for k in EDITABLE if request.get(k) is not None})
            edited.setdefault("min_idle_instances", 0)
            check(edited)
            self._refuse_taken_name(conn, edited["instance_pool_name"], pool_id)
            self._save(conn, edited)

    def delete(self, pool_id: str) -> None:
        with self._db.write() as conn:
            doc = self._doc(pool_id)
            doc["state"] = "DELETED"
            self._save(conn, doc)

    # --- helpers ----------------------------------------------------------------------

    def _view(self, doc: dict[str, Any]) -> dict[str, Any]:
        active = doc["state"] == "ACTIVE"
        used = self.count_users(doc["instance_pool_id"]) if active else 0
        return {
            **doc,
            "stats": {"used_count": used,
                      "idle_count": doc.get("min_idle_instances", 0) if active else 0,
                      "pending_used_count": 0, "pending_idle_count": 0},
            "status": {},
        }

    def _refuse_taken_name(self, conn, name: str, own_id: str | None) -> None:
        for row in conn.execute("SELECT instance_pool_id, doc FROM instance_pools").fetchall():
            other = from_json(row["doc"])
            if (row["instance_pool_id"] != own_id and other["state"] != "DELETED"
                    and other.get("instance_pool_name") == name):
                raise AlreadyExists(f"Instance pool with name '{name}' already exists "
                                    f"({row['instance_pool_id']}).")

    def _doc(self, pool_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM instance_pools WHERE instance_pool_id = ?",
                               (pool_id,)).fetchone()
        if row is None:
            raise NotFound(f"Instance pool {pool_id} does not exist.")
        return dict(from_json(row["doc"]))

    def _save(self, conn, doc: dict[str, Any]) -> None:
        conn.execute("UPDATE instance_pools SET doc = ? WHERE instance_pool_id = ?",
                     (to_json(doc), doc["instance_pool_id"]))
