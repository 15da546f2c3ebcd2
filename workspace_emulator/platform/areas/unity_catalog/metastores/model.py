"""Unity Catalog metastores at the workspace level: create, get, list, update, delete, the
assignment of a metastore (and its default catalog) to each workspace, the current
workspace's assignment and its metastore's summary.

The initial metastore (the initial data's `workspace.metastore_id`) is made when the initial
data is applied, assigned to this workspace (`workspace.id`, 1234567890123456 in the
default data) with `hive_metastore` as its default catalog; the initial data's other
workspace ids start unassigned. A workspace has at most one metastore: assigning another
replaces it (as the service's PUT does). Catalogs and connections made while this workspace
is assigned to a metastore belong to it (`current_id`); a workspace with no metastore makes
none. A metastore that holds catalogs is deleted only with `force`, which deletes them (and
what they hold) with it; its assignments go with it.

A metastore's root credential (`storage_root_credential_id`) is a storage credential's id:
what the service now offers in place of a separate data-access configuration.
"""

from __future__ import annotations

import sqlite3
import uuid
from typing import Any, Protocol

from workspace_emulator import clock
from workspace_emulator.errors import InvalidParameter, InvalidState, NotFound, PermissionDenied
from workspace_emulator.platform.areas.unity_catalog.catalogs.model import parse_workspace_id
from workspace_emulator.platform.directory import Caller, Directory
from workspace_emulator.storage import Database, from_json, to_json

TABLES = """
CREATE TABLE IF NOT EXISTS metastores (metastore_id TEXT PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS metastore_assignments (workspace_id INTEGER PRIMARY KEY,
    metastore_id TEXT NOT NULL, default_catalog_name TEXT NOT NULL);
"""

DEFAULT_REGION = "westeurope"
DEFAULT_CATALOG = "hive_metastore"
SHARING_SCOPES = ("INTERNAL", "INTERNAL_AND_EXTERNAL")
PRIVILEGE_MODEL_VERSIONS = ("1.0",)
# The updates' fields besides the owner, name and root credential, with their checks.
FREE_FIELDS = ("delta_sharing_organization_name", "external_access_enabled",
               "privilege_model_version")


class MetastoreContents(Protocol):
    """What the catalogs and credentials areas tell of a metastore."""

    def catalogs_in(self, conn: sqlite3.Connection, metastore_id: str) -> list[str]: ...

    def drop_catalog(self, conn: sqlite3.Connection, name: str) -> None: ...

    def storage_credential_named_by_id(self, conn: sqlite3.Connection, credential_id: str
                                       ) -> str | None: ...


def _check_name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidParameter(f"{field} must be a non-empty string.")
    if len(value) > 255:
        raise InvalidParameter(f"{field} has at most 255 characters.")
    return value


def _check_storage_root(value: Any) -> str:
    scheme, sep, rest = value.partition("://") if isinstance(value, str) else ("", "", "")
    if not sep or scheme not in ("abfss", "s3", "gs") or not rest.strip("/"):
        raise InvalidParameter(
            f"storage_root {value!r} is not a cloud storage URL (abfss://, s3:// or gs://).")
    return value.rstrip("/")


