"""The typed workspace settings (`/api/2.0/settings/types/<type>/names/default`): one
message per setting type, each with an etag that changes at every write.

A setting never written reads as a new workspace's default. A PATCH (`allow_missing`,
`field_mask`, `setting` with its `etag`) changes the masked fields of the setting's
message; an etag other than the current one is refused (409 RESOURCE_CONFLICT, the
service's answer to a concurrent write), and so is a masked field the type does not have.
A DELETE (with the current etag, where the type has a delete) gives back the default.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from workspace_emulator.errors import InvalidParameter, NotFound, ResourceConflict
from workspace_emulator.storage import Database

META_PREFIX = "settings."
TABLES = ""  # the values live in the database's `meta` table


def _boolean(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise InvalidParameter(f"Invalid value for '{name}': {value!r}; it takes true or false.")


def _text(name: str, value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise InvalidParameter(f"Invalid value for '{name}': {value!r}; it takes a non-empty "
                               "string.")


def _one_of(*allowed: str) -> Callable[[str, Any], None]:
    def check(name: str, value: Any) -> None:
        if value not in allowed:
            raise InvalidParameter(f"Invalid value for '{name}': {value!r}; it takes one of "
                                   f"{', '.join(allowed)}.")
    return check


def _standards(name: str, value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InvalidParameter(f"Invalid value for '{name}': a list of compliance standards.")


def _domains(name: str, value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InvalidParameter(f"Invalid value for '{name}': a list of domain names.")


@dataclass(frozen=True)
class SettingType:
    message: str  # the field of the setting that holds its message
    default: Mapping[str, Any]
    fields: Mapping[str, Callable[[str, Any], None]]
    deletable: bool = True
    read_only: frozenset[str] = field(default_factory=frozenset)


BOOLEAN = {"value": _boolean}
SETTING_TYPES: Mapping[str, SettingType] = {
    "default_namespace_ws": SettingType("namespace", {}, {"value": _text}),
    "default_warehouse_id": SettingType("string_val", {}, {"value": _text}),
    "restrict_workspace_admins": SettingType(
        "restrict_workspace_admins", {"status": "ALLOW_ALL"},
        {"status": _one_of("ALLOW_ALL", "RESTRICT_TOKENS_AND_JOB_RUN_AS"),
         "disable_gov_tag_creation": _boolean}),
    "disable_legacy_access": SettingType("disable_legacy_access", {"value": False}, BOOLEAN),
    "disable_legacy_dbfs": SettingType("disable_legacy_dbfs", {"value": False}, BOOLEAN),
    "sql_results_download": SettingType("boolean_val", {"value": True}, BOOLEAN),
    "dashboard_email_subscriptions": SettingType("boolean_val", {"value": True}, BOOLEAN),
    "llm_proxy_partner_powered": SettingType("boolean_val", {"value": True}, BOOLEAN),
    "aibi_dash_embed_ws_acc_policy": SettingType(
        "aibi_dashboard_embedding_access_policy", {"access_policy_type": "ALLOW_APPROVED_DOMAINS"},
        {"access_policy_type": _one_of("ALLOW_ALL_DOMAINS", "ALLOW_APPROVED_DOMAINS",
                                       "DENY_ALL_DOMAINS")}),
    "aibi_dash_embed_ws_apprvd_domains": SettingType(
        "aibi_dashboard_embedding_approved_domains", {"approved_domains": []},
        {"approved_domains": _domains}),
    # No delete: a PATCH writes the default back.
    "automatic_cluster_update": SettingType(
        "automatic_cluster_update_workspace",
        {"enabled": False, "can_toggle": True, "restart_even_if_no_updates_available": False},
        {"enabled": _boolean, "restart_even_if_no_updates_available": _boolean},
        deletable=False, read_only=frozenset({"can_toggle"})),
    "shield_csp_enablement_ws_db": SettingType(
        "compliance_security_profile_workspace", {"is_enabled": False, "compliance_standards": []},
        {"is_enabled": _boolean, "compliance_standards": _standards}, deletable=False),
    "shield_esm_enablement_ws_db": SettingType(
        "enhanced_security_monitoring_workspace", {"is_enabled": False},
        {"is_enabled": _boolean}, deletable=False),
}


def _etag(type_name: str, version: int) -> str:
    return hashlib.sha256(f"{type_name}:{version}".encode()).hexdigest()[:24]


class TypedSettings:
    def __init__(self, db: Database) -> None:
        self._db = db

    def get(self, type_name: str) -> dict[str, Any]:
        kind = _type(type_name)
        stored = self._stored(type_name)
        message = dict(kind.default) if stored["message"] is None else stored["message"]
        return {"setting_name": "default", "etag": _etag(type_name, stored["version"]),
                kind.message: message}

    def update(self, type_name: str, body: Mapping[str, Any]) -> dict[str, Any]:
        kind = _type(type_name)
        if body.get("allow_missing") is not True:
            raise InvalidParameter("'allow_missing' must be true for the settings API.")
        setting = body.get("setting")
        if not isinstance(setting, Mapping):
            raise InvalidParameter("'setting' is required: the setting with its etag.")
        given = setting.get(kind.message)
        if not isinstance(given, Mapping):
            raise InvalidParameter(f"'setting.{kind.message}' is required.")
        masked = _masked(kind, str(body.get("field_mask") or ""))
        with self._db.write() as conn:
            stored = self._stored(type_name)
            self._check_etag(type_name, stored["version"], setting.get("etag"))
            message = dict(kind.default) if stored["message"] is None else dict(stored["message"])
            for name in masked:
                if name in given:
                    kind.fields[name](f"setting.{kind.message}.{name}", given[name])
                    message[name] = given[name]
                else:
                    message.pop(name, None)
            self._db.set_meta(conn, META_PREFIX + type_name,
                              {"version": stored["version"] + 1, "message": message})
        return self.get(type_name)

    def delete(self, type_name: str, etag: str | None) -> dict[str, Any]:
        kind = _type(type_name)
        if not kind.deletable:
            raise NotFound(f"Setting type '{type_name}' has no DELETE; PATCH its default.")
        with self._db.write() as conn:
            stored = self._stored(type_name)
            self._check_etag(type_name, stored["version"], etag)
            self._db.set_meta(conn, META_PREFIX + type_name,
                              {"version": stored["version"] + 1, "message": None})
        return {"etag": _etag(type_name, stored["version"] + 1)}

    def _stored(self, type_name: str) -> dict[str, Any]:
        return self._db.get_meta(META_PREFIX + type_name) or {"version": 0, "message": None}

    @staticmethod
    def _check_etag(type_name: str, version: int, etag: Any) -> None:
        if etag is not None and etag != _etag(type_name, version):
            raise ResourceConflict(
                f"The setting '{type_name}' was changed since etag {etag!r} was read: read it "
                "again (GET) and retry with the fresh etag.")


def _type(type_name: str) -> SettingType:
    try:
        return SETTING_TYPES[type_name]
    except KeyError:
        raise NotFound(f"Setting type '{type_name}' does not exist.") from None


def _masked(kind: SettingType, field_mask: str) -> list[str]:
    """The message's fields a field mask names (`*`: every field)."""
    if not field_mask:
        raise InvalidParameter("'field_mask' is required (e.g. "
                               f"'{kind.message}.{next(iter(kind.fields))}').")
    if field_mask == "*":
        return list(kind.fields)
    names = []
    for path in field_mask.split(","):
        head, _, name = path.strip().partition(".")
        if head != kind.message or name not in kind.fields:
            raise InvalidParameter(
                f"Invalid field_mask path {path!r}: the paths are "
                f"{', '.join(f'{kind.message}.{n}' for n in kind.fields)}.")
        names.append(name)
    return names
