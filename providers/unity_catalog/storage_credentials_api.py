"""Unity Catalog storage credentials: the cloud identities external locations reach storage
with. A credential's secret (an Azure service principal's client secret) is sent, never
answered. The same in both wire forms."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

STORAGE_CREDENTIALS_PATH = "/api/2.1/unity-catalog/storage-credentials"

Objects = list[dict[str, Any]]


class StorageCredentialsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"StorageCredentialsApi({self.client!r})"

    def list(self) -> Objects:
        return _every_page(self.client, STORAGE_CREDENTIALS_PATH, "storage_credentials")

    def get(self, name: str) -> dict[str, Any]:
        return self.client.get(_path(name))

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """Not repeated after a lost answer: the kind looks the name up instead."""
        return self.client.post(STORAGE_CREDENTIALS_PATH, body)

    def update(self, name: str, fields: dict[str, Any]) -> dict[str, Any]:
        return self.client.patch(_path(name), fields)

    def delete(self, name: str, force: bool = False) -> None:
        self.client.request("DELETE", _path(name), params={"force": "true"} if force else None)


def _path(name: str) -> str:
    return f"{STORAGE_CREDENTIALS_PATH}/{quote(name, safe='')}"


def _every_page(client: Calls, path: str, key: str) -> Objects:
    found: Objects = []
    params: dict[str, Any] = {}
    while True:
        page = client.get(path, params or None)
        found += page.get(key) or []
        token = page.get("next_page_token")
        if not token:
            return found
        params = {"page_token": token}
