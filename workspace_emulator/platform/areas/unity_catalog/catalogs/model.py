"""Unity Catalog catalogs: create, rename, delete, isolation mode, owner, comment, and
workspace bindings.

Names are stored lower case and found without regard to case. What a catalog holds (its
schemas, their volumes, the grants on them) is the unity_catalog area's: it sets
`Catalogs.contents` when it opens, and a catalog's create, rename and delete go through it
(a new catalog gets its `default` and `information_schema` schemas there; deleting one that
holds schemas needs `force`). Creating a catalog needs a metastore admin (a workspace
admin); changing or deleting one, an admin or its owner.

Workspace ids arrive as strings (seed form) or integers (public form); they are stored and
returned as integers. Bindings are kept whatever the isolation mode; they only take effect
while the catalog is ISOLATED.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable
from typing import Any, Protocol

from workspace_emulator import clock
from workspace_emulator.errors import (
    AlreadyExists,
    InvalidParameter,
    InvalidState,
    NotFound,
    PermissionDenied,
)
from workspace_emulator.platform.directory import Caller, Directory
from workspace_emulator.storage import Database, from_json, to_json

ISOLATION_MODES = ("OPEN", "ISOLATED")
BINDING_TYPES = ("BINDING_TYPE_READ_WRITE", "BINDING_TYPE_READ_ONLY")
DEFAULT_BINDING = "BINDING_TYPE_READ_WRITE"
INTERNAL_FIELDS = ("bindings",)
FORBIDDEN_IN_NAMES = frozenset(". /")
FREE_FIELDS = ("comment", "properties", "options", "enable_predictive_optimization")
MAPS = ("properties", "options")
PREDICTIVE_OPTIMIZATION = ("ENABLE", "DISABLE", "INHERIT")
INT64_MAX = 2**63 - 1


def parse_workspace_id(value: Any, field: str) -> int:
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= INT64_MAX:
        raise InvalidParameter(f"{field} must be a workspace id (a positive 64-bit integer)")
    return value


def _view(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in INTERNAL_FIELDS}


TABLES = """
CREATE TABLE IF NOT EXISTS catalogs (name TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS workspaces (workspace_id INTEGER PRIMARY KEY);
"""


class CatalogContents(Protocol):
    """What the unity_catalog area does for a catalog (platform/areas/unity_catalog)."""

    def check_storage_root(self, conn: sqlite3.Connection, storage_root: Any) -> str: ...

    def managed_location(self, kind: str, object_id: str, storage_root: str | None) -> str: ...

    def add_catalog_defaults(self, conn: sqlite3.Connection, catalog: dict[str, Any],
                             caller: Caller) -> None: ...

    def catalog_contents(self, conn: sqlite3.Connection, catalog: str) -> int: ...

    def drop_catalog_contents(self, conn: sqlite3.Connection, catalog: str) -> None: ...

    def rename_catalog_contents(self, conn: sqlite3.Connection, old: str, new: str
                                ) -> None: ...


def _check_maps(body: dict[str, Any]) -> None:
    for field in MAPS:
        value = body.get(field)
        if value is not None and not (isinstance(value, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items())):
            raise InvalidParameter(f"{field} must be a map of strings to strings.")


def check_catalog_name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidParameter(f"{field} must be a non-empty string.")
    if len(value) > 255 or any(c in FORBIDDEN_IN_NAMES or ord(c) < 32 or ord(c) == 127
                               for c in value):
        raise InvalidParameter(
            f"Invalid name '{value[:80]}' for {field}: a name may not contain '.', ' ', '/' or "
            "control characters, and has at most 255 characters.")
    return value.lower()


class Catalogs:
    def __init__(self, db: Database, directory: Directory, metastore_id: str) -> None:
        self._db = db
        self._directory = directory
        self._metastore_id = metastore_id
        # Set by the unity_catalog area when it opens.
        self.contents: CatalogContents | None = None
        # The metastore this workspace is assigned to (None: none), set by the metastores
        # area when it opens; until then, the initial metastore.
        self.current_metastore: Callable[[sqlite3.Connection], str | None] = (
            lambda conn: self._metastore_id)
        # A connection's name as stored, None where there is none of that name (any case):
        # set by the connections area when it opens.
        self.connection_named: Callable[[sqlite3.Connection, str], str | None] | None = None

    def add_initial(self, conn, spec: dict[str, Any]) -> None:
        now = clock.now_ms()
        doc: dict[str, Any] = {
            "name": spec["name"], "full_name": spec["name"],
            "owner": spec.get("owner", "admins"), "comment": spec.get("comment", ""),
            "isolation_mode": spec.get("isolation_mode", "OPEN"),
            "catalog_type": spec.get("catalog_type", "FOREIGN_CATALOG" if spec.get(
                "connection_name") else "MANAGED_CATALOG"),
            "metastore_id": self._metastore_id, "securable_type": "CATALOG",
            **{field: spec[field] for field in ("connection_name", "options") if field in spec},
            "created_at": now, "created_by": spec.get("owner", "admins"),
            "updated_at": now, "updated_by": spec.get("owner", "admins"),
            "bindings": [
                {"workspace_id": parse_workspace_id(b["workspace_id"], "workspace_id"),
                 "binding_type": b.get("binding_type", DEFAULT_BINDING)}
                for b in spec.get("bindings", [])
            ],
        }
        conn.execute("INSERT INTO catalogs (name, doc) VALUES (?, ?)", (doc["name"], to_json(doc)))

    def add_workspace(self, conn, workspace_id: Any) -> None:
        conn.execute("INSERT OR IGNORE INTO workspaces (workspace_id) VALUES (?)",
                     (parse_workspace_id(workspace_id, "workspace id"),))

    def _load(self, conn, name: str) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM catalogs WHERE lower(name) = ?",
                           (name.lower(),)).fetchone()
        if row is None:
            raise NotFound(f"Catalog '{name}' does not exist.")
        return from_json(row["doc"])

    def _save(self, conn, doc: dict[str, Any], old_name: str | None = None) -> None:
        conn.execute("UPDATE catalogs SET name = ?, doc = ? WHERE name = ?",
                     (doc["name"], to_json(doc), old_name or doc["name"]))

    def _check_may_change(self, doc: dict[str, Any], caller: Caller) -> None:
        owner = doc["owner"]
        if not (caller.is_admin or owner == caller.application_id or owner in caller.group_names):
            raise PermissionDenied(
                f"{caller.application_id} is neither a metastore admin nor the owner of "
                f"catalog {doc['name']}.")

    def all(self) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM catalogs ORDER BY name").fetchall()
        return [_view(from_json(row["doc"])) for row in rows]

    def get(self, name: str) -> dict[str, Any]:
        with self._db.read() as conn:
            return _view(self._load(conn, name))

    def create(self, spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        name = check_catalog_name(spec.get("name"), "name")
        connection = spec.get("connection_name")
        if connection is not None and not isinstance(connection, str):
            raise InvalidParameter("connection_name must be a connection's name.")
        if spec.get("provider_name") is not None or spec.get("share_name") is not None:
            raise NotFound(f"Provider '{spec.get('provider_name')}' does not exist.")
        _check_maps(spec)
        if not caller.is_admin:
            raise PermissionDenied(
                f"User does not have CREATE CATALOG on Metastore '{self._metastore_id}' "
                f"({caller.application_id} is not a metastore admin).")
        now = clock.now_ms()
        doc: dict[str, Any] = {
            "name": name, "full_name": name, "owner": caller.application_id,
            "isolation_mode": "OPEN", "catalog_type": "MANAGED_CATALOG",
            "metastore_id": self._metastore_id, "securable_type": "CATALOG",
            "created_at": now, "created_by": caller.application_id,
            "updated_at": now, "updated_by": caller.application_id, "bindings": [],
        }
        for field in ("comment", "properties", "options"):
            if spec.get(field) is not None:
                doc[field] = spec[field]
        with self._db.write() as conn:
            metastore = self.current_metastore(conn)
            if metastore is None:
                raise NotFound("No metastore assigned for the current workspace: assign one "
                               "before creating a catalog.")
            doc["metastore_id"] = metastore
            if connection is not None:
                stored = (self.connection_named(conn, connection)
                          if self.connection_named is not None else None)
                if stored is None:
                    raise NotFound(f"Connection '{connection}' does not exist.")
                doc.update(connection_name=stored, catalog_type="FOREIGN_CATALOG")
            if conn.execute("SELECT 1 FROM catalogs WHERE lower(name) = ?",
                            (name,)).fetchone():
                raise AlreadyExists(f"Catalog '{name}' already exists.")
            if spec.get("storage_root") is not None:
                if self.contents is None:
                    raise InvalidParameter("storage_root is not served without Unity Catalog.")
                root = self.contents.check_storage_root(conn, spec["storage_root"])
                doc["storage_root"] = root
                doc["storage_location"] = self.contents.managed_location(
                    "catalogs", str(uuid.uuid4()), root)
            conn.execute("INSERT INTO catalogs (name, doc) VALUES (?, ?)", (name, to_json(doc)))
            if self.contents is not None:
                self.contents.add_catalog_defaults(conn, doc, caller)
        return _view(doc)

    def delete(self, name: str, caller: Caller, force: bool = False) -> None:
        with self._db.write() as conn:
            doc = self._load(conn, name)
            self._check_may_change(doc, caller)
            held = (self.contents.catalog_contents(conn, doc["name"])
                    if self.contents is not None else 0)
            if held and not force:
                raise InvalidState(
                    f"Catalog '{doc['name']}' is not empty. The catalog has {held} schema(s) "
                    "(information_schema aside). Delete them first, or delete the catalog "
                    "with force=true.")
            if self.contents is not None:
                self.contents.drop_catalog_contents(conn, doc["name"])
            conn.execute("DELETE FROM catalogs WHERE name = ?", (doc["name"],))

    def catalogs_in(self, conn: sqlite3.Connection, metastore_id: str) -> list[str]:
        """The names of the catalogs of that metastore."""
        return [from_json(row["doc"])["name"] for row in conn.execute(
            "SELECT doc FROM catalogs ORDER BY name")
            if from_json(row["doc"]).get("metastore_id") == metastore_id]

    def drop_catalog(self, conn: sqlite3.Connection, name: str) -> None:
        """Deletes the catalog and everything it holds (a forced delete of its metastore)."""
        if self.contents is not None:
            self.contents.drop_catalog_contents(conn, name)
        conn.execute("DELETE FROM catalogs WHERE name = ?", (name,))

    def checked_binding_changes(self, request: dict[str, Any]
                                ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The bindings a PATCH of any securable's bindings adds and removes, checked as a
        catalog's are (workspace ids of this metastore, binding types)."""
        with self._db.read() as conn:
            added = (self._binding_changes(request.get("add"), "add", conn)
                     + self._binding_changes(request.get("assign_workspaces"),
                                             "assign_workspaces", conn))
            removed = (self._binding_changes(request.get("remove"), "remove", conn)
                       + self._binding_changes(request.get("unassign_workspaces"),
                                               "unassign_workspaces", conn))
        return added, removed

    def update(self, name: str, changes: dict[str, Any], caller: Caller) -> dict[str, Any]:
        mode = changes.get("isolation_mode")
        if mode is not None and mode not in ISOLATION_MODES:
            raise InvalidParameter(f"isolation_mode must be OPEN or ISOLATED, got {mode!r}")
        owner = changes.get("owner")
        if owner is not None and not (isinstance(owner, str) and any(
                self._directory.principal_exists(kind, owner)
                for kind in ("user", "group", "service_principal"))):
            raise InvalidParameter(f"owner {owner!r} is not a user, group or service principal")
        new_name = changes.get("new_name")
        if new_name is not None and (not isinstance(new_name, str) or not new_name):
            raise InvalidParameter("new_name must be a non-empty string")
        _check_maps(changes)
        optimization = changes.get("enable_predictive_optimization")
        if optimization is not None and optimization not in PREDICTIVE_OPTIMIZATION:
            raise InvalidParameter(
                f"enable_predictive_optimization must be one of "
                f"{', '.join(PREDICTIVE_OPTIMIZATION)}, got {optimization!r}")
        with self._db.write() as conn:
            doc = self._load(conn, name)
            name = doc["name"]
            self._check_may_change(doc, caller)
            if mode is not None:
                doc["isolation_mode"] = mode
            if owner is not None:
                doc["owner"] = owner
            for field in FREE_FIELDS:
                if changes.get(field) is not None:
                    doc[field] = changes[field]
            if new_name is not None and new_name.lower() != name:
                new_name = check_catalog_name(new_name, "new_name")
                if conn.execute("SELECT 1 FROM catalogs WHERE lower(name) = ?",
                                (new_name,)).fetchone():
                    raise AlreadyExists(f"Catalog '{new_name}' already exists.")
                doc["name"] = doc["full_name"] = new_name
                if self.contents is not None:
                    self.contents.rename_catalog_contents(conn, name, new_name)
            doc.update(updated_at=clock.now_ms(), updated_by=caller.application_id)
            self._save(conn, doc, old_name=name)
        return _view(doc)

    # bindings

    def bindings(self, name: str) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            return self._load(conn, name)["bindings"]

    def _binding_changes(self, entries: Any, field: str, conn) -> list[dict[str, Any]]:
        if entries is None:
            return []
        if not isinstance(entries, list):
            raise InvalidParameter(f"{field} must be a list")
        known = {row["workspace_id"] for row in conn.execute("SELECT workspace_id FROM workspaces")}
        parsed = []
        for index, entry in enumerate(entries):
            where = f"{field}[{index}]"
            if isinstance(entry, dict):
                workspace_id = parse_workspace_id(entry.get("workspace_id"),
                                                  f"{where}.workspace_id")
                binding_type = entry.get("binding_type") or DEFAULT_BINDING
            else:
                workspace_id, binding_type = parse_workspace_id(entry, where), DEFAULT_BINDING
            if binding_type not in BINDING_TYPES:
                raise InvalidParameter(
                    f"{where}.binding_type must be one of {', '.join(BINDING_TYPES)}")
            if workspace_id not in known:
                raise InvalidParameter(f"{where}: workspace {workspace_id} is not in this "
                                       "metastore")
            parsed.append({"workspace_id": workspace_id, "binding_type": binding_type})
        return parsed

    def update_bindings(
        self, name: str, caller: Caller, add: Any = None, remove: Any = None,
        unassign_workspaces: Any = None, assign_workspaces: Any = None,
    ) -> list[dict[str, Any]]:
        with self._db.write() as conn:
            doc = self._load(conn, name)
            self._check_may_change(doc, caller)
            name = doc["name"]
            added = (self._binding_changes(add, "add", conn)
                     + self._binding_changes(assign_workspaces, "assign_workspaces", conn))
            removed = (self._binding_changes(remove, "remove", conn)
                       + self._binding_changes(unassign_workspaces, "unassign_workspaces", conn))
            removed_ids = {b["workspace_id"] for b in removed}
            bindings = {b["workspace_id"]: b for b in doc["bindings"]
                        if b["workspace_id"] not in removed_ids}
            for binding in added:
                bindings[binding["workspace_id"]] = binding
            doc["bindings"] = list(bindings.values())
            doc.update(updated_at=clock.now_ms(), updated_by=caller.application_id)
            self._save(conn, doc)
        return doc["bindings"]
