"""The connections area of the REST API (Unity Catalog 2.1): the connections foreign
catalogs federate (create, read, update, delete). An update sends the whole map of options,
credentials included."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

CONNECTIONS_PATH = "/api/2.1/unity-catalog/connections"

Objects = list[dict[str, Any]]


class ConnectionsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ConnectionsApi({self.client!r})"

    def list(self) -> Objects:
        """Every connection the caller may see, all pages."""
        found: Objects = []
        params: dict[str, Any] = {}
        while True:
            page = self.client.get(CONNECTIONS_PATH, params or None)
            found += page.get("connections") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {"page_token": token}

    def get(self, name: str) -> dict[str, Any]:
        return self.client.get(_connection_path(name))

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """The connection made from a create body (`name`, `connection_type`, `options`,
        ...). Not repeated after a lost answer: the kind looks for what it made."""
        return self.client.post(CONNECTIONS_PATH, body)

    def update(self, name: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Change `options` (always sent, the whole map), `owner` or `new_name`."""
        return self.client.patch(_connection_path(name), fields)

    def delete(self, name: str) -> None:
        self.client.request("DELETE", _connection_path(name), idempotent=True)


def _connection_path(name: str) -> str:
    return f"{CONNECTIONS_PATH}/{quote(name, safe='')}"
