"""The SQL warehouses area of the REST API: create, edit, get, list, start, stop, delete."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

WAREHOUSES_PATH = "/api/2.0/sql/warehouses"
# Module-level: inside the class `list` names its method.
Objects = list[dict[str, Any]]


class SqlWarehousesApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"SqlWarehousesApi({self.client!r})"

    def list(self) -> Objects:
        found: Objects = []
        params: dict[str, Any] = {}
        while True:
            page = self.client.get(WAREHOUSES_PATH, params or None)
            found += page.get("warehouses") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {"page_token": token}

    def get(self, warehouse_id: str) -> dict[str, Any]:
        return self.client.get(_path(warehouse_id))

    def create(self, settings: dict[str, Any]) -> str:
        """The new warehouse's id (it starts). Not repeated after a lost answer: callers
        look for the warehouse by its name, which is unique."""
        return str(self.client.post(WAREHOUSES_PATH, settings)["id"])

    def edit(self, warehouse_id: str, settings: dict[str, Any]) -> None:
        """Change the given settings, keep the others (a running warehouse whose clusters
        change restarts)."""
        self.client.post(f"{_path(warehouse_id)}/edit", settings, idempotent=True)

    def start(self, warehouse_id: str) -> None:
        self.client.post(f"{_path(warehouse_id)}/start", {}, idempotent=True)

    def stop(self, warehouse_id: str) -> None:
        self.client.post(f"{_path(warehouse_id)}/stop", {}, idempotent=True)

    def delete(self, warehouse_id: str) -> None:
        self.client.delete(_path(warehouse_id))


def _path(warehouse_id: str) -> str:
    return f"{WAREHOUSES_PATH}/{quote(str(warehouse_id), safe='')}"
