"""Unity Catalog registered models: create, read, list, update (comment, owner, new_name),
delete; their aliases (alias -> version) and their versions. No HTTP here.

A model lives in a schema, as a volume does, and is a securable of the grants API under the
type `function` (the service's own spelling for models there): the unity_catalog area keeps
the schemas and the grants, and reaches the models through `SchemaMembers` (`hold_in_schemas`):
a schema holding models is not empty, its rename moves them, its forced delete drops them.
Names are stored lower case and found whatever the case asked for.

Who may: creating needs the schema's owner, or USE_CATALOG, USE_SCHEMA and CREATE_MODEL;
changing or deleting one, an admin, its owner, an owner of its schema or catalog, or MANAGE.

Versions are made by training runs (the MLflow client's `model-versions/create` path,
served here for that: a version is READY at once); aliases name existing versions only, and
a version's delete takes its aliases with it. A model's delete takes its versions, aliases
and grants.
"""

from __future__ import annotations

import re
import sqlite3
import uuid
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import (
    FUNCTION,
    SCHEMA,
    UnityCatalog,
    check_name,
)
from workspace_emulator.platform.directory import Caller
from workspace_emulator.storage import Database, from_json, to_json

TABLES = """
CREATE TABLE IF NOT EXISTS registered_models (key TEXT PRIMARY KEY, schema TEXT NOT NULL,
    doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS registered_models_by_schema ON registered_models (schema);
CREATE TABLE IF NOT EXISTS model_versions (model TEXT NOT NULL, version INTEGER NOT NULL,
    doc TEXT NOT NULL, PRIMARY KEY (model, version));
"""

LABEL = "Registered model"
# Aliases the service keeps for itself: `latest`, and `v<n>` (a version's own name).
RESERVED_ALIAS = re.compile(r"^(latest|v\d+)$", re.IGNORECASE)
ALIAS = re.compile(r"^[A-Za-z0-9_-]{1,255}$")
# Kept in the stored document, shown only where asked (`include_aliases`) or never.
INTERNAL_FIELDS = ("aliases", "next_version")


def _split(full_name: str) -> tuple[str, str, str]:
    parts = full_name.lower().split(".")
    if len(parts) != 3 or not all(parts):
        raise InvalidParameter(f"Invalid registered model full name '{full_name}': expected "
                               "catalog.schema.model.")
    return parts[0], parts[1], parts[2]


def check_alias(alias: str) -> str:
    if not ALIAS.match(alias):
        raise InvalidParameter(f"Invalid alias '{alias}': an alias holds letters, digits, '_' "
                               "and '-' only.")
    if RESERVED_ALIAS.match(alias):
        raise InvalidParameter(f"Invalid alias '{alias}': 'latest' and 'v<number>' are "
                               "reserved.")
    return alias.lower()


