"""Unity Catalog below and beside the catalogs: schemas, volumes, storage and service
credentials, external locations, their grants (direct and effective) and the workspace
bindings of credentials and locations. No HTTP here.

Names. Catalog, schema and volume names are stored lower case, as the service stores them,
and found whatever the case asked for; credential and external location names keep their
case and are found without regard to it. Storage and service credentials share one
namespace; the /credentials API serves both, each with its `purpose`. The permissions paths'
`credential` names either, by name: a service credential's grants are kept as its kind's, and
a storage credential's reached through `credential` are the ones `storage_credential` reaches.

Bindings are kept whatever the isolation mode (the provider binds before it isolates); they
take effect only while the securable is ISOLATED. A schema's full name is `catalog.schema`, a
volume's `catalog.schema.volume`.

Catalogs live in the catalogs area (`catalogs` table); this area reads them in the same
transaction and gives the catalogs area what it needs to create, rename and delete one
(`add_catalog_defaults`, `catalog_contents`, `drop_catalog_contents`,
`rename_catalog_contents`).

Who may do what (kept simple, docs/api.md#unity-catalog): a metastore admin is a member of
the workspace's `admins` group. Owners are principal names (a user's user name, a group's
display name, a service principal's application id); the caller owns what its application
id or one of its groups owns. Changing an object or its grants needs an admin, its owner,
the owner of a container of it, or MANAGE on it (direct or inherited); only an admin or the
current owner may give it another owner. Creating needs: a catalog, storage credential or
external location: an admin; a schema: the catalog's owner or USE_CATALOG and
CREATE_SCHEMA; a volume: the schema's owner or USE_CATALOG, USE_SCHEMA and CREATE_VOLUME,
and for an external volume also CREATE_EXTERNAL_VOLUME on its external location.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterable
from typing import Any, ClassVar, Protocol

from workspace_emulator import clock
from workspace_emulator.errors import (
    AlreadyExists,
    InvalidParameter,
    InvalidState,
    NotFound,
    PermissionDenied,
)
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.privileges import (
    APPLICABLE,
    check_privilege,
)
from workspace_emulator.platform.directory import Caller, Directory
from workspace_emulator.storage import Database, from_json, to_json

TABLES = """
CREATE TABLE IF NOT EXISTS uc_objects (kind TEXT NOT NULL, key TEXT NOT NULL,
    parent TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (kind, key));
CREATE INDEX IF NOT EXISTS uc_objects_by_parent ON uc_objects (kind, parent);
CREATE TABLE IF NOT EXISTS uc_grants (securable_type TEXT NOT NULL, key TEXT NOT NULL,
    principal TEXT NOT NULL, privileges TEXT NOT NULL,
    PRIMARY KEY (securable_type, key, principal));
"""

SCHEMA, VOLUME = "SCHEMA", "VOLUME"
STORAGE_CREDENTIAL, EXTERNAL_LOCATION, CATALOG = (
    "STORAGE_CREDENTIAL", "EXTERNAL_LOCATION", "CATALOG")
SERVICE_CREDENTIAL = "SERVICE_CREDENTIAL"
# The permissions paths' `credential`: a credential of either purpose, found by its name.
ANY_CREDENTIAL = "CREDENTIAL"
# A credential's `purpose` (the /credentials API) -> where it is kept. Storage and service
# credentials share one namespace: a name is unique among both.
PURPOSES = {"SERVICE": SERVICE_CREDENTIAL, "STORAGE": STORAGE_CREDENTIAL}
CREDENTIALS = tuple(PURPOSES.values())
SYSTEM_OWNER = "System user"
DEFAULT_SCHEMA, INFORMATION_SCHEMA = "default", "information_schema"
VOLUME_TYPES = ("MANAGED", "EXTERNAL")
ISOLATION_MODES = ("ISOLATION_MODE_OPEN", "ISOLATION_MODE_ISOLATED")
CREDENTIAL_KINDS = ("azure_managed_identity", "azure_service_principal", "aws_iam_role",
                    "databricks_gcp_service_account", "cloudflare_api_token")
# The identities a service credential can hold (cloud services, not storage).
SERVICE_IDENTITIES = ("aws_iam_role", "azure_managed_identity", "databricks_gcp_service_account")
# Kept in a stored document, never shown.
INTERNAL_FIELDS = ("system", "bindings")
FORBIDDEN_IN_NAMES = frozenset(". /")
MAX_NAME = 255
READ_WRITE = "BINDING_TYPE_READ_WRITE"
# The grants API's securable type of a function (the tables area) and of a registered model
# (the ml area); of a table, a view and a materialized view (the tables area).
FUNCTION, TABLE = "FUNCTION", "TABLE"
METASTORE, CONNECTION = "METASTORE", "CONNECTION"
SHARE, RECIPIENT = "SHARE", "RECIPIENT"
LABELS = {CATALOG: "Catalog", SCHEMA: "Schema", VOLUME: "Volume",
          STORAGE_CREDENTIAL: "Storage credential", EXTERNAL_LOCATION: "External location",
          SERVICE_CREDENTIAL: "Credential", FUNCTION: "Function", TABLE: "Table",
          "SHARE": "Share", "RECIPIENT": "Recipient", "PROVIDER": "Provider",
          "CLEAN_ROOM": "Clean room"}
# Path spellings of the securable types the permissions paths take (any case).
SECURABLE_TYPES = {name.lower(): name for name in APPLICABLE}


def securable_type_of(value: str) -> str:
    found = SECURABLE_TYPES.get(value.lower().replace("-", "_"))
    if found is None:
        raise InvalidParameter(
            f"Unsupported securable type '{value}'; this workspace serves "
            f"{', '.join(sorted(SECURABLE_TYPES))}.")
    return found


def check_name(value: Any, field: str) -> str:
    if not isinstance(value, str) or not value:
        raise InvalidParameter(f"{field} must be a non-empty string.")
    if len(value) > MAX_NAME:
        raise InvalidParameter(f"{field} '{value[:40]}…' is longer than {MAX_NAME} characters.")
    if any(c in FORBIDDEN_IN_NAMES or ord(c) < 32 or ord(c) == 127 for c in value):
        raise InvalidParameter(
            f"Invalid name '{value}' for {field}: a name may not contain '.', ' ', '/' or "
            "control characters.")
    return value


def _split(full_name: str, parts: int, label: str) -> list[str]:
    pieces = full_name.split(".")
    if len(pieces) != parts or not all(pieces):
        shape = ".".join(("catalog", "schema", "volume")[:parts])
        raise InvalidParameter(f"Invalid {label} full name '{full_name}': expected {shape}.")
    return [p.lower() for p in pieces]


def _url(value: Any, field: str) -> str:
    if not isinstance(value, str) or "://" not in value or value.startswith("://"):
        raise InvalidParameter(f"{field} must be a storage URL such as "
                               "abfss://container@account.dfs.core.windows.net/path.")
    return value.rstrip("/")


def _covers(outer: str, inner: str) -> bool:
    return inner == outer or inner.startswith(outer + "/")


def _overlap(a: str, b: str) -> bool:
    return _covers(a, b) or _covers(b, a)


def _view(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k not in INTERNAL_FIELDS}


def _text_map(value: Any, field: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise InvalidParameter(f"{field} must be a map of strings to strings.")
    return value


class SchemaMembers(Protocol):
    """Securables another area keeps in schemas (registered models: areas/ml), which this
    area's grants, containers, schema deletes and renames reach through it. Its calls run
    in this area's transaction (`conn`)."""

    label: str  # how a refusal names one ("Registered model")

    def load(self, conn: sqlite3.Connection, full_name: str) -> dict[str, Any] | None: ...

    def count(self, conn: sqlite3.Connection, schema: str) -> int: ...

    def drop_all(self, conn: sqlite3.Connection, schema: str) -> None: ...

    def rename_schema(self, conn: sqlite3.Connection, old: str, catalog: str, name: str
                      ) -> None: ...


