"""Delta Sharing's shares, recipients and providers as the grants' listing reads them, by
name. No kind manages them; Grants and Grant name them, and the audit finds the ones with
direct grants."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls
from providers.unity_catalog.schemas_api import every_page

UC_PATH = "/api/2.1/unity-catalog"
# securable type -> the list's path under UC_PATH, which is also its key in the answer
LISTS = {"share": "shares", "recipient": "recipients", "provider": "providers"}


class SharingApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"SharingApi({self.client!r})"

    def list(self, securable_type: str) -> list[str]:
        """The names of the metastore's shares (or recipients, or providers), all pages."""
        path = LISTS[securable_type]
        found: list[dict[str, Any]] = every_page(self.client, f"{UC_PATH}/{path}", path, {})
        return [str(item["name"]) for item in found]
