"""The schemas area of the REST API (Unity Catalog): a catalog's schemas, addressed by
their full name `catalog.schema`."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

SCHEMAS_PATH = "/api/2.1/unity-catalog/schemas"

Objects = list[dict[str, Any]]


class SchemasApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"SchemasApi({self.client!r})"

    def list(self, catalog_name: str) -> Objects:
        """Every schema of the catalog the caller may see, all pages."""
        return every_page(self.client, SCHEMAS_PATH, "schemas", {"catalog_name": catalog_name})

    def get(self, full_name: str) -> dict[str, Any]:
        return self.client.get(_schema_path(full_name))

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """The schema made from a create body (`name`, `catalog_name`, ...). Not repeated
        after a lost answer: the kind looks for what it made (create_or_adopt)."""
        return self.client.post(SCHEMAS_PATH, body)

    def update(self, full_name: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Change the given fields (`comment`, `properties`, `owner`, `new_name`)."""
        return self.client.patch(_schema_path(full_name), fields)

    def delete(self, full_name: str, force: bool = False) -> None:
        """Delete the schema; `force`: with everything it holds."""
        params = {"force": "true"} if force else None
        self.client.request("DELETE", _schema_path(full_name), params=params, idempotent=True)


def _schema_path(full_name: str) -> str:
    return f"{SCHEMAS_PATH}/{quote(full_name, safe='')}"


def every_page(client: Calls, path: str, key: str, params: dict[str, Any]) -> Objects:
    """The `key` list of every page of a Unity Catalog listing (`next_page_token`)."""
    found: Objects = []
    query = dict(params)
    while True:
        page = client.get(path, query)
        found += page.get(key) or []
        token = page.get("next_page_token")
        if not token:
            return found
        query = {**params, "page_token": token}