class Beside(Protocol):
    """What an area keeping securables beside the catalogs (shares, recipients, providers)
    gives this area's grants: the securable by its name, inside this area's transaction."""

    label: str

    def load(self, conn: sqlite3.Connection, name: str) -> dict[str, Any] | None: ...


class UnityCatalog:
    def __init__(self, db: Database, directory: Directory, metastore_id: str,
                 metastore_root: str | None = None) -> None:
        self._db = db
        self._directory = directory
        # securable type -> the areas keeping such securables in schemas (`hold_in_schemas`):
        # a `function` is a function or a registered model, each kept by its own area
        self._members: dict[str, list[SchemaMembers]] = {}
        # securable type -> the area keeping such securables beside the catalogs
        # (`hold_beside`): shares, recipients, providers
        self._beside: dict[str, Beside] = {}
        self.metastore_id = metastore_id
        self.metastore_root = (metastore_root or
                               f"abfss://metastore@emulatedstorage.dfs.core.windows.net/"
                               f"{metastore_id}").rstrip("/")

    # --- storage --------------------------------------------------------------------------

    @staticmethod
    def _get(conn: sqlite3.Connection, kind: str, key: str) -> dict[str, Any] | None:
        row = conn.execute("SELECT doc FROM uc_objects WHERE kind = ? AND key = ?",
                           (kind, key.lower())).fetchone()
        return None if row is None else from_json(row["doc"])

    def _load(self, conn: sqlite3.Connection, kind: str, key: str) -> dict[str, Any]:
        doc = self._get(conn, kind, key)
        if doc is None:
            raise NotFound(f"{LABELS[kind]} '{key}' does not exist.")
        return doc

    @staticmethod
    def _put(conn: sqlite3.Connection, kind: str, doc: dict[str, Any], parent: str = "",
             old_key: str | None = None) -> None:
        key = doc["full_name"].lower() if kind in (SCHEMA, VOLUME) else doc["name"].lower()
        if old_key is not None and old_key != key:
            conn.execute("DELETE FROM uc_objects WHERE kind = ? AND key = ?", (kind, old_key))
        conn.execute(
            "INSERT INTO uc_objects (kind, key, parent, doc) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(kind, key) DO UPDATE SET parent = excluded.parent, doc = excluded.doc",
            (kind, key, parent.lower(), to_json(doc)))

    @staticmethod
    def _children(conn: sqlite3.Connection, kind: str, parent: str) -> list[dict[str, Any]]:
        rows = conn.execute("SELECT doc FROM uc_objects WHERE kind = ? AND parent = ? "
                            "ORDER BY key", (kind, parent.lower())).fetchall()
        return [from_json(r["doc"]) for r in rows]

    @staticmethod
    def _all(conn: sqlite3.Connection, kind: str) -> list[dict[str, Any]]:
        rows = conn.execute("SELECT doc FROM uc_objects WHERE kind = ? ORDER BY key",
                            (kind,)).fetchall()
        return [from_json(r["doc"]) for r in rows]

    @staticmethod
    def _catalog(conn: sqlite3.Connection, name: str) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM catalogs WHERE lower(name) = ?",
                           (name.lower(),)).fetchone()
        if row is None:
            raise NotFound(f"Catalog '{name}' does not exist.")
        return from_json(row["doc"])

    def _stamp(self, doc: dict[str, Any], caller: Caller, created: bool = False) -> None:
        now = clock.now_ms()
        if created:
            doc.update(created_at=now, created_by=caller.application_id)
        doc.update(updated_at=now, updated_by=caller.application_id)

    # --- who may ---------------------------------------------------------------------------

    @staticmethod
    def _owns(caller: Caller, owner: str | None) -> bool:
        return owner is not None and (owner == caller.application_id
                                      or owner in caller.group_names)

    def _containers(self, conn: sqlite3.Connection, kind: str, key: str
                    ) -> list[tuple[str, str, dict[str, Any]]]:
        """The securable and what contains it, innermost first: (type, key, doc)."""
        if kind == CATALOG:
            return [(CATALOG, key.lower(), self._catalog(conn, key))]
        if kind == SCHEMA:
            catalog, _ = _split(key, 2, "schema")
            return [(SCHEMA, key.lower(), self._load(conn, SCHEMA, key)),
                    (CATALOG, catalog, self._catalog(conn, catalog))]
        if kind == VOLUME:
            catalog, schema, _ = _split(key, 3, "volume")
            return [(VOLUME, key.lower(), self._load(conn, VOLUME, key)),
                    (SCHEMA, f"{catalog}.{schema}", self._load(conn, SCHEMA,
                                                               f"{catalog}.{schema}")),
                    (CATALOG, catalog, self._catalog(conn, catalog))]
        if kind in self._members or kind in (TABLE, FUNCTION):
            label = " or ".join(m.label for m in self._members.get(kind, ())) or LABELS[kind]
            catalog, schema, _ = _split(key, 3, label.lower())
            doc = next((found for members in self._members.get(kind, ())
                        if (found := members.load(conn, key)) is not None), None)
            if doc is None:
                raise NotFound(f"{label} '{key}' does not exist.")
            return [(kind, key.lower(), doc),
                    (SCHEMA, f"{catalog}.{schema}", self._load(conn, SCHEMA,
                                                               f"{catalog}.{schema}")),
                    (CATALOG, catalog, self._catalog(conn, catalog))]
        if kind in self._beside:
            beside = self._beside[kind]
            doc = beside.load(conn, key)
            if doc is None:
                raise NotFound(f"{beside.label} '{key}' does not exist.")
            return [(kind, key.lower(), doc)]
        if kind == METASTORE:
            # Grants reach the workspace's initial metastore only, by its id (the metastores
            # area keeps the others, which no grant of this workspace names).
            if key.lower() != self.metastore_id.lower():
                raise NotFound(f"Metastore '{key}' does not exist.")
            return [(METASTORE, key.lower(), {"full_name": self.metastore_id,
                                              "metastore_id": self.metastore_id})]
        return [(kind, key.lower(), self._load(conn, kind, key))]

    def _held(self, conn: sqlite3.Connection, caller: Caller,
              chain: list[tuple[str, str, dict[str, Any]]]) -> set[str]:
        names = {caller.application_id, *caller.group_names}
        held: set[str] = set()
        for securable_type, key, _ in chain:
            for row in conn.execute(
                    "SELECT principal, privileges FROM uc_grants WHERE securable_type = ? "
                    "AND key = ?", (securable_type, key)):
                if row["principal"] in names:
                    held.update(from_json(row["privileges"]))
        return held

    def _may(self, conn: sqlite3.Connection, caller: Caller,
             chain: list[tuple[str, str, dict[str, Any]]], *needed: str) -> bool:
        if caller.is_admin or any(self._owns(caller, doc.get("owner")) for _, _, doc in chain):
            return True
        held = self._held(conn, caller, chain)
        return "ALL_PRIVILEGES" in held or all(p in held for p in needed)

    def _refuse_unless(self, conn: sqlite3.Connection, caller: Caller, kind: str, key: str,
                       *needed: str, action: str) -> list[tuple[str, str, dict[str, Any]]]:
        chain = self._containers(conn, kind, key)
        if not self._may(conn, caller, chain, *needed):
            wanted = " and ".join(needed) if needed else "ownership"
            label = (" or ".join(m.label for m in self._members[kind]) if kind in self._members
                     else self._beside[kind].label if kind in self._beside
                     else LABELS[kind])
            raise PermissionDenied(
                f"User does not have {wanted} on {label} '{chain[0][2]['full_name']}' "
                f"({caller.application_id} may not {action}).")
        return chain

    # --- for the areas that keep securables in schemas (registered models) -----------------

    def hold_in_schemas(self, securable_type: str, members: SchemaMembers) -> None:
        """Securables of `securable_type` live in schemas, kept by `members`."""
        self._members.setdefault(securable_type, []).append(members)

    def hold_beside(self, securable_type: str, beside: Beside) -> None:
        """Securables of `securable_type` live beside the catalogs, kept by `beside`."""
        self._beside[securable_type] = beside

    def refuse_unless(self, conn: sqlite3.Connection, caller: Caller, securable_type: str,
                      key: str, *needed: str, action: str
                      ) -> list[tuple[str, str, dict[str, Any]]]:
        """The securable and its containers (innermost first), where the caller is an admin,
        owns one of them or holds `needed` on them; else 403 naming what it lacks."""
        return self._refuse_unless(conn, caller, securable_type, key, *needed, action=action)

    def check_owner_change(self, caller: Caller, doc: dict[str, Any], owner: Any,
                           securable_type: str) -> str:
        return self._check_owner_change(caller, doc, owner, securable_type)

    def drop_grants(self, conn: sqlite3.Connection, securable_type: str, key: str) -> None:
        self._drop_grants(conn, securable_type, key)

    def move_grants(self, conn: sqlite3.Connection, securable_type: str, old: str,
                    new: str) -> None:
        self._move_grants(conn, securable_type, old, new)

    def _check_owner_change(self, caller: Caller, doc: dict[str, Any], owner: Any,
                            kind: str) -> str:
        if not isinstance(owner, str) or not self._principal(owner):
            raise InvalidParameter(f"Could not find principal with name {owner!r}.")
        if owner != doc.get("owner") and not (caller.is_admin
                                              or self._owns(caller, doc.get("owner"))):
            raise PermissionDenied(
                f"{caller.application_id} is neither a metastore admin nor the owner of "
                f"{LABELS.get(kind, kind).lower()} '{doc['full_name']}', so cannot change its "
                "owner.")
        return self._principal(owner) or owner

    def _principal(self, name: str) -> str | None:
        """The directory's spelling of a principal name (user names without regard to
        case), or None if there is no such user, group or service principal."""
        d = self._directory
        if d.group_by_name(name) is not None:
            return name
        if d.principal_exists("service_principal", name):
            return name
        user = d.user_by_name(name)
        if user is not None:
            return user.user_name
        lowered = name.lower()
        for candidate in d.users():
            if candidate.user_name.lower() == lowered:
                return candidate.user_name
        return None

    def _owner_or_default(self, owner: Any, caller: Caller) -> str:
        if owner is None:
            return caller.application_id
        if not isinstance(owner, str) or self._principal(owner) is None:
            raise InvalidParameter(f"Could not find principal with name {owner!r}.")
        return self._principal(owner) or owner

    # --- catalogs (the catalogs area calls these) -----------------------------------------

    def managed_location(self, kind: str, object_id: str, storage_root: str | None) -> str:
        base = storage_root or self.metastore_root
        return f"{base}/__unitystorage/{kind}/{object_id}"

    def check_storage_root(self, conn: sqlite3.Connection, storage_root: Any) -> str:
        url = _url(storage_root, "storage_root")
        self._location_covering(conn, url, "storage_root")
        return url

    def add_catalog_defaults(self, conn: sqlite3.Connection, catalog: dict[str, Any],
                             caller: Caller) -> None:
        """What a new managed catalog comes with: the `default` schema (the creator's) and
        the read-only `information_schema`."""
        for name, owner, system in ((DEFAULT_SCHEMA, caller.application_id, False),
                                    (INFORMATION_SCHEMA, SYSTEM_OWNER, True)):
            doc = self._new_schema(catalog, name, owner, {}, caller)
            if system:
                doc["system"] = True
                doc["comment"] = "Information schema (auto-created)"
            else:
                doc["comment"] = "Default schema (auto-created)"
            self._put(conn, SCHEMA, doc, parent=catalog["name"])

    def catalog_contents(self, conn: sqlite3.Connection, catalog: str) -> int:
        """The schemas that make a catalog non-empty (every one but information_schema)."""
        return sum(1 for s in self._children(conn, SCHEMA, catalog) if not s.get("system"))

    def drop_catalog_contents(self, conn: sqlite3.Connection, catalog: str) -> None:
        for schema in self._children(conn, SCHEMA, catalog):
            self._drop_schema(conn, schema["full_name"])
        self._drop_grants(conn, CATALOG, catalog)

    def rename_catalog_contents(self, conn: sqlite3.Connection, old: str, new: str) -> None:
        for schema in self._children(conn, SCHEMA, old):
            self._rename_schema(conn, schema, new, schema["name"])
        self._move_grants(conn, CATALOG, old, new)

    # --- schemas ---------------------------------------------------------------------------

    def _new_schema(self, catalog: dict[str, Any], name: str, owner: str,
                    spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        schema_id = str(uuid.uuid4())
        doc: dict[str, Any] = {
            "name": name, "catalog_name": catalog["name"],
            "full_name": f"{catalog['name']}.{name}", "owner": owner,
            "metastore_id": self.metastore_id, "schema_id": schema_id,
            "catalog_type": catalog.get("catalog_type", "MANAGED_CATALOG"),
            "securable_type": SCHEMA,
        }
        for field in ("comment", "properties", "storage_root"):
            if spec.get(field) is not None:
                doc[field] = spec[field]
        if doc.get("storage_root"):
            doc["storage_location"] = self.managed_location("schemas", schema_id,
                                                            doc["storage_root"])
        self._stamp(doc, caller, created=True)
        return doc

    def create_schema(self, spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        name = check_name(spec.get("name"), "name").lower()
        catalog_name = check_name(spec.get("catalog_name"), "catalog_name").lower()
        if spec.get("properties") is not None:
            _text_map(spec["properties"], "properties")
        with self._db.write() as conn:
            self._refuse_unless(conn, caller, CATALOG, catalog_name, "USE_CATALOG",
                                "CREATE_SCHEMA", action="create a schema in it")
            catalog = self._catalog(conn, catalog_name)
            if self._get(conn, SCHEMA, f"{catalog_name}.{name}") is not None:
                raise AlreadyExists(f"Schema '{catalog_name}.{name}' already exists.")
            if spec.get("storage_root") is not None:
                spec = {**spec, "storage_root": self.check_storage_root(conn,
                                                                        spec["storage_root"])}
            doc = self._new_schema(catalog, name, caller.application_id, spec, caller)
            self._put(conn, SCHEMA, doc, parent=catalog_name)
        return _view(doc)

    def get_schema(self, full_name: str) -> dict[str, Any]:
        _split(full_name, 2, "schema")
        with self._db.read() as conn:
            return _view(self._load(conn, SCHEMA, full_name))

    def list_schemas(self, catalog_name: str) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            self._catalog(conn, catalog_name)
            return [_view(d) for d in self._children(conn, SCHEMA, catalog_name)]

    def update_schema(self, full_name: str, changes: dict[str, Any], caller: Caller
                      ) -> dict[str, Any]:
        catalog, _ = _split(full_name, 2, "schema")
        with self._db.write() as conn:
            chain = self._refuse_unless(conn, caller, SCHEMA, full_name, "MANAGE",
                                        action="change it")
            doc = chain[0][2]
            if doc.get("system"):
                raise PermissionDenied(f"Schema '{doc['full_name']}' is a system schema and "
                                       "cannot be changed.")
            old_key = doc["full_name"]
            if changes.get("owner") is not None:
                doc["owner"] = self._check_owner_change(caller, doc, changes["owner"], SCHEMA)
            if changes.get("properties") is not None:
                doc["properties"] = _text_map(changes["properties"], "properties")
            for field in ("comment", "enable_predictive_optimization"):
                if changes.get(field) is not None:
                    doc[field] = changes[field]
            self._stamp(doc, caller)
            new_name = changes.get("new_name")
            if new_name is not None and new_name.lower() != doc["name"]:
                new_name = check_name(new_name, "new_name").lower()
                if self._get(conn, SCHEMA, f"{catalog}.{new_name}") is not None:
                    raise AlreadyExists(f"Schema '{catalog}.{new_name}' already exists.")
                doc = self._rename_schema(conn, doc, catalog, new_name)
            else:
                self._put(conn, SCHEMA, doc, parent=catalog, old_key=old_key)
        return _view(doc)

    def _rename_schema(self, conn: sqlite3.Connection, doc: dict[str, Any], catalog: str,
                       name: str) -> dict[str, Any]:
        old = doc["full_name"]
        doc = {**doc, "name": name, "catalog_name": catalog, "full_name": f"{catalog}.{name}"}
        self._put(conn, SCHEMA, doc, parent=catalog, old_key=old)
        self._move_grants(conn, SCHEMA, old, doc["full_name"])
        for volume in self._children(conn, VOLUME, old):
            old_volume = volume["full_name"]
            volume.update(catalog_name=catalog, schema_name=name,
                          full_name=f"{catalog}.{name}.{volume['name']}")
            self._put(conn, VOLUME, volume, parent=doc["full_name"], old_key=old_volume)
            self._move_grants(conn, VOLUME, old_volume, volume["full_name"])
        for held in self._members.values():
            for members in held:
                members.rename_schema(conn, old, catalog, name)
        return doc

    def delete_schema(self, full_name: str, caller: Caller, force: bool = False) -> None:
        _split(full_name, 2, "schema")
        with self._db.write() as conn:
            chain = self._refuse_unless(conn, caller, SCHEMA, full_name, "MANAGE",
                                        action="delete it")
            doc = chain[0][2]
            if doc.get("system"):
                raise PermissionDenied(f"Schema '{doc['full_name']}' is a system schema and "
                                       "cannot be deleted.")
            volumes = self._children(conn, VOLUME, doc["full_name"])
            counts = {kind: sum(m.count(conn, doc["full_name"]) for m in held)
                      for kind, held in self._members.items()}
            tables = counts.pop(TABLE, 0)
            functions = sum(counts.values())
            if (volumes or functions or tables) and not force:
                raise InvalidState(
                    f"Schema '{doc['full_name']}' is not empty. The schema has {tables} "
                    f"tables(s), "
                    f"{functions} functions(s), {len(volumes)} volumes(s). Delete them "
                    "first, or delete the schema with force=true.")
            self._drop_schema(conn, doc["full_name"])

    def _drop_schema(self, conn: sqlite3.Connection, full_name: str) -> None:
        for volume in self._children(conn, VOLUME, full_name):
            self._drop(conn, VOLUME, volume["full_name"])
        for held in self._members.values():
            for members in held:
                members.drop_all(conn, full_name)
        self._drop(conn, SCHEMA, full_name)

    def _drop(self, conn: sqlite3.Connection, kind: str, key: str) -> None:
        conn.execute("DELETE FROM uc_objects WHERE kind = ? AND key = ?", (kind, key.lower()))
        self._drop_grants(conn, kind, key)

    # --- volumes ---------------------------------------------------------------------------

    def create_volume(self, spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        catalog = check_name(spec.get("catalog_name"), "catalog_name").lower()
        schema = check_name(spec.get("schema_name"), "schema_name").lower()
        name = check_name(spec.get("name"), "name").lower()
        volume_type = spec.get("volume_type")
        if volume_type not in VOLUME_TYPES:
            raise InvalidParameter(
                f"volume_type must be MANAGED or EXTERNAL, got {volume_type!r}.")
        location = spec.get("storage_location")
        if volume_type == "MANAGED" and location is not None:
            raise InvalidParameter("storage_location cannot be given for a MANAGED volume: "
                                   "the service places it.")
        if volume_type == "EXTERNAL":
            if location is None:
                raise InvalidParameter("storage_location is required for an EXTERNAL volume.")
            location = _url(location, "storage_location")
        schema_key = f"{catalog}.{schema}"
        with self._db.write() as conn:
            chain = self._refuse_unless(conn, caller, SCHEMA, schema_key, "USE_CATALOG",
                                        "USE_SCHEMA", "CREATE_VOLUME",
                                        action="create a volume in it")
            schema_doc, catalog_doc = chain[0][2], chain[1][2]
            if schema_doc.get("system"):
                raise PermissionDenied(f"Schema '{schema_key}' is a system schema: no volume "
                                       "can be created in it.")
            full_name = f"{schema_key}.{name}"
            if self._get(conn, VOLUME, full_name) is not None:
                raise AlreadyExists(f"Volume '{full_name}' already exists.")
            volume_id = str(uuid.uuid4())
            if volume_type == "EXTERNAL":
                assert location is not None
                covering = self._location_covering(conn, location, "storage_location")
                key = covering["name"]
                if not self._may(conn, caller, self._containers(conn, EXTERNAL_LOCATION, key),
                                 "CREATE_EXTERNAL_VOLUME"):
                    raise PermissionDenied(
                        f"User does not have CREATE_EXTERNAL_VOLUME on External location "
                        f"'{covering['name']}'.")
                for other in self._all(conn, VOLUME):
                    if other["volume_type"] == "EXTERNAL" and _overlap(
                            other["storage_location"], location):
                        raise InvalidParameter(
                            f"Input path url '{location}' overlaps with other external "
                            f"tables or volumes: volume '{other['full_name']}' is at "
                            f"'{other['storage_location']}'.")
            else:
                base = (schema_doc.get("storage_location") or catalog_doc.get("storage_location")
                        or self.metastore_root)
                location = f"{base}/volumes/{volume_id}"
            doc: dict[str, Any] = {
                "name": name, "catalog_name": catalog, "schema_name": schema,
                "full_name": full_name, "volume_type": volume_type,
                "storage_location": location, "owner": caller.application_id,
                "metastore_id": self.metastore_id, "volume_id": volume_id,
            }
            if spec.get("comment") is not None:
                doc["comment"] = spec["comment"]
            self._stamp(doc, caller, created=True)
            self._put(conn, VOLUME, doc, parent=schema_key)
        return _view(doc)

    def get_volume(self, full_name: str) -> dict[str, Any]:
        _split(full_name, 3, "volume")
        with self._db.read() as conn:
            return _view(self._load(conn, VOLUME, full_name))

    def list_volumes(self, catalog_name: str, schema_name: str) -> list[dict[str, Any]]:
        schema_key = f"{catalog_name}.{schema_name}".lower()
        with self._db.read() as conn:
            self._catalog(conn, catalog_name)
            self._load(conn, SCHEMA, schema_key)
            return [_view(d) for d in self._children(conn, VOLUME, schema_key)]

    def update_volume(self, full_name: str, changes: dict[str, Any], caller: Caller
                      ) -> dict[str, Any]:
        catalog, schema, _ = _split(full_name, 3, "volume")
        with self._db.write() as conn:
            chain = self._refuse_unless(conn, caller, VOLUME, full_name, "MANAGE",
                                        action="change it")
            doc = chain[0][2]
            old_key = doc["full_name"]
            if changes.get("owner") is not None:
                doc["owner"] = self._check_owner_change(caller, doc, changes["owner"], VOLUME)
            if changes.get("comment") is not None:
                doc["comment"] = changes["comment"]
            new_name = changes.get("new_name")
            if new_name is not None and new_name.lower() != doc["name"]:
                new_name = check_name(new_name, "new_name").lower()
                new_full = f"{catalog}.{schema}.{new_name}"
                if self._get(conn, VOLUME, new_full) is not None:
                    raise AlreadyExists(f"Volume '{new_full}' already exists.")
                doc.update(name=new_name, full_name=new_full)
                self._move_grants(conn, VOLUME, old_key, new_full)
            self._stamp(doc, caller)
            self._put(conn, VOLUME, doc, parent=f"{catalog}.{schema}", old_key=old_key)
        return _view(doc)

    def delete_volume(self, full_name: str, caller: Caller) -> None:
        _split(full_name, 3, "volume")
        with self._db.write() as conn:
            self._refuse_unless(conn, caller, VOLUME, full_name, "MANAGE", action="delete it")
            self._drop(conn, VOLUME, full_name)

    # --- storage credentials ---------------------------------------------------------------

    def _credential_identity(self, spec: dict[str, Any], doc: dict[str, Any],
                             kinds: tuple[str, ...] = CREDENTIAL_KINDS,
                             label: str = "A storage credential") -> None:
        given = [k for k in CREDENTIAL_KINDS if spec.get(k) is not None]
        if len(given) != 1 or given[0] not in kinds:
            raise InvalidParameter(
                f"{label} needs exactly one identity: one of "
                f"{', '.join(kinds)}" + (f"; got {', '.join(given)}." if given else "."))
        kind = given[0]
        value = spec[kind]
        if not isinstance(value, dict):
            raise InvalidParameter(f"{kind} must be an object.")
        required = {"azure_managed_identity": ("access_connector_id",),
                    "azure_service_principal": ("directory_id", "application_id",
                                                "client_secret"),
                    "aws_iam_role": ("role_arn",),
                    "cloudflare_api_token": ("access_key_id", "secret_access_key",
                                             "account_id")}.get(kind, ())
        for field in required:
            if not isinstance(value.get(field), str) or not value[field]:
                raise InvalidParameter(f"{kind}.{field} is required.")
        for other in CREDENTIAL_KINDS:
            doc.pop(other, None)
        shown = dict(value)
        credential_id = doc["id"]
        if kind == "azure_managed_identity":
            shown["credential_id"] = credential_id
        elif kind == "azure_service_principal":
            shown.pop("client_secret", None)  # never shown again
        elif kind == "cloudflare_api_token":
            shown.pop("secret_access_key", None)
        elif kind == "aws_iam_role":
            shown.setdefault("external_id", credential_id)
            shown["unity_catalog_iam_arn"] = (
                "arn:aws:iam::000000000000:role/unity-catalog-emulated")
        elif kind == "databricks_gcp_service_account":
            shown = {"credential_id": credential_id,
                     "email": f"uc-{credential_id[:8]}@emulated.iam.gserviceaccount.com"}
        doc[kind] = shown

    def _credential_named(self, conn: sqlite3.Connection, name: str
                          ) -> tuple[str, dict[str, Any]] | None:
        """A storage or service credential of that name (any case): (kind, doc)."""
        for kind in CREDENTIALS:
            doc = self._get(conn, kind, name)
            if doc is not None:
                return kind, doc
        return None

    def _new_credential(self, kind: str, spec: dict[str, Any], caller: Caller
                        ) -> dict[str, Any]:
        name = check_name(spec.get("name"), "name")
        privilege = f"CREATE_{kind}"
        if not caller.is_admin:
            raise PermissionDenied(f"User does not have {privilege} on Metastore "
                                   f"'{self.metastore_id}'.")
        doc: dict[str, Any] = {
            "name": name, "full_name": name, "id": str(uuid.uuid4()),
            "owner": caller.application_id, "metastore_id": self.metastore_id,
            "isolation_mode": "ISOLATION_MODE_OPEN",
        }
        if kind == STORAGE_CREDENTIAL:
            doc.update(read_only=bool(spec.get("read_only", False)),
                       used_for_managed_storage=False)
            self._credential_identity(spec, doc)
        else:
            self._refuse_read_only(spec)
            doc["purpose"] = "SERVICE"
            self._credential_identity(spec, doc, SERVICE_IDENTITIES, "A service credential")
        if spec.get("comment") is not None:
            doc["comment"] = spec["comment"]
        self._stamp(doc, caller, created=True)
        with self._db.write() as conn:
            if self._credential_named(conn, name) is not None:
                raise AlreadyExists(f"Credential '{name}' already exists.")
            self._put(conn, kind, doc)
        return doc

    @staticmethod
    def _refuse_read_only(spec: dict[str, Any]) -> None:
        if spec.get("read_only"):
            raise InvalidParameter("read_only applies to STORAGE credentials only; leave it "
                                   "out for a SERVICE credential.")

    def create_storage_credential(self, spec: dict[str, Any], caller: Caller
                                  ) -> dict[str, Any]:
        return _view(self._new_credential(STORAGE_CREDENTIAL, spec, caller))

    def get_storage_credential(self, name: str) -> dict[str, Any]:
        with self._db.read() as conn:
            return _view(self._load(conn, STORAGE_CREDENTIAL, name))

    def storage_credential_named_by_id(self, conn: sqlite3.Connection, credential_id: str
                                       ) -> str | None:
        """The name of the storage credential of that id (a metastore's root credential),
        None where there is none."""
        for doc in self._all(conn, STORAGE_CREDENTIAL):
            if doc.get("id") == credential_id:
                return str(doc["name"])
        return None

    def list_storage_credentials(self) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            return [_view(d) for d in self._all(conn, STORAGE_CREDENTIAL)]

    def _update_credential(self, kind: str, name: str, changes: dict[str, Any],
                           caller: Caller) -> dict[str, Any]:
        with self._db.write() as conn:
            chain = self._refuse_unless(conn, caller, kind, name, "MANAGE",
                                        action="change it")
            doc = chain[0][2]
            old_key = doc["name"].lower()
            if changes.get("owner") is not None:
                doc["owner"] = self._check_owner_change(caller, doc, changes["owner"], kind)
            self._isolation(doc, changes)
            if changes.get("comment") is not None:
                doc["comment"] = changes["comment"]
            if kind == SERVICE_CREDENTIAL:
                self._refuse_read_only(changes)
            elif changes.get("read_only") is not None:
                doc["read_only"] = bool(changes["read_only"])
            if any(changes.get(k) is not None for k in CREDENTIAL_KINDS):
                if kind == STORAGE_CREDENTIAL:
                    self._credential_identity(changes, doc)
                else:
                    self._credential_identity(changes, doc, SERVICE_IDENTITIES,
                                              "A service credential")
            new_name = changes.get("new_name")
            if new_name is not None and new_name != doc["name"]:
                new_name = check_name(new_name, "new_name")
                if new_name.lower() != old_key and self._credential_named(
                        conn, new_name) is not None:
                    raise AlreadyExists(f"Credential '{new_name}' already exists.")
                self._move_grants(conn, kind, old_key, new_name)
                for location in self._all(conn, EXTERNAL_LOCATION):
                    if (kind == STORAGE_CREDENTIAL
                            and location.get("credential_name", "").lower() == old_key):
                        location["credential_name"] = new_name
                        self._put(conn, EXTERNAL_LOCATION, location)
                doc.update(name=new_name, full_name=new_name)
            self._stamp(doc, caller)
            self._put(conn, kind, doc, old_key=old_key)
        return doc

    def update_storage_credential(self, name: str, changes: dict[str, Any], caller: Caller
                                  ) -> dict[str, Any]:
        return _view(self._update_credential(STORAGE_CREDENTIAL, name, changes, caller))

    def _delete_credential(self, kind: str, name: str, caller: Caller, force: bool) -> None:
        with self._db.write() as conn:
            chain = self._refuse_unless(conn, caller, kind, name, "MANAGE",
                                        action="delete it")
            doc = chain[0][2]
            dependent = [loc["name"] for loc in self._all(conn, EXTERNAL_LOCATION)
                         if kind == STORAGE_CREDENTIAL
                         and loc.get("credential_name", "").lower() == doc["name"].lower()]
            if dependent and not force:
                raise InvalidState(
                    f"Storage credential '{doc['name']}' has {len(dependent)} dependent "
                    f"external location(s) ({', '.join(dependent)}); delete them first, or "
                    "delete the credential with force=true.")
            self._drop(conn, kind, doc["name"])

    def delete_storage_credential(self, name: str, caller: Caller, force: bool = False
                                  ) -> None:
        self._delete_credential(STORAGE_CREDENTIAL, name, caller, force)

    # --- credentials of either purpose (/credentials) ---------------------------------------

    @staticmethod
    def _as_credential(kind: str, doc: dict[str, Any]) -> dict[str, Any]:
        return {**_view(doc), "purpose": "STORAGE" if kind == STORAGE_CREDENTIAL else "SERVICE"}

    @staticmethod
    def _purpose(value: Any) -> str:
        if value not in PURPOSES:
            raise InvalidParameter(f"purpose must be one of {', '.join(PURPOSES)}, got "
                                   f"{value!r}.")
        return PURPOSES[value]

    def _kind_of_credential(self, name: str) -> str:
        with self._db.read() as conn:
            found = self._credential_named(conn, name)
        if found is None:
            raise NotFound(f"Credential '{name}' does not exist.")
        return found[0]

    def create_credential(self, spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        kind = self._purpose(spec.get("purpose"))
        return self._as_credential(kind, self._new_credential(kind, spec, caller))

    def get_credential(self, name: str) -> dict[str, Any]:
        with self._db.read() as conn:
            found = self._credential_named(conn, name)
        if found is None:
            raise NotFound(f"Credential '{name}' does not exist.")
        return self._as_credential(*found)

    def list_credentials(self, purpose: str | None = None) -> list[dict[str, Any]]:
        wanted = None if purpose is None else self._purpose(purpose)
        with self._db.read() as conn:
            found = [self._as_credential(kind, doc) for kind in CREDENTIALS
                     if wanted in (None, kind) for doc in self._all(conn, kind)]
        return sorted(found, key=lambda c: c["name"].lower())

    def update_credential(self, name: str, changes: dict[str, Any], caller: Caller
                          ) -> dict[str, Any]:
        kind = self._kind_of_credential(name)
        return self._as_credential(kind, self._update_credential(kind, name, changes, caller))

    def delete_credential(self, name: str, caller: Caller, force: bool = False) -> None:
        self._delete_credential(self._kind_of_credential(name), name, caller, force)

    # --- external locations ----------------------------------------------------------------

    def _location_covering(self, conn: sqlite3.Connection, url: str, field: str
                           ) -> dict[str, Any]:
        best: dict[str, Any] | None = None
        for location in self._all(conn, EXTERNAL_LOCATION):
            if _covers(location["url"], url) and (best is None
                                                  or len(location["url"]) > len(best["url"])):
                best = location
        if best is None:
            raise InvalidParameter(
                f"{field} '{url}' is not under any external location of this metastore: "
                "create an external location that covers it first.")
        return best

    @staticmethod
    def _isolation(doc: dict[str, Any], changes: dict[str, Any]) -> None:
        mode = changes.get("isolation_mode")
        if mode is not None:
            if mode not in ISOLATION_MODES:
                raise InvalidParameter(f"isolation_mode must be one of "
                                       f"{', '.join(ISOLATION_MODES)}, got {mode!r}.")
            doc["isolation_mode"] = mode

    def create_external_location(self, spec: dict[str, Any], caller: Caller
                                 ) -> dict[str, Any]:
        name = check_name(spec.get("name"), "name")
        url = _url(spec.get("url"), "url")
        credential_name = spec.get("credential_name")
        if not isinstance(credential_name, str) or not credential_name:
            raise InvalidParameter("credential_name is required.")
        with self._db.write() as conn:
            credential = self._get(conn, STORAGE_CREDENTIAL, credential_name)
            if credential is None:
                raise NotFound(f"Storage Credential '{credential_name}' does not exist.")
            if not caller.is_admin and not self._may(
                    conn, caller, self._containers(conn, STORAGE_CREDENTIAL, credential_name),
                    "CREATE_EXTERNAL_LOCATION"):
                raise PermissionDenied(
                    f"User does not have CREATE_EXTERNAL_LOCATION on Storage credential "
                    f"'{credential['name']}'.")
            if self._get(conn, EXTERNAL_LOCATION, name) is not None:
                raise AlreadyExists(f"External Location '{name}' already exists.")
            self._refuse_overlap(conn, url, name)
            doc: dict[str, Any] = {
                "name": name, "full_name": name, "url": url,
                "credential_name": credential["name"], "credential_id": credential["id"],
                "owner": caller.application_id, "metastore_id": self.metastore_id,
                "read_only": bool(spec.get("read_only", False)),
                "isolation_mode": "ISOLATION_MODE_OPEN",
            }
            for field in ("comment", "fallback", "enable_file_events"):
                if spec.get(field) is not None:
                    doc[field] = spec[field]
            self._stamp(doc, caller, created=True)
            self._put(conn, EXTERNAL_LOCATION, doc)
        return _view(doc)

    def _refuse_overlap(self, conn: sqlite3.Connection, url: str, name: str) -> None:
        for other in self._all(conn, EXTERNAL_LOCATION):
            if other["name"].lower() != name.lower() and _overlap(other["url"], url):
                raise InvalidParameter(
                    f"External location '{name}' would overlap external location "
                    f"'{other['name']}' ({other['url']}): locations may not overlap.")

    def get_external_location(self, name: str) -> dict[str, Any]:
        with self._db.read() as conn:
            return _view(self._load(conn, EXTERNAL_LOCATION, name))

    def list_external_locations(self) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            return [_view(d) for d in self._all(conn, EXTERNAL_LOCATION)]

    def _location_dependants(self, conn: sqlite3.Connection, url: str) -> list[str]:
        found = [f"volume {v['full_name']}" for v in self._all(conn, VOLUME)
                 if v["volume_type"] == "EXTERNAL" and _covers(url, v["storage_location"])]
        found += [f"schema {s['full_name']}" for s in self._all(conn, SCHEMA)
                  if s.get("storage_root") and _covers(url, s["storage_root"])]
        for row in conn.execute("SELECT doc FROM catalogs ORDER BY name"):
            catalog = from_json(row["doc"])
            if catalog.get("storage_root") and _covers(url, catalog["storage_root"]):
                found.append(f"catalog {catalog['name']}")
        return found

    def update_external_location(self, name: str, changes: dict[str, Any], caller: Caller
                                 ) -> dict[str, Any]:
        with self._db.write() as conn:
            chain = self._refuse_unless(conn, caller, EXTERNAL_LOCATION, name, "MANAGE",
                                        action="change it")
            doc = chain[0][2]
            old_key = doc["name"].lower()
            if changes.get("owner") is not None:
                doc["owner"] = self._check_owner_change(caller, doc, changes["owner"],
                                                        EXTERNAL_LOCATION)
            self._isolation(doc, changes)
            for field in ("comment", "fallback", "enable_file_events"):
                if changes.get(field) is not None:
                    doc[field] = changes[field]
            if changes.get("read_only") is not None:
                doc["read_only"] = bool(changes["read_only"])
            if changes.get("credential_name") is not None:
                credential = self._get(conn, STORAGE_CREDENTIAL, changes["credential_name"])
                if credential is None:
                    raise NotFound(f"Storage Credential '{changes['credential_name']}' does "
                                   "not exist.")
                doc.update(credential_name=credential["name"], credential_id=credential["id"])
            if changes.get("url") is not None:
                url = _url(changes["url"], "url")
                if url != doc["url"]:
                    dependants = self._location_dependants(conn, doc["url"])
                    if dependants and not changes.get("force"):
                        raise InvalidState(
                            f"External location '{doc['name']}' is used by "
                            f"{', '.join(dependants)}; change its url with force=true.")
                    self._refuse_overlap(conn, url, doc["name"])
                    doc["url"] = url
            new_name = changes.get("new_name")
            if new_name is not None and new_name != doc["name"]:
                new_name = check_name(new_name, "new_name")
                if new_name.lower() != old_key and self._get(
                        conn, EXTERNAL_LOCATION, new_name) is not None:
                    raise AlreadyExists(f"External Location '{new_name}' already exists.")
                self._move_grants(conn, EXTERNAL_LOCATION, old_key, new_name)
                doc.update(name=new_name, full_name=new_name)
            self._stamp(doc, caller)
            self._put(conn, EXTERNAL_LOCATION, doc, old_key=old_key)
        return _view(doc)

    def delete_external_location(self, name: str, caller: Caller, force: bool = False
                                 ) -> None:
        with self._db.write() as conn:
            chain = self._refuse_unless(conn, caller, EXTERNAL_LOCATION, name, "MANAGE",
                                        action="delete it")
            doc = chain[0][2]
            dependants = self._location_dependants(conn, doc["url"])
            if dependants and not force:
                raise InvalidState(
                    f"External location '{doc['name']}' is used by {', '.join(dependants)}; "
                    "delete them first, or delete the location with force=true.")
            self._drop(conn, EXTERNAL_LOCATION, doc["name"])

    # --- grants ----------------------------------------------------------------------------

    def _drop_grants(self, conn: sqlite3.Connection, securable_type: str, key: str) -> None:
        conn.execute("DELETE FROM uc_grants WHERE securable_type = ? AND key = ?",
                     (securable_type, key.lower()))

    def _move_grants(self, conn: sqlite3.Connection, securable_type: str, old: str,
                     new: str) -> None:
        conn.execute("UPDATE uc_grants SET key = ? WHERE securable_type = ? AND key = ?",
                     (new.lower(), securable_type, old.lower()))

    @staticmethod
    def _direct(conn: sqlite3.Connection, securable_type: str, key: str
                ) -> dict[str, list[str]]:
        rows = conn.execute("SELECT principal, privileges FROM uc_grants WHERE "
                            "securable_type = ? AND key = ? ORDER BY principal",
                            (securable_type, key)).fetchall()
        return {r["principal"]: from_json(r["privileges"]) for r in rows}

    @staticmethod
    def _assignments(grants: dict[str, list[str]], principal: str | None
                     ) -> list[dict[str, Any]]:
        return [{"principal": p, "privileges": sorted(privileges)}
                for p, privileges in sorted(grants.items())
                if privileges and (principal is None or p == principal)]

    def _grants_of(self, securable_type: str, full_name: str) -> tuple[str, str]:
        """(the kind whose grants a permissions path reaches, the privileges row it takes).
        `credential` names a credential of either purpose, as the service resolves the name:
        a service credential takes the CREDENTIAL row, a storage credential its own, and
        both paths of a storage credential reach the same grants."""
        kind = securable_type_of(securable_type)
        if kind != ANY_CREDENTIAL:
            return kind, kind
        found = self._kind_of_credential(full_name)
        return found, ANY_CREDENTIAL if found == SERVICE_CREDENTIAL else found

    def permissions(self, securable_type: str, full_name: str, principal: str | None = None
                    ) -> list[dict[str, Any]]:
        kind, _ = self._grants_of(securable_type, full_name)
        with self._db.read() as conn:
            chain = self._containers(conn, kind, full_name)
            return self._assignments(self._direct(conn, kind, chain[0][1]),
                                     self._filter(principal))

    def _is_recipient(self, conn: sqlite3.Connection, name: str) -> bool:
        beside = self._beside.get(RECIPIENT)
        return beside is not None and beside.load(conn, name) is not None

    def _filter(self, principal: str | None) -> str | None:
        if principal is None:
            return None
        return self._principal(principal) or principal

    def update_permissions(self, securable_type: str, full_name: str, changes: Any,
                           caller: Caller) -> list[dict[str, Any]]:
        kind, row = self._grants_of(securable_type, full_name)
        if changes is None:
            changes = []
        if not isinstance(changes, list):
            raise InvalidParameter("changes must be a list of {principal, add, remove}.")
        with self._db.write() as conn:
            chain = self._refuse_unless(conn, caller, kind, full_name, "MANAGE",
                                        action="change its grants")
            key, doc = chain[0][1], chain[0][2]
            shown = doc.get("full_name", full_name)
            grants = self._direct(conn, kind, key)
            touched: set[str] = set()
            for index, change in enumerate(changes):
                where = f"changes[{index}]"
                if not isinstance(change, dict):
                    raise InvalidParameter(f"{where} must be an object.")
                name = change.get("principal")
                if not isinstance(name, str) or not name:
                    raise InvalidParameter(f"{where}.principal is required.")
                principal = self._principal(name)
                recipient = kind == SHARE and self._is_recipient(conn, name)
                if recipient:
                    principal = name.lower()
                if principal is None:
                    raise InvalidParameter(f"Could not find principal with name {name}.")
                lists = {}
                for verb in ("add", "remove"):
                    values = change.get(verb) or []
                    if not isinstance(values, list):
                        raise InvalidParameter(f"{where}.{verb} must be a list of privileges.")
                    lists[verb] = [check_privilege(p, row, shown, f"{where}.{verb}[{i}]")
                                   for i, p in enumerate(values)]
                if kind == SHARE and "SELECT" in lists["add"] and not recipient:
                    raise InvalidParameter(
                        f"SELECT on share '{shown}' is granted to a recipient; {name} is "
                        "not a recipient of this metastore.")
                held = set(grants.get(principal, []))
                held |= set(lists["add"])
                held -= set(lists["remove"])
                grants[principal] = sorted(held)
                touched.add(principal)
            for principal in touched:
                if grants[principal]:
                    conn.execute(
                        "INSERT INTO uc_grants (securable_type, key, principal, privileges) "
                        "VALUES (?, ?, ?, ?) ON CONFLICT(securable_type, key, principal) "
                        "DO UPDATE SET privileges = excluded.privileges",
                        (kind, key, principal, to_json(grants[principal])))
                else:
                    conn.execute("DELETE FROM uc_grants WHERE securable_type = ? AND key = ? "
                                 "AND principal = ?", (kind, key, principal))
        return self._assignments(grants, None)

    def effective_permissions(self, securable_type: str, full_name: str,
                              principal: str | None = None) -> list[dict[str, Any]]:
        """Each principal's privileges on the securable: its own grants, then those of the
        schema and catalog that contain it, marked with where they come from."""
        kind, _ = self._grants_of(securable_type, full_name)
        wanted = self._filter(principal)
        with self._db.read() as conn:
            chain = self._containers(conn, kind, full_name)
            found: dict[str, list[dict[str, Any]]] = {}
            for depth, (securable, key, doc) in enumerate(chain):
                for name, privileges in self._direct(conn, securable, key).items():
                    if wanted is not None and name != wanted:
                        continue
                    for privilege in sorted(privileges):
                        entry: dict[str, Any] = {"privilege": privilege}
                        if depth:
                            entry.update(inherited_from_type=securable,
                                         inherited_from_name=doc.get("full_name", key))
                        found.setdefault(name, []).append(entry)
        return [{"principal": name, "privileges": entries}
                for name, entries in sorted(found.items())]

    # --- workspace bindings of credentials and locations -----------------------------------

    BINDABLE = {"storage_credential": STORAGE_CREDENTIAL, "external_location": EXTERNAL_LOCATION}

    def _bindable_kind(self, securable_type: str, name: str) -> str:
        """`credential` names a storage or a service credential."""
        if securable_type == "credential":
            return self._kind_of_credential(name)
        return self.BINDABLE[securable_type]

    def bindings(self, securable_type: str, name: str) -> list[dict[str, Any]]:
        kind = self._bindable_kind(securable_type, name)
        with self._db.read() as conn:
            return self._load(conn, kind, name).get("bindings", [])

    def update_bindings(self, securable_type: str, name: str, caller: Caller,
                        added: Iterable[dict[str, Any]], removed: Iterable[dict[str, Any]]
                        ) -> list[dict[str, Any]]:
        """`added`/`removed`: checked bindings ({workspace_id, binding_type}). A credential
        of either purpose is bound read-write only, as the service allows."""
        kind = self._bindable_kind(securable_type, name)
        if kind in CREDENTIALS and any(b["binding_type"] != READ_WRITE for b in added):
            raise InvalidParameter(f"Supported binding types for {securable_type.upper()} "
                                   f"are {READ_WRITE}.")
        with self._db.write() as conn:
            chain = self._refuse_unless(conn, caller, kind, name, "MANAGE",
                                        action="change its workspace bindings")
            doc = chain[0][2]
            removed_ids = {b["workspace_id"] for b in removed}
            bindings = {b["workspace_id"]: b for b in doc.get("bindings", [])
                        if b["workspace_id"] not in removed_ids}
            for binding in added:
                bindings[binding["workspace_id"]] = binding
            doc["bindings"] = list(bindings.values())
            self._stamp(doc, caller)
            self._put(conn, kind, doc)
        return doc["bindings"]


class KeptSecurables:
    """One kind of securable that another area keeps in a table of its own, a row each
    (`kind`, `key`, the row's further columns, `doc`): what its objects share, reached by
    this area as `SchemaMembers` or `Beside` (`_hold`)."""

    table: ClassVar[str]

    def __init__(self, db: Database, unity_catalog: UnityCatalog, kind: str, label: str,
                 create_privilege: str) -> None:
        self._db = db
        self._uc = unity_catalog
        self.kind = kind
        self.label = label
        self._create_privilege = create_privilege
        self._hold(unity_catalog)

    def _hold(self, unity_catalog: UnityCatalog) -> None:
        """Tells `unity_catalog` where these securables live (`hold_in_schemas`,
        `hold_beside`)."""
        raise NotImplementedError

    def _row(self, doc: dict[str, Any]) -> dict[str, str]:
        """The row's `key` and its further columns, of the object `doc`."""
        raise NotImplementedError

    def load(self, conn: sqlite3.Connection, key: str) -> dict[str, Any] | None:
        row = conn.execute(f"SELECT doc FROM {self.table} WHERE kind = ? AND key = ?",
                           (self.kind, key.lower())).fetchone()
        return None if row is None else from_json(row["doc"])

    def _put(self, conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
        row = self._row(doc)
        updated = [f"{column} = excluded.{column}" for column in row if column != "key"]
        conn.execute(
            f"INSERT INTO {self.table} (kind, {', '.join(row)}, doc) "
            f"VALUES (?, {', '.join('?' * len(row))}, ?) ON CONFLICT(kind, key) "
            f"DO UPDATE SET {', '.join([*updated, 'doc = excluded.doc'])}",
            (self.kind, *row.values(), to_json(doc)))
