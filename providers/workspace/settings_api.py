"""The typed workspace settings area of the REST API: one setting per type, read, changed
and (for most types) deleted at `/api/2.0/settings/types/<type>/names/default`, each write
carrying the etag the last read gave."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

SETTINGS_PATH = "/api/2.0/settings/types"


class SettingsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"SettingsApi({self.client!r})"

    def get(self, type_name: str) -> dict[str, Any]:
        """The setting: `{setting_name, etag, <its message field>: {...}}`."""
        return self.client.get(_path(type_name))

    def update(self, type_name: str, setting: dict[str, Any], field_mask: str) -> dict[str, Any]:
        """Change the masked fields (`<message>.<field>`, comma-separated); `setting` holds
        the etag of the last read. Refused (409 RESOURCE_CONFLICT) where it is stale."""
        return self.client.patch(_path(type_name), {"allow_missing": True, "setting": setting,
                                                    "field_mask": field_mask})

    def delete(self, type_name: str, etag: str | None) -> dict[str, Any]:
        """The service's default back; refused where the etag is stale, as update."""
        return self.client.request("DELETE", _path(type_name),
                                   params=None if etag is None else {"etag": etag},
                                   idempotent=True)


def _path(type_name: str) -> str:
    return f"{SETTINGS_PATH}/{quote(type_name, safe='')}/names/default"