class Metastores:
    def __init__(self, db: Database, directory: Directory, workspace_id: int,
                 initial_id: str, initial_root: str) -> None:
        self._db = db
        self._directory = directory
        self.workspace_id = workspace_id
        self._initial_id = initial_id
        self._initial_root = initial_root
        # Set when the area opens (the catalogs and unity_catalog areas).
        self.contents: MetastoreContents | None = None

    # --- initial data ---------------------------------------------------------------------

    def add_initial_metastore(self, conn: sqlite3.Connection, workspace: dict[str, Any]) -> None:
        now = clock.now_ms()
        doc = self._new_doc(self._initial_id, str(workspace.get("name") or "emulated-metastore"),
                            DEFAULT_REGION, self._initial_root, "admins", now)
        conn.execute("INSERT OR IGNORE INTO metastores (metastore_id, doc) VALUES (?, ?)",
                     (self._initial_id, to_json(doc)))
        conn.execute("INSERT OR IGNORE INTO metastore_assignments VALUES (?, ?, ?)",
                     (self.workspace_id, self._initial_id, DEFAULT_CATALOG))

    @staticmethod
    def _new_doc(metastore_id: str, name: str, region: str, storage_root: str | None,
                 owner: str, now: int) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "metastore_id": metastore_id, "name": name, "region": region, "cloud": "azure",
            "global_metastore_id": f"azure:{region}:{metastore_id}", "owner": owner,
            "delta_sharing_scope": "INTERNAL", "privilege_model_version": "1.0",
            "external_access_enabled": False,
            "created_at": now, "created_by": owner, "updated_at": now, "updated_by": owner,
        }
        if storage_root:
            doc["storage_root"] = storage_root
        return doc

    # --- what other areas ask ---------------------------------------------------------------

    def exists(self, metastore_id: str) -> bool:
        """Whether a metastore of that id exists (what a grant on a metastore needs)."""
        with self._db.read() as conn:
            return self._get(conn, metastore_id) is not None

    def current_id(self, conn: sqlite3.Connection) -> str | None:
        """The metastore this workspace is assigned to, None when none is."""
        row = conn.execute("SELECT metastore_id FROM metastore_assignments WHERE "
                           "workspace_id = ?", (self.workspace_id,)).fetchone()
        return None if row is None else str(row["metastore_id"])

    # --- metastores -----------------------------------------------------------------------

    @staticmethod
    def _get(conn: sqlite3.Connection, metastore_id: str) -> dict[str, Any] | None:
        row = conn.execute("SELECT doc FROM metastores WHERE metastore_id = ?",
                           (metastore_id.lower(),)).fetchone()
        return None if row is None else from_json(row["doc"])

    def _load(self, conn: sqlite3.Connection, metastore_id: str) -> dict[str, Any]:
        doc = self._get(conn, metastore_id)
        if doc is None:
            raise NotFound(f"Metastore '{metastore_id}' does not exist.")
        return doc

    @staticmethod
    def _check_admin(caller: Caller, what: str) -> None:
        if not caller.is_admin:
            raise PermissionDenied(f"Only account or metastore admins may {what} "
                                   f"({caller.application_id} is neither).")

    def create(self, spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        self._check_admin(caller, "create a metastore")
        name = _check_name(spec.get("name"), "name")
        region = spec.get("region") or DEFAULT_REGION
        if not isinstance(region, str):
            raise InvalidParameter("region must be a string (e.g. westeurope).")
        root = (_check_storage_root(spec["storage_root"])
                if spec.get("storage_root") is not None else None)
        doc = self._new_doc(str(uuid.uuid4()), name, region, root, caller.application_id,
                            clock.now_ms())
        if spec.get("external_access_enabled") is not None:
            doc["external_access_enabled"] = bool(spec["external_access_enabled"])
        with self._db.write() as conn:
            conn.execute("INSERT INTO metastores (metastore_id, doc) VALUES (?, ?)",
                         (doc["metastore_id"], to_json(doc)))
        return doc

    def get(self, metastore_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            return self._load(conn, metastore_id)

    def all(self) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM metastores ORDER BY metastore_id").fetchall()
        return [from_json(row["doc"]) for row in rows]

    def update(self, metastore_id: str, changes: dict[str, Any], caller: Caller
               ) -> dict[str, Any]:
        with self._db.write() as conn:
            doc = self._load(conn, metastore_id)
            owner = doc.get("owner")
            if not (caller.is_admin or owner == caller.application_id
                    or owner in caller.group_names):
                raise PermissionDenied(f"{caller.application_id} is neither a metastore "
                                       f"admin nor the owner of metastore {doc['name']}.")
            if changes.get("new_name") is not None:
                doc["name"] = _check_name(changes["new_name"], "new_name")
            if changes.get("owner") is not None:
                doc["owner"] = self._checked_owner(changes["owner"])
            scope = changes.get("delta_sharing_scope")
            if scope is not None:
                if scope not in SHARING_SCOPES:
                    raise InvalidParameter(f"delta_sharing_scope must be one of "
                                           f"{', '.join(SHARING_SCOPES)}, got {scope!r}.")
                doc["delta_sharing_scope"] = scope
            lifetime = changes.get("delta_sharing_recipient_token_lifetime_in_seconds")
            if lifetime is not None:
                if isinstance(lifetime, bool) or not isinstance(lifetime, int) or lifetime < 0:
                    raise InvalidParameter("delta_sharing_recipient_token_lifetime_in_seconds "
                                           "must be a number of seconds (0: no expiry).")
                doc["delta_sharing_recipient_token_lifetime_in_seconds"] = lifetime
            version = changes.get("privilege_model_version")
            if version is not None and version not in PRIVILEGE_MODEL_VERSIONS:
                raise InvalidParameter(f"privilege_model_version must be 1.0, got {version!r}.")
            for field in FREE_FIELDS:
                if changes.get(field) is not None:
                    doc[field] = changes[field]
            credential_id = changes.get("storage_root_credential_id")
            if credential_id is not None:
                name = (self.contents.storage_credential_named_by_id(conn, str(credential_id))
                        if self.contents is not None else None)
                if name is None:
                    raise NotFound(f"Storage credential '{credential_id}' does not exist.")
                doc.update(storage_root_credential_id=str(credential_id),
                           storage_root_credential_name=name)
            doc.update(updated_at=clock.now_ms(), updated_by=caller.application_id)
            conn.execute("UPDATE metastores SET doc = ? WHERE metastore_id = ?",
                         (to_json(doc), doc["metastore_id"]))
        return doc

    def _checked_owner(self, owner: Any) -> str:
        if not isinstance(owner, str) or not any(
                self._directory.principal_exists(kind, owner)
                for kind in ("user", "group", "service_principal")):
            raise InvalidParameter(f"owner {owner!r} is not a user, group or service principal.")
        return owner

    def delete(self, metastore_id: str, caller: Caller, force: bool = False) -> None:
        self._check_admin(caller, "delete a metastore")
        with self._db.write() as conn:
            doc = self._load(conn, metastore_id)
            catalogs = (self.contents.catalogs_in(conn, doc["metastore_id"])
                        if self.contents is not None else [])
            if catalogs and not force:
                raise InvalidState(
                    f"Metastore '{doc['metastore_id']}' is not empty. The metastore has "
                    f"{len(catalogs)} catalog(s): {', '.join(catalogs)}. Delete them first, "
                    "or delete the metastore with force=true.")
            for name in catalogs:
                assert self.contents is not None
                self.contents.drop_catalog(conn, name)
            conn.execute("DELETE FROM metastore_assignments WHERE metastore_id = ?",
                         (doc["metastore_id"],))
            conn.execute("DELETE FROM metastores WHERE metastore_id = ?",
                         (doc["metastore_id"],))

    # --- assignments ----------------------------------------------------------------------

    def _known_workspace(self, conn: sqlite3.Connection, workspace_id: Any) -> int:
        parsed = parse_workspace_id(workspace_id, "workspace_id")
        if conn.execute("SELECT 1 FROM workspaces WHERE workspace_id = ?",
                        (parsed,)).fetchone() is None:
            raise NotFound(f"Workspace {parsed} does not exist in this account.")
        return parsed

    def assign(self, workspace_id: Any, spec: dict[str, Any], caller: Caller) -> None:
        self._check_admin(caller, "assign a metastore")
        metastore_id = spec.get("metastore_id")
        default = _check_name(spec.get("default_catalog_name"), "default_catalog_name")
        with self._db.write() as conn:
            workspace = self._known_workspace(conn, workspace_id)
            doc = self._load(conn, _check_name(metastore_id, "metastore_id"))
            conn.execute("INSERT OR REPLACE INTO metastore_assignments VALUES (?, ?, ?)",
                         (workspace, doc["metastore_id"], default))

    def update_assignment(self, workspace_id: Any, changes: dict[str, Any], caller: Caller
                          ) -> None:
        self._check_admin(caller, "change a metastore assignment")
        with self._db.write() as conn:
            workspace = self._known_workspace(conn, workspace_id)
            row = conn.execute("SELECT * FROM metastore_assignments WHERE workspace_id = ?",
                               (workspace,)).fetchone()
            if row is None:
                raise NotFound(f"Workspace {workspace} has no metastore assigned.")
            metastore_id, default = row["metastore_id"], row["default_catalog_name"]
            if changes.get("metastore_id") is not None:
                metastore_id = self._load(conn, str(changes["metastore_id"]))["metastore_id"]
            if changes.get("default_catalog_name") is not None:
                default = _check_name(changes["default_catalog_name"], "default_catalog_name")
            conn.execute("UPDATE metastore_assignments SET metastore_id = ?, "
                         "default_catalog_name = ? WHERE workspace_id = ?",
                         (metastore_id, default, workspace))

    def unassign(self, workspace_id: Any, metastore_id: Any, caller: Caller) -> None:
        self._check_admin(caller, "unassign a metastore")
        with self._db.write() as conn:
            workspace = self._known_workspace(conn, workspace_id)
            row = conn.execute("SELECT metastore_id FROM metastore_assignments WHERE "
                               "workspace_id = ?", (workspace,)).fetchone()
            if row is None or row["metastore_id"] != str(metastore_id or "").lower():
                raise NotFound(f"Metastore '{metastore_id}' is not assigned to workspace "
                               f"{workspace}.")
            conn.execute("DELETE FROM metastore_assignments WHERE workspace_id = ?",
                         (workspace,))

    def current_assignment(self) -> dict[str, Any]:
        with self._db.read() as conn:
            row = conn.execute("SELECT * FROM metastore_assignments WHERE workspace_id = ?",
                               (self.workspace_id,)).fetchone()
        if row is None:
            raise NotFound(f"No metastore assigned for the current workspace "
                           f"({self.workspace_id}).")
        return {"workspace_id": row["workspace_id"], "metastore_id": row["metastore_id"],
                "default_catalog_name": row["default_catalog_name"]}

    def summary(self) -> dict[str, Any]:
        metastore_id = self.current_assignment()["metastore_id"]
        return self.get(metastore_id)
