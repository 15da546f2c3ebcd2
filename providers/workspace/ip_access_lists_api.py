"""The IP access lists area of the REST API."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

IP_ACCESS_LISTS_PATH = "/api/2.0/ip-access-lists"
# Names the class's own `list` method would shadow in its annotations.
Addresses = list[str]


class IpAccessListsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"IpAccessListsApi({self.client!r})"

    def list(self) -> list[dict[str, Any]]:
        return self.client.get(IP_ACCESS_LISTS_PATH).get("ip_access_lists") or []

    def get(self, list_id: str) -> dict[str, Any]:
        return self.client.get(_path(list_id)).get("ip_access_list") or {}

    def create(self, label: str, list_type: str, ip_addresses: Addresses) -> dict[str, Any]:
        """The list made (enabled). Not repeated after a lost answer: labels need not be
        unique, so a second try would make a second list."""
        body = {"label": label, "list_type": list_type, "ip_addresses": ip_addresses}
        return self.client.post(IP_ACCESS_LISTS_PATH, body).get("ip_access_list") or {}

    def update(self, list_id: str, fields: dict[str, Any]) -> None:
        """Change the given fields (label, list_type, ip_addresses, enabled), keep the rest."""
        self.client.patch(_path(list_id), fields)

    def delete(self, list_id: str) -> None:
        self.client.delete(_path(list_id))


def _path(list_id: str) -> str:
    return f"{IP_ACCESS_LISTS_PATH}/{quote(str(list_id), safe='')}"
