"""The IP access lists area of the REST API (read only: lookups list them)."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls

IP_ACCESS_LISTS_PATH = "/api/2.0/ip-access-lists"


class IpAccessListsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"IpAccessListsApi({self.client!r})"

    def list(self) -> list[dict[str, Any]]:
        return self.client.get(IP_ACCESS_LISTS_PATH).get("ip_access_lists") or []
