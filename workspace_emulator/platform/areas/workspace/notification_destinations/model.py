"""Notification destinations: where jobs, alerts and other features send notifications.

A destination has a display name and one configuration of its type: EMAIL (addresses),
SLACK, WEBHOOK (generic_webhook), PAGERDUTY or MICROSOFT_TEAMS. Of every type but EMAIL the
fields are write-only: stored as SHA-256 only, never answered, each shown as
`<field>_set: true` instead. An update may change the display name and give fields of the
same type (those given replace the stored ones; the others are kept); the type itself
never changes. Jobs check that a webhook notification names a destination that exists
(`exists`).
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping
from typing import Any

from workspace_emulator.errors import InvalidParameter, NotFound
from workspace_emulator.storage import Database, from_json, to_json

TABLES = """
CREATE TABLE IF NOT EXISTS notification_destinations (id TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""
# config key -> (its destination_type, its write-only fields, the fields it needs)
TYPES: Mapping[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "email": ("EMAIL", (), ()),
    "slack": ("SLACK", ("url", "channel_id", "oauth_token"), ("url",)),
    "generic_webhook": ("WEBHOOK", ("url", "username", "password"), ("url",)),
    "pagerduty": ("PAGERDUTY", ("integration_key",), ("integration_key",)),
    "microsoft_teams": ("MICROSOFT_TEAMS",
                        ("url", "app_id", "auth_secret", "tenant_id", "channel_url"), ()),
}
URL_FIELDS = ("url", "channel_url")
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def _type_of(config: Any) -> tuple[str, Mapping[str, Any]]:
    if not isinstance(config, Mapping) or len(config) != 1 or next(iter(config)) not in TYPES:
        raise InvalidParameter(
            f"'config' must hold exactly one of {', '.join(TYPES)}.")
    key = next(iter(config))
    fields = config[key]
    if not isinstance(fields, Mapping):
        raise InvalidParameter(f"'config.{key}' must be an object.")
    return key, fields


def _checked(key: str, fields: Mapping[str, Any], creating: bool) -> dict[str, Any]:
    if key == "email":
        addresses = fields.get("addresses")
        if not isinstance(addresses, list) or not addresses or not all(
                isinstance(a, str) and EMAIL.fullmatch(a) for a in addresses):
            raise InvalidParameter("'config.email.addresses' must be a list of e-mail "
                                   "addresses (at least one).")
        return {"addresses": list(addresses)}
    _, secret, required = TYPES[key]
    unknown = [name for name in fields if name not in secret and not name.endswith("_set")]
    if unknown:
        raise InvalidParameter(f"'config.{key}' has no field {unknown[0]!r}; its fields: "
                               f"{', '.join(secret)}.")
    hashed = {}
    for name in secret:
        value = fields.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or not value:
            raise InvalidParameter(f"'config.{key}.{name}' must be a non-empty string.")
        if name in URL_FIELDS and not value.startswith("https://"):
            raise InvalidParameter(f"'config.{key}.{name}' must be an https:// URL.")
        hashed[name] = _sha256(value)
    missing = [name for name in required if name not in hashed]
    if creating and missing:
        raise InvalidParameter(f"'config.{key}.{missing[0]}' is required.")
    return hashed


def _shown(doc: Mapping[str, Any]) -> dict[str, Any]:
    key = doc["config_key"]
    fields = doc["fields"]
    if key == "email":
        config = dict(fields)
    else:
        config = {f"{name}_set": name in fields for name in TYPES[key][1]}
    return {"id": doc["id"], "display_name": doc["display_name"],
            "destination_type": TYPES[key][0], "config": {key: config}}


class NotificationDestinations:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, body: Mapping[str, Any]) -> dict[str, Any]:
        name = body.get("display_name")
        if not isinstance(name, str) or not name.strip():
            raise InvalidParameter("'display_name' is required.")
        key, fields = _type_of(body.get("config"))
        doc = {"id": str(uuid.uuid4()), "display_name": name, "config_key": key,
               "fields": _checked(key, fields, creating=True)}
        with self._db.write() as conn:
            conn.execute("INSERT INTO notification_destinations (id, doc) VALUES (?, ?)",
                         (doc["id"], to_json(doc)))
        return _shown(doc)

    def get(self, destination_id: str) -> dict[str, Any]:
        return _shown(self._doc(destination_id))

    def list(self) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM notification_destinations ORDER BY rowid"
                                ).fetchall()
        return [{k: v for k, v in _shown(from_json(r["doc"])).items() if k != "config"}
                for r in rows]

    def update(self, destination_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        doc = self._doc(destination_id)
        if body.get("display_name") is not None:
            if not isinstance(body["display_name"], str) or not body["display_name"].strip():
                raise InvalidParameter("'display_name' must not be empty.")
            doc["display_name"] = body["display_name"]
        if body.get("config") is not None:
            key, fields = _type_of(body["config"])
            if key != doc["config_key"]:
                raise InvalidParameter(
                    f"A destination's type cannot change: this one is "
                    f"{TYPES[doc['config_key']][0]} (config.{doc['config_key']}), not "
                    f"{TYPES[key][0]}; make a new destination instead.")
            checked = _checked(key, fields, creating=False)
            doc["fields"] = checked if key == "email" else {**doc["fields"], **checked}
        with self._db.write() as conn:
            conn.execute("UPDATE notification_destinations SET doc = ? WHERE id = ?",
                         (to_json(doc), destination_id))
        return _shown(doc)

    def delete(self, destination_id: str) -> None:
        with self._db.write() as conn:
            if not conn.execute("DELETE FROM notification_destinations WHERE id = ?",
                                (destination_id,)).rowcount:
                raise NotFound(f"Notification destination {destination_id} does not exist.")

    def _doc(self, destination_id: str) -> dict[str, Any]:
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM notification_destinations WHERE id = ?",
                               (destination_id,)).fetchone()
        if row is None:
            raise NotFound(f"Notification destination {destination_id} does not exist.")
        return dict(from_json(row["doc"]))
