"""The volumes area of the REST API (Unity Catalog): a schema's volumes, addressed by
their full name `catalog.schema.volume`."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls
from providers.unity_catalog.schemas_api import Objects, every_page

VOLUMES_PATH = "/api/2.1/unity-catalog/volumes"


class VolumesApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"VolumesApi({self.client!r})"

    def list(self, catalog_name: str, schema_name: str) -> Objects:
        """Every volume of the schema the caller may see, all pages."""
        params = {"catalog_name": catalog_name, "schema_name": schema_name}
        return every_page(self.client, VOLUMES_PATH, "volumes", params)

    def get(self, full_name: str) -> dict[str, Any]:
        return self.client.get(_volume_path(full_name))

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """The volume made from a create body (`catalog_name`, `schema_name`, `name`,
        `volume_type`, ...). Not repeated after a lost answer (create_or_adopt)."""
        return self.client.post(VOLUMES_PATH, body)

    def update(self, full_name: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Change the given fields (`comment`, `owner`, `new_name`)."""
        return self.client.patch(_volume_path(full_name), fields)

    def delete(self, full_name: str) -> None:
        self.client.delete(_volume_path(full_name))


def _volume_path(full_name: str) -> str:
    return f"{VOLUMES_PATH}/{quote(full_name, safe='')}"
