"""Delta Sharing's shares, recipients and providers of the metastore, kept beside the
catalogs: the unity_catalog area reaches them for grants (`share`, `recipient`, `provider`)
and takes a recipient's name as the principal of SELECT on a share. No HTTP here.

Names keep their case and are found without regard to it. Creating needs an admin or the
metastore privilege that makes the object (CREATE_SHARE, CREATE_RECIPIENT, CREATE_PROVIDER);
changing or deleting one, an admin, its owner or MANAGE. A share's objects and a recipient's
tokens are not held: a TOKEN recipient answers an activation URL, never a bearer token.
"""

from __future__ import annotations

import uuid
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import (
    METASTORE,
    KeptSecurables,
    UnityCatalog,
    check_name,
)
from workspace_emulator.platform.directory import Caller
from workspace_emulator.storage import Database, from_json

TABLES = """
CREATE TABLE IF NOT EXISTS uc_sharing (kind TEXT NOT NULL, key TEXT NOT NULL,
    doc TEXT NOT NULL, PRIMARY KEY (kind, key));
"""

AUTHENTICATION_TYPES = ("TOKEN", "DATABRICKS", "OAUTH_CLIENT_CREDENTIALS", "OIDC_FEDERATION")
# What a create or an update may set, per kind (owner and new_name: update only).
FIELDS = {
    "SHARE": ("comment", "storage_root"),
    "RECIPIENT": ("comment", "authentication_type", "data_recipient_global_metastore_id",
                  "sharing_code", "ip_access_list", "properties_kvpairs", "expiration_time"),
    "PROVIDER": ("comment", "authentication_type"),
}


class SharingObjects(KeptSecurables):
    """One kind of Delta Sharing object; the unity_catalog area's `Beside` for it."""

    table = "uc_sharing"

    def _hold(self, unity_catalog: UnityCatalog) -> None:
        unity_catalog.hold_beside(self.kind, self)

    def _row(self, doc: dict[str, Any]) -> dict[str, str]:
        return {"key": doc["name"].lower()}

    def _check(self, spec: dict[str, Any]) -> None:
        """Kind-specific rules of a create (the recipients' and providers' override)."""

    def create(self, spec: dict[str, Any], caller: Caller) -> dict[str, Any]:
        name = check_name(spec.get("name"), "name")
        self._check(spec)
        with self._db.write() as conn:
            self._uc.refuse_unless(conn, caller, METASTORE, self._uc.metastore_id,
                                   self._create_privilege, action=f"create a {self.label}")
            if self.load(conn, name) is not None:
                raise AlreadyExists(f"{self.label} '{name}' already exists.")
            now = clock.now_ms()
            doc: dict[str, Any] = {
                "name": name, "owner": caller.application_id, "id": str(uuid.uuid4()),
                "metastore_id": self._uc.metastore_id, "created_at": now,
                "created_by": caller.application_id, "updated_at": now,
                "updated_by": caller.application_id,
                **{f: spec[f] for f in FIELDS[self.kind] if spec.get(f) is not None}}
            self._put(conn, doc)
        return self.shown(doc)

    def shown(self, doc: dict[str, Any]) -> dict[str, Any]:
        return doc

    def get(self, name: str) -> dict[str, Any]:
        with self._db.read() as conn:
            doc = self.load(conn, name)
        if doc is None:
            raise NotFound(f"{self.label} '{name}' does not exist.")
        return self.shown(doc)

    def list(self) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM uc_sharing WHERE kind = ? ORDER BY key",
                                (self.kind,)).fetchall()
        return [self.shown(from_json(r["doc"])) for r in rows]

    def update(self, name: str, changes: dict[str, Any], caller: Caller) -> dict[str, Any]:
        with self._db.write() as conn:
            chain = self._uc.refuse_unless(conn, caller, self.kind, name, "MANAGE",
                                           action="change it")
            doc = chain[0][2]
            if changes.get("owner") is not None:
                doc["owner"] = self._uc.check_owner_change(caller, doc, changes["owner"],
                                                           self.kind)
            for field in FIELDS[self.kind]:
                if field != "authentication_type" and changes.get(field) is not None:
                    doc[field] = changes[field]
            old = doc["name"]
            new_name = changes.get("new_name")
            if new_name is not None and new_name.lower() != old.lower():
                new_name = check_name(new_name, "new_name")
                if self.load(conn, new_name) is not None:
                    raise AlreadyExists(f"{self.label} '{new_name}' already exists.")
                conn.execute("DELETE FROM uc_sharing WHERE kind = ? AND key = ?",
                             (self.kind, old.lower()))
                self._uc.move_grants(conn, self.kind, old, new_name)
                doc["name"] = new_name
            doc.update(updated_at=clock.now_ms(), updated_by=caller.application_id)
            self._put(conn, doc)
        return self.shown(doc)

    def delete(self, name: str, caller: Caller) -> None:
        with self._db.write() as conn:
            chain = self._uc.refuse_unless(conn, caller, self.kind, name, "MANAGE",
                                           action="delete it")
            conn.execute("DELETE FROM uc_sharing WHERE kind = ? AND key = ?",
                         (self.kind, chain[0][1]))
            self._uc.drop_grants(conn, self.kind, chain[0][1])


class Recipients(SharingObjects):
    def __init__(self, db: Database, unity_catalog: UnityCatalog) -> None:
        super().__init__(db, unity_catalog, "RECIPIENT", "Recipient", "CREATE_RECIPIENT")

    def _check(self, spec: dict[str, Any]) -> None:
        kind = spec.get("authentication_type")
        if kind not in AUTHENTICATION_TYPES:
            raise InvalidParameter(f"authentication_type must be one of "
                                   f"{', '.join(AUTHENTICATION_TYPES)}.")
        if kind == "DATABRICKS" and not spec.get("data_recipient_global_metastore_id"):
            raise InvalidParameter("data_recipient_global_metastore_id is required for a "
                                   "DATABRICKS recipient.")

    def shown(self, doc: dict[str, Any]) -> dict[str, Any]:
        if doc.get("authentication_type") != "TOKEN":
            return doc
        return {**doc, "activated": False, "tokens": [{
            "id": doc["id"], "created_at": doc["created_at"], "created_by": doc["created_by"],
            "activation_url": f"https://emulated.delta.sharing/activate/{doc['id']}"}]}


class Providers(SharingObjects):
    def __init__(self, db: Database, unity_catalog: UnityCatalog) -> None:
        super().__init__(db, unity_catalog, "PROVIDER", "Provider", "CREATE_PROVIDER")

    def _check(self, spec: dict[str, Any]) -> None:
        if spec.get("authentication_type") not in AUTHENTICATION_TYPES:
            raise InvalidParameter(f"authentication_type must be one of "
                                   f"{', '.join(AUTHENTICATION_TYPES)}.")
        if spec.get("authentication_type") == "TOKEN" and not spec.get("recipient_profile_str"):
            raise InvalidParameter("recipient_profile_str is required for a TOKEN provider.")


def shares(db: Database, unity_catalog: UnityCatalog) -> SharingObjects:
    return SharingObjects(db, unity_catalog, "SHARE", "Share", "CREATE_SHARE")
