"""Unity Catalog external locations: a storage URL and the storage credential that reaches
it. The same in both wire forms."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls
from providers.unity_catalog.storage_credentials_api import Objects, _every_page

EXTERNAL_LOCATIONS_PATH = "/api/2.1/unity-catalog/external-locations"


class ExternalLocationsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ExternalLocationsApi({self.client!r})"

    def list(self) -> Objects:
        return _every_page(self.client, EXTERNAL_LOCATIONS_PATH, "external_locations")

    def get(self, name: str) -> dict[str, Any]:
        return self.client.get(_path(name))

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """Not repeated after a lost answer: the kind looks the name up instead."""
        return self.client.post(EXTERNAL_LOCATIONS_PATH, body)

    def update(self, name: str, fields: dict[str, Any]) -> dict[str, Any]:
        return self.client.patch(_path(name), fields)

    def delete(self, name: str, force: bool = False) -> None:
        self.client.request("DELETE", _path(name), params={"force": "true"} if force else None)


def _path(name: str) -> str:
    return f"{EXTERNAL_LOCATIONS_PATH}/{quote(name, safe='')}"
