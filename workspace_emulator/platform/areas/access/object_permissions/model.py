"""Permissions of every object type but jobs (whose access-control list lives with the job,
areas/jobs): clusters, cluster policies, instance pools, repos, notebooks, directories, files,
SQL warehouses, pipelines, registered models, experiments, serving endpoints, apps and
vector-search endpoints, each with the levels the service allows on that type.

An object exists when the store that holds objects of its type says so (clusters, repos, or
another store registered with `serve`); types the emulator holds no store for have the
objects the initial data names (`permission_objects`). The entries are kept per object in
one table, the initial ones (an owner, for the types that have one) from the initial data.
Reading needs a level on the object; changing needs CAN_MANAGE or IS_OWNER (admins have
both everywhere)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from workspace_emulator.errors import NotFound, PermissionDenied
from workspace_emulator.platform.areas.jobs.jobs import job_permissions
from workspace_emulator.platform.areas.jobs.jobs.job_permissions import OWNER, AclEntry
from workspace_emulator.platform.directory import Caller, Directory
from workspace_emulator.storage import Database, from_json, to_json


@dataclass(frozen=True)
class ObjectType:
    """One `<type>` of `/api/2.0/permissions/<type>/<id>`."""

    name: str  # the path segment
    noun: str  # the answer's object_type
    levels: tuple[str, ...]  # lowest first
    root: str  # where the admins' CAN_MANAGE is inherited from; prefixes the object id

    @property
    def has_owner(self) -> bool:
        return OWNER in self.levels


_WORKSPACE_OBJECT_LEVELS = ("CAN_READ", "CAN_RUN", "CAN_EDIT", "CAN_MANAGE")
_SQL_OBJECT_LEVELS = ("CAN_VIEW", "CAN_RUN", "CAN_EDIT", "CAN_MANAGE")
OBJECT_TYPES = {
    t.name: t
    for t in (
        ObjectType("clusters", "cluster", ("CAN_ATTACH_TO", "CAN_RESTART", "CAN_MANAGE"),
                   "/clusters/"),
        ObjectType("cluster-policies", "cluster-policy", ("CAN_USE",), "/cluster-policies/"),
        ObjectType("instance-pools", "instance-pool", ("CAN_ATTACH_TO", "CAN_MANAGE"),
                   "/instance-pools/"),
        ObjectType("repos", "repo", _WORKSPACE_OBJECT_LEVELS, "/repos/"),
        ObjectType("notebooks", "notebook", _WORKSPACE_OBJECT_LEVELS, "/notebooks/"),
        ObjectType("directories", "directory", _WORKSPACE_OBJECT_LEVELS, "/directories/"),
        ObjectType("files", "file", _WORKSPACE_OBJECT_LEVELS, "/files/"),
        ObjectType("warehouses", "warehouses",
                   ("CAN_VIEW", "CAN_MONITOR", "CAN_USE", "CAN_MANAGE", OWNER),
                   "/sql/warehouses/"),
        ObjectType("pipelines", "pipelines", ("CAN_VIEW", "CAN_RUN", "CAN_MANAGE", OWNER),
                   "/pipelines/"),
        ObjectType("registered-models", "registered-model",
                   ("CAN_READ", "CAN_EDIT", "CAN_MANAGE_STAGING_VERSIONS",
                    "CAN_MANAGE_PRODUCTION_VERSIONS", "CAN_MANAGE"), "/registered-models/"),
        ObjectType("experiments", "mlflowExperiment", ("CAN_READ", "CAN_EDIT", "CAN_MANAGE"),
                   "/experiments/"),
        ObjectType("serving-endpoints", "serving-endpoint",
                   ("CAN_VIEW", "CAN_QUERY", "CAN_MANAGE"), "/serving-endpoints/"),
        ObjectType("apps", "apps", ("CAN_USE", "CAN_MANAGE"), "/apps/"),
        ObjectType("vector-search-endpoints", "vector-search-endpoints",
                   ("CAN_USE", "CAN_CREATE", "CAN_MANAGE"), "/vector-search-endpoints/"),
        # Token and password usage: one object each, `authorization/tokens` and
        # `authorization/passwords` (AUTHORIZATION_OBJECTS); only admins change them.
        ObjectType("authorization", "authorization", ("CAN_USE",), "/authorization/"),
        # SQL queries, alerts and legacy dashboards (the SDK's sql.PermissionLevel), and
        # Lakeview dashboards (the service's public permission reference: no SDK enum).
        ObjectType("sql/queries", "query", _SQL_OBJECT_LEVELS, "/sql/queries/"),
        ObjectType("sql/alerts", "alert", _SQL_OBJECT_LEVELS, "/sql/alerts/"),
        ObjectType("sql/dashboards", "dashboard", _SQL_OBJECT_LEVELS, "/sql/dashboards/"),
        ObjectType("dashboards", "dashboard", ("CAN_READ", "CAN_RUN", "CAN_EDIT", "CAN_MANAGE"),
                   "/dashboards/"),
    )
}
# The objects of `authorization/<id>`: every workspace has both.
AUTHORIZATION_OBJECTS = ("tokens", "passwords")
# The older spelling of the warehouses' path, which the service still serves.
ALIASES = {"sql/warehouses": "warehouses"}


def object_type(name: str) -> ObjectType:
    found = OBJECT_TYPES.get(ALIASES.get(name, name))
    if found is None:
        raise NotFound(
            f"Unknown object type '{name}'; known: {', '.join(sorted(OBJECT_TYPES))}, jobs")
    return found


TABLES = """
CREATE TABLE IF NOT EXISTS object_acls (object_type TEXT NOT NULL, object_id TEXT NOT NULL,
    doc TEXT NOT NULL, PRIMARY KEY (object_type, object_id));
