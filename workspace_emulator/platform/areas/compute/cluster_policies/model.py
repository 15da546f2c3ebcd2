"""Cluster policies: create, edit, get, list, delete; and the policy families they may
inherit from.

As the service: a policy's name is unique (1 to 100 characters); its definition is a JSON
object given as a string and kept as given; a policy of a family takes the family's
definition, with `policy_family_definition_overrides` merged over it, and may not give a
definition of its own; an edit replaces every field; deleting a policy leaves the clusters
it governs as they are.
"""

from __future__ import annotations

import json
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound
from workspace_emulator.platform.areas.compute.cluster_policies.compute_catalog import (
    POLICY_FAMILIES,
    POLICY_FAMILIES_BY_ID,
)
from workspace_emulator.storage import Database, from_json, to_json

NAME_LENGTH = (1, 100)
FIELDS = ("name", "definition", "description", "max_clusters_per_user", "policy_family_id",
          "policy_family_definition_overrides", "libraries")


def _json_object(text: Any, field: str) -> dict[str, Any]:
    if not isinstance(text, str):
        raise InvalidParameter(f"{field} must be a JSON document given as a string")
    try:
        value = json.loads(text)
    except ValueError as error:
        raise InvalidParameter(f"{field} is not valid JSON: {error}") from None
    if not isinstance(value, dict):
        raise InvalidParameter(f"{field} must be a JSON object")
    return value


def _policy_fields(request: dict[str, Any]) -> dict[str, Any]:
    fields = {k: request[k] for k in FIELDS if request.get(k) is not None}
    name = fields.get("name")
    low, high = NAME_LENGTH
    if not isinstance(name, str) or not low <= len(name) <= high:
        raise InvalidParameter(f"name is required: {low} to {high} characters")
    family_id = fields.get("policy_family_id")
    if family_id is not None:
        if "definition" in fields:
            raise InvalidParameter(
                "definition cannot be given with policy_family_id: give "
                "policy_family_definition_overrides instead")
        family = POLICY_FAMILIES_BY_ID.get(family_id)
        if family is None:
            raise InvalidParameter(f"Policy family {family_id} does not exist")
        merged = json.loads(family["definition"])
        overrides = fields.get("policy_family_definition_overrides")
        if overrides is not None:
            merged.update(_json_object(overrides, "policy_family_definition_overrides"))
        fields["definition"] = json.dumps(merged)
    else:
        if "policy_family_definition_overrides" in fields:
            raise InvalidParameter(
                "policy_family_definition_overrides needs policy_family_id")
        _json_object(fields.setdefault("definition", "{}"), "definition")
    limit = fields.get("max_clusters_per_user")
    if limit is not None and (not isinstance(limit, int) or limit < 1):
        raise InvalidParameter(f"max_clusters_per_user must be a positive integer, got {limit}")
    return fields


TABLES = """
CREATE TABLE IF NOT EXISTS cluster_policies (policy_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


class ClusterPolicies:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, request: dict[str, Any], creator: str) -> str:
        fields = _policy_fields(request)
        with self._db.write() as conn:
            self._refuse_taken_name(conn, fields["name"], None)
            number = self._db.next_value(conn, "cluster_policy", 0x0A1B2C3D4E5F6000)
            policy_id = f"{number:016X}"
            doc = {**fields, "policy_id": policy_id, "creator_user_name": creator,
                   "created_at_timestamp": clock.now_ms(), "is_default": False}
            conn.execute("INSERT INTO cluster_policies (policy_id, doc) VALUES (?, ?)",
                         (policy_id, to_json(doc)))
        return policy_id

    def edit(self, request: dict[str, Any]) -> None:
        policy_id = _required_id(request)
        fields = _policy_fields(request)
        with self._db.write() as conn:
            doc = self._doc(conn, policy_id)
            self._refuse_taken_name(conn, fields["name"], policy_id)
            kept = {k: doc[k] for k in ("policy_id", "creator_user_name",
                                        "created_at_timestamp", "is_default") if k in doc}
            conn.execute("UPDATE cluster_policies SET doc = ? WHERE policy_id = ?",
                         (to_json({**kept, **fields}), policy_id))

    def get(self, policy_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            return self._doc(conn, policy_id)

    def exists(self, policy_id: str) -> bool:
        with self._db.read() as conn:
            return conn.execute("SELECT 1 FROM cluster_policies WHERE policy_id = ?",
                                (policy_id,)).fetchone() is not None

    def all(self) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM cluster_policies ORDER BY rowid").fetchall()
        return [from_json(row["doc"]) for row in rows]

    def delete(self, request: dict[str, Any]) -> None:
        policy_id = _required_id(request)
        with self._db.write() as conn:
            self._doc(conn, policy_id)
            conn.execute("DELETE FROM cluster_policies WHERE policy_id = ?", (policy_id,))

    @staticmethod
    def families() -> list[dict[str, Any]]:
        return [dict(family) for family in POLICY_FAMILIES]

    @staticmethod
    def family(family_id: str) -> dict[str, Any]:
        family = POLICY_FAMILIES_BY_ID.get(family_id)
        if family is None:
            raise NotFound(f"Policy family {family_id} does not exist")
        return dict(family)

    @staticmethod
    def _doc(conn, policy_id: str) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM cluster_policies WHERE policy_id = ?",
                           (policy_id,)).fetchone()
        if row is None:
            raise NotFound(f"Cluster policy {policy_id} does not exist")
        return from_json(row["doc"])

    @staticmethod
    def _refuse_taken_name(conn, name: str, policy_id: str | None) -> None:
        for row in conn.execute("SELECT doc FROM cluster_policies").fetchall():
            doc = from_json(row["doc"])
            if doc["name"] == name and doc["policy_id"] != policy_id:
                raise AlreadyExists(f"Cluster policy with name {name} already exists")


def _required_id(request: dict[str, Any]) -> str:
    policy_id = request.get("policy_id")
    if not isinstance(policy_id, str) or not policy_id:
        raise InvalidParameter("Missing required field: policy_id")
    return policy_id
