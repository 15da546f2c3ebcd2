"""Workspace settings (`/api/2.0/workspace-conf`): a fixed set of named keys, each a string.

Only the keys listed here are known: a read or a change naming another is refused, and the
message names it. Switches take "true" or "false" (any case; kept in lower case); numbers
are digits. Each key has the value a new workspace has until an admin changes it, and a
key that holds no value reads as null. `enableIpAccessLists` is the IP access lists' own
switch (areas/ip_access_lists keeps it and refuses turning it on while the lists would
block the caller); `maxTokenLifetimeDays` and `enableTokensConfig` are honoured by the
personal tokens area.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from workspace_emulator.errors import InvalidParameter
from workspace_emulator.platform.areas.workspace.ip_access_lists.model import (
    FEATURE_KEY,
    IpAccessLists,
)
from workspace_emulator.storage import Database

META_PREFIX = "workspace_conf."
TABLES = ""  # the values live in the database's `meta` table
MAX_TOKEN_LIFETIME_DAYS = 730


def _switch(key: str, value: str) -> str:
    if value.lower() not in ("true", "false"):
        raise InvalidParameter(
            f"Invalid value for workspace setting '{key}': {value!r}; it takes \"true\" or "
            "\"false\".")
    return value.lower()


def _lifetime_days(key: str, value: str) -> str | None:
    if value == "":
        return None  # no maximum of its own: the service's (730 days) holds
    if not value.isdigit() or not 1 <= int(value) <= MAX_TOKEN_LIFETIME_DAYS:
        raise InvalidParameter(
            f"Invalid value for workspace setting '{key}': {value!r}; it takes a whole "
            f"number of days from 1 to {MAX_TOKEN_LIFETIME_DAYS}, or \"\" for no maximum "
            "of the workspace's own.")
    return str(int(value))


@dataclass(frozen=True)
class Setting:
    default: str | None
    parse: Callable[[str, str], str | None]


SETTINGS: Mapping[str, Setting] = {
    FEATURE_KEY: Setting("false", _switch),
    "enableTokensConfig": Setting("true", _switch),
    "maxTokenLifetimeDays": Setting(None, _lifetime_days),
    "enableResultsDownloading": Setting("true", _switch),
    "enableExportNotebook": Setting("true", _switch),
    "enableNotebookTableClipboard": Setting("true", _switch),
    "enableUploadDataUis": Setting("true", _switch),
    "enableWebTerminal": Setting("false", _switch),
    "enableDbfsFileBrowser": Setting("false", _switch),
    "enableVerboseAuditLogs": Setting("false", _switch),
}


def _unknown(keys: list[str]) -> None:
    unknown = [key for key in keys if key not in SETTINGS]
    if unknown:
        raise InvalidParameter(
            f"Unknown workspace setting{'s' if len(unknown) > 1 else ''}: "
            f"{', '.join(repr(k) for k in unknown)}. Known settings: {', '.join(SETTINGS)}.")


class WorkspaceConf:
    def __init__(self, db: Database, ip_access_lists: IpAccessLists) -> None:
        self._db = db
        self._ip_access_lists = ip_access_lists

    def value(self, key: str) -> str | None:
        """The key's value as the API shows it (null where it holds none)."""
        if key == FEATURE_KEY:
            return str(self._ip_access_lists.feature_enabled()).lower()
        stored = self._db.get_meta(META_PREFIX + key)
        return SETTINGS[key].default if stored is None else (stored or None)

    def get(self, keys: list[str]) -> dict[str, str | None]:
        if not keys:
            raise InvalidParameter("'keys' is required: a comma-separated list of settings.")
        _unknown(keys)
        return {key: self.value(key) for key in keys}

    def set(self, body: Mapping[str, Any], caller_address: str) -> None:
        """Every key checked before any is changed; the IP access list switch first, since
        turning it on is refused while the lists would block the caller."""
        _unknown(list(body))
        parsed: dict[str, str | None] = {}
        for key, value in body.items():
            if not isinstance(value, str):
                raise InvalidParameter(
                    f"Invalid value for workspace setting '{key}': values are strings "
                    f"(\"true\", \"30\"), not {type(value).__name__}.")
            parsed[key] = SETTINGS[key].parse(key, value)
        if FEATURE_KEY in parsed:
            self._ip_access_lists.set_feature(parsed.pop(FEATURE_KEY) == "true", caller_address)
        with self._db.write() as conn:
            for key, value in parsed.items():
                # "" marks a value cleared (the key reads as null, not as its default).
                self._db.set_meta(conn, META_PREFIX + key, "" if value is None else value)

    def max_token_lifetime_days(self) -> int | None:
        value = self.value("maxTokenLifetimeDays")
        return int(value) if value else None

    def tokens_enabled(self) -> bool:
        return self.value("enableTokensConfig") == "true"