"""


class ObjectPermissions:
    def __init__(self, db: Database, directory: Directory) -> None:
        self._db = db
        self._directory = directory
        # object type -> whether an object of that id exists, for types held in a store.
        self._stores: dict[str, Callable[[str], bool]] = {
            "authorization": lambda object_id: object_id in AUTHORIZATION_OBJECTS,
        }
        # object type -> the owner of an object before its permissions are first changed
        self._owners: dict[str, Callable[[str], tuple[str, str] | None]] = {}

    def serve(self, type_name: str, exists: Callable[[str], bool],
              owner: Callable[[str], tuple[str, str] | None] | None = None) -> None:
        """Objects of `type_name` exist when `exists(id)` says so; `owner(id)` is the
        (kind, name) owning one whose permissions were never changed (its creator)."""
        self._stores[type_name] = exists
        if owner is not None:
            self._owners[type_name] = owner

    def add_initial(self, conn, spec: dict[str, Any]) -> None:
        """An object of a type without a store, with its initial entries (`owner`: a user
        name or application id, for the types that have owners)."""
        kind = object_type(spec["type"])
        entries = []
        owner = spec.get("owner")
        if owner and kind.has_owner:
            principal = "user" if "@" in owner else "service_principal"
            entries.append(AclEntry(principal, owner, OWNER))
        doc = {"known": True, "acl": [e.to_doc() for e in entries]}
        conn.execute("INSERT INTO object_acls (object_type, object_id, doc) VALUES (?, ?, ?)",
                     (kind.name, str(spec["id"]), to_json(doc)))

    def levels(self, type_name: str, object_id: str, caller: Caller) -> list[str]:
        kind = object_type(type_name)
        with self._db.read() as conn:
            self._readable(conn, kind, object_id, caller)
        return list(kind.levels)

    def get(self, type_name: str, object_id: str, caller: Caller) -> dict[str, Any]:
        kind = object_type(type_name)
        with self._db.read() as conn:
            entries = self._readable(conn, kind, object_id, caller)
        return self._render(kind, object_id, entries)

    def allows(self, type_name: str, object_id: str, caller: Caller, level: str) -> bool:
        """Whether the caller holds `level`, or a level above it, on the object (directly or
        through a group; admins hold CAN_MANAGE on every object)."""
        kind = object_type(type_name)
        with self._db.read() as conn:
            entries = self._entries(conn, kind, object_id)
        rank = {name: index for index, name in enumerate(kind.levels)}
        held = [rank[entry.level] for entry in entries
                if _names(entry, caller) and entry.level in rank]
        if caller.is_admin and "CAN_MANAGE" in rank:
            held.append(rank["CAN_MANAGE"])
        return bool(held) and max(held) >= rank[level]

    def change(
        self, type_name: str, object_id: str, access_control_list: Any, caller: Caller,
        replace_all: bool,
    ) -> dict[str, Any]:
        kind = object_type(type_name)
        requested = job_permissions.parse_request(
            access_control_list, self._directory, kind.levels, kind.noun)
        with self._db.write() as conn:
            current = self._entries(conn, kind, object_id)
            if not _may_manage(current, caller):
                raise PermissionDenied(
                    f"{caller.application_id} does not have CAN_MANAGE permission on "
                    f"{kind.noun} {object_id}.")
            combine = job_permissions.replaced if replace_all else job_permissions.patched
            entries = combine(current, requested)
            doc = self._doc(conn, kind, object_id) or {}
            doc["acl"] = [e.to_doc() for e in entries]
            conn.execute(
                "INSERT INTO object_acls (object_type, object_id, doc) VALUES (?, ?, ?) "
                "ON CONFLICT (object_type, object_id) DO UPDATE SET doc = excluded.doc",
                (kind.name, object_id, to_json(doc)))
        return self._render(kind, object_id, entries)

    # --- helpers --------------------------------------------------------------------
    def _render(self, kind: ObjectType, object_id: str, entries: list[AclEntry]) -> dict:
        # `authorization/tokens` answers object_type `tokens`, its passwords `passwords`.
        noun = object_id if kind.name == "authorization" else kind.noun
        return job_permissions.render(object_id, entries, self._directory, root=kind.root,
                                      object_type=noun)

    def _readable(self, conn, kind: ObjectType, object_id: str, caller: Caller) -> list:
        entries = self._entries(conn, kind, object_id)
        if not caller.is_admin and not any(_names(e, caller) for e in entries):
            raise PermissionDenied(
                f"{caller.application_id} has no permission on {kind.noun} {object_id}.")
        return entries

    def _entries(self, conn, kind: ObjectType, object_id: str) -> list[AclEntry]:
        doc = self._doc(conn, kind, object_id)
        exists = self._stores.get(kind.name)
        found = doc is not None and doc.get("known", False)  # an object of the initial data
        if not found and exists is not None:
            found = exists(object_id)
        if not found:
            raise NotFound(f"{kind.noun} {object_id} does not exist.")
        if doc is None and kind.name in self._owners:
            owner = self._owners[kind.name](object_id)
            return [] if owner is None else [AclEntry(owner[0], owner[1], OWNER)]
        return [AclEntry.from_doc(entry) for entry in (doc or {}).get("acl", [])]

    @staticmethod
    def _doc(conn, kind: ObjectType, object_id: str) -> dict[str, Any] | None:
        row = conn.execute(
            "SELECT doc FROM object_acls WHERE object_type = ? AND object_id = ?",
            (kind.name, object_id)).fetchone()
        return None if row is None else from_json(row["doc"])


def _names(entry: AclEntry, caller: Caller) -> bool:
    return (entry.kind == "service_principal" and entry.name == caller.application_id) or (
        entry.kind == "group" and entry.name in caller.group_names)


def _may_manage(entries: list[AclEntry], caller: Caller) -> bool:
    return caller.is_admin or any(
        _names(e, caller) and e.level in ("CAN_MANAGE", OWNER) for e in entries)