class RegisteredModels:
    """The state of the registered models; implements the unity_catalog area's
    `SchemaMembers` for them."""

    label = LABEL

    def __init__(self, db: Database, unity_catalog: UnityCatalog) -> None:
        self._db = db
        self._uc = unity_catalog
        unity_catalog.hold_in_schemas(FUNCTION, self)

    # --- SchemaMembers (called inside the unity_catalog area's transactions) --------------

    def load(self, conn: sqlite3.Connection, full_name: str) -> dict[str, Any] | None:
        row = conn.execute("SELECT doc FROM registered_models WHERE key = ?",
                           (full_name.lower(),)).fetchone()
        return None if row is None else from_json(row["doc"])

    def count(self, conn: sqlite3.Connection, schema: str) -> int:
        return int(conn.execute("SELECT count(*) FROM registered_models WHERE schema = ?",
                                (schema.lower(),)).fetchone()[0])

    def drop_all(self, conn: sqlite3.Connection, schema: str) -> None:
        for row in conn.execute("SELECT key FROM registered_models WHERE schema = ?",
                                (schema.lower(),)).fetchall():
            self._drop(conn, row["key"])

    def rename_schema(self, conn: sqlite3.Connection, old: str, catalog: str, name: str
                      ) -> None:
        for row in conn.execute("SELECT doc FROM registered_models WHERE schema = ?",
                                (old.lower(),)).fetchall():
            doc = from_json(row["doc"])
            self._move(conn, doc, catalog, name, doc["name"])

    # --- models ---------------------------------------------------------------------------

    def _load(self, conn: sqlite3.Connection, full_name: str) -> dict[str, Any]:
        _split(full_name)
        doc = self.load(conn, full_name)
        if doc is None:
            raise NotFound(f"Registered model '{full_name}' does not exist.")
        return doc

    @staticmethod
    def _save(conn: sqlite3.Connection, doc: dict[str, Any], old_key: str | None = None
              ) -> None:
        key = doc["full_name"]
        if old_key is not None and old_key != key:
            conn.execute("DELETE FROM registered_models WHERE key = ?", (old_key,))
        conn.execute(
            "INSERT INTO registered_models (key, schema, doc) VALUES (?, ?, ?) ON CONFLICT(key) "
            "DO UPDATE SET schema = excluded.schema, doc = excluded.doc",
            (key, f"{doc['catalog_name']}.{doc['schema_name']}", to_json(doc)))

    def _view(self, conn: sqlite3.Connection, doc: dict[str, Any], include_aliases: bool
              ) -> dict[str, Any]:
        shown = {k: v for k, v in doc.items() if k not in INTERNAL_FIELDS}
        if include_aliases:
            shown["aliases"] = self._aliases(doc)
        return shown

    @staticmethod
    def _aliases(doc: dict[str, Any]) -> list[dict[str, Any]]:
        return [{"alias_name": alias, "version_num": version}
                for alias, version in sorted(doc.get("aliases", {}).items())]

    def _stamp(self, doc: dict[str, Any], caller: Caller, created: bool = False) -> None:
        now = clock.now_ms()
        if created:
            doc.update(created_at=now, created_by=caller.application_id)
        doc.update(updated_at=now, updated_by=caller.application_id)

    def create(self, spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        catalog = check_name(spec.get("catalog_name"), "catalog_name").lower()
        schema = check_name(spec.get("schema_name"), "schema_name").lower()
        name = check_name(spec.get("name"), "name").lower()
        schema_key = f"{catalog}.{schema}"
        with self._db.write() as conn:
            chain = self._uc.refuse_unless(conn, caller, SCHEMA, schema_key, "USE_CATALOG",
                                           "USE_SCHEMA", "CREATE_MODEL",
                                           action="create a registered model in it")
            schema_doc, catalog_doc = chain[0][2], chain[1][2]
            full_name = f"{schema_key}.{name}"
            if self.load(conn, full_name) is not None:
                raise AlreadyExists(f"Registered model '{full_name}' already exists.")
            model_id = str(uuid.uuid4())
            if spec.get("storage_location") is not None:
                location = self._uc.check_storage_root(conn, spec["storage_location"])
            else:
                location = self._uc.managed_location(
                    "models", model_id,
                    schema_doc.get("storage_root") or catalog_doc.get("storage_root"))
            doc: dict[str, Any] = {
                "name": name, "catalog_name": catalog, "schema_name": schema,
                "full_name": full_name, "owner": caller.application_id,
                "metastore_id": self._uc.metastore_id,
                "storage_location": location, "securable_type": FUNCTION,
                "aliases": {}, "next_version": 1,
            }
            if spec.get("comment") is not None:
                doc["comment"] = spec["comment"]
            if spec.get("owner") is not None:
                doc["owner"] = self._uc.check_owner_change(caller, doc, spec["owner"], FUNCTION)
            self._stamp(doc, caller, created=True)
            self._save(conn, doc)
            return self._view(conn, doc, include_aliases=False)

    def get(self, full_name: str, include_aliases: bool = False) -> dict[str, Any]:
        with self._db.read() as conn:
            return self._view(conn, self._load(conn, full_name), include_aliases)

    def all(self, catalog_name: str | None, schema_name: str | None) -> list[dict[str, Any]]:
        """The models of a schema, of a catalog, or of every catalog (by full name)."""
        if schema_name is not None and catalog_name is None:
            raise InvalidParameter("catalog_name is required when schema_name is given.")
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM registered_models ORDER BY key").fetchall()
            docs = [from_json(r["doc"]) for r in rows]
            if catalog_name is not None:
                docs = [d for d in docs if d["catalog_name"] == catalog_name.lower()]
            if schema_name is not None:
                docs = [d for d in docs if d["schema_name"] == schema_name.lower()]
            return [self._view(conn, d, include_aliases=False) for d in docs]

    def update(self, full_name: str, changes: dict[str, Any], caller: Caller
               ) -> dict[str, Any]:
        with self._db.write() as conn:
            chain = self._uc.refuse_unless(conn, caller, FUNCTION, full_name, "MANAGE",
                                           action="change it")
            doc = chain[0][2]
            if changes.get("owner") is not None:
                doc["owner"] = self._uc.check_owner_change(caller, doc, changes["owner"],
                                                           FUNCTION)
            if changes.get("comment") is not None:
                doc["comment"] = changes["comment"]
            self._stamp(doc, caller)
            new_name = changes.get("new_name")
            if new_name is not None and new_name.lower() != doc["name"]:
                new_name = check_name(new_name, "new_name").lower()
                key = f"{doc['catalog_name']}.{doc['schema_name']}.{new_name}"
                if self.load(conn, key) is not None:
                    raise AlreadyExists(f"Registered model '{key}' already exists.")
                doc = self._move(conn, doc, doc["catalog_name"], doc["schema_name"], new_name)
            else:
                self._save(conn, doc)
            return self._view(conn, doc, include_aliases=False)

    def _move(self, conn: sqlite3.Connection, doc: dict[str, Any], catalog: str, schema: str,
              name: str) -> dict[str, Any]:
        """The model under a new full name: its versions and grants follow."""
        old = doc["full_name"]
        doc = {**doc, "name": name, "catalog_name": catalog, "schema_name": schema,
               "full_name": f"{catalog}.{schema}.{name}"}
        self._save(conn, doc, old_key=old)
        for row in conn.execute("SELECT version, doc FROM model_versions WHERE model = ?",
                                (old,)).fetchall():
            version = {**from_json(row["doc"]), "catalog_name": catalog,
                       "schema_name": schema, "model_name": name}
            conn.execute("UPDATE model_versions SET model = ?, doc = ? WHERE model = ? AND "
                         "version = ?", (doc["full_name"], to_json(version), old,
                                         row["version"]))
        self._uc.move_grants(conn, FUNCTION, old, doc["full_name"])
        return doc

    def delete(self, full_name: str, caller: Caller) -> None:
        with self._db.write() as conn:
            chain = self._uc.refuse_unless(conn, caller, FUNCTION, full_name, "MANAGE",
                                           action="delete it")
            self._drop(conn, chain[0][1])

    def _drop(self, conn: sqlite3.Connection, key: str) -> None:
        conn.execute("DELETE FROM registered_models WHERE key = ?", (key,))
        conn.execute("DELETE FROM model_versions WHERE model = ?", (key,))
        self._uc.drop_grants(conn, FUNCTION, key)

    # --- aliases --------------------------------------------------------------------------

    def set_alias(self, full_name: str, alias: str, version: Any, caller: Caller
                  ) -> dict[str, Any]:
        alias = check_alias(alias)
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise InvalidParameter("version_num must be a model version number (1 or more).")
        with self._db.write() as conn:
            chain = self._uc.refuse_unless(conn, caller, FUNCTION, full_name, "MANAGE",
                                           action="set its aliases")
            doc = chain[0][2]
            self._version(conn, doc["full_name"], version)
            doc["aliases"] = {**doc.get("aliases", {}), alias: version}
            self._stamp(doc, caller)
            self._save(conn, doc)
        return {"alias_name": alias, "version_num": version,
                "catalog_name": doc["catalog_name"], "schema_name": doc["schema_name"],
                "model_name": doc["name"]}

    def delete_alias(self, full_name: str, alias: str, caller: Caller) -> None:
        with self._db.write() as conn:
            chain = self._uc.refuse_unless(conn, caller, FUNCTION, full_name, "MANAGE",
                                           action="delete its aliases")
            doc = chain[0][2]
            aliases = dict(doc.get("aliases", {}))
            if aliases.pop(alias.lower(), None) is None:
                raise NotFound(f"Alias '{alias}' of registered model '{doc['full_name']}' "
                               "does not exist.")
            doc["aliases"] = aliases
            self._stamp(doc, caller)
            self._save(conn, doc)

    def by_alias(self, full_name: str, alias: str) -> dict[str, Any]:
        with self._db.read() as conn:
            doc = self._load(conn, full_name)
            version = doc.get("aliases", {}).get(alias.lower())
            if version is None:
                raise NotFound(f"Alias '{alias}' of registered model '{doc['full_name']}' "
                               "does not exist.")
            return self._version_view(doc, self._version(conn, doc["full_name"], version))

    # --- versions -------------------------------------------------------------------------

    def _version(self, conn: sqlite3.Connection, key: str, version: int) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM model_versions WHERE model = ? AND version = ?",
                           (key, version)).fetchone()
        if row is None:
            raise NotFound(f"Model version '{key}' version {version} does not exist.")
        return from_json(row["doc"])

    def _version_view(self, model: dict[str, Any], version: dict[str, Any]
                      ) -> dict[str, Any]:
        aliases = [a for a in self._aliases(model) if a["version_num"] == version["version"]]
        return {**version, "aliases": aliases}

    def create_version(self, full_name: str, spec: dict[str, Any], caller: Caller
                       ) -> dict[str, Any]:
        """A new version of the model, as a training run registers it (READY at once)."""
        source = spec.get("source")
        if not isinstance(source, str) or not source:
            raise InvalidParameter("source is required: the URI of the model's artifacts.")
        with self._db.write() as conn:
            chain = self._uc.refuse_unless(conn, caller, FUNCTION, full_name, "MANAGE",
                                           action="create a version of it")
            doc = chain[0][2]
            number = int(doc.get("next_version", 1))
            version: dict[str, Any] = {
                "model_name": doc["name"], "catalog_name": doc["catalog_name"],
                "schema_name": doc["schema_name"], "version": number, "source": source,
                "status": "READY", "id": str(uuid.uuid4()),
                "metastore_id": doc["metastore_id"],
                "storage_location": f"{doc['storage_location']}/versions/{number}",
            }
            for field in ("run_id", "comment"):
                if spec.get(field) is not None:
                    version[field] = spec[field]
            self._stamp(version, caller, created=True)
            conn.execute("INSERT INTO model_versions (model, version, doc) VALUES (?, ?, ?)",
                         (doc["full_name"], number, to_json(version)))
            doc["next_version"] = number + 1
            self._save(conn, doc)
            return self._version_view(doc, version)

    def versions(self, full_name: str) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            doc = self._load(conn, full_name)
            rows = conn.execute("SELECT doc FROM model_versions WHERE model = ? ORDER BY "
                                "version DESC", (doc["full_name"],)).fetchall()
            return [self._version_view(doc, from_json(r["doc"])) for r in rows]

    def get_version(self, full_name: str, version: int) -> dict[str, Any]:
        with self._db.read() as conn:
            doc = self._load(conn, full_name)
            return self._version_view(doc, self._version(conn, doc["full_name"], version))

    def delete_version(self, full_name: str, version: int, caller: Caller) -> None:
        with self._db.write() as conn:
            chain = self._uc.refuse_unless(conn, caller, FUNCTION, full_name, "MANAGE",
                                           action="delete its versions")
            doc = chain[0][2]
            self._version(conn, doc["full_name"], version)
            conn.execute("DELETE FROM model_versions WHERE model = ? AND version = ?",
                         (doc["full_name"], version))
            doc["aliases"] = {a: v for a, v in doc.get("aliases", {}).items() if v != version}
            self._save(conn, doc)
