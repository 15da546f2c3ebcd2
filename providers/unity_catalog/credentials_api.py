"""Unity Catalog credentials of either purpose (`/credentials`): storage credentials and
service credentials, one namespace (a name is unique among both). The listing by purpose
(what the audit and adopt walk), and create, get, update and delete of one credential by
name (the ServiceCredential kind's calls). The same in both wire forms."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls
from providers.unity_catalog.storage_credentials_api import Objects

CREDENTIALS_PATH = "/api/2.1/unity-catalog/credentials"
PURPOSES = ("SERVICE", "STORAGE")


class CredentialsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"CredentialsApi({self.client!r})"

    def list(self, purpose: str) -> Objects:
        """Every credential of that purpose, every page."""
        if purpose not in PURPOSES:
            raise ValueError(f"purpose must be one of {', '.join(PURPOSES)}; got {purpose!r}")
        found: Objects = []
        params: dict[str, Any] = {"purpose": purpose}
        while True:
            page = self.client.get(CREDENTIALS_PATH, params)
            found += page.get("credentials") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {**params, "page_token": token}

    def get(self, name: str) -> dict[str, Any]:
        """A credential of either purpose (its `purpose` says which)."""
        return self.client.get(_path(name))

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """Not repeated after a lost answer: the kind looks the name up instead."""
        if body.get("purpose") not in PURPOSES:
            raise ValueError(
                f"purpose must be one of {', '.join(PURPOSES)}; got {body.get('purpose')!r}"
            )
        return self.client.post(CREDENTIALS_PATH, body)

    def update(self, name: str, fields: dict[str, Any]) -> dict[str, Any]:
        return self.client.patch(_path(name), fields)

    def delete(self, name: str, force: bool = False) -> None:
        self.client.request("DELETE", _path(name), params={"force": "true"} if force else None)


def _path(name: str) -> str:
    return f"{CREDENTIALS_PATH}/{quote(name, safe='')}"
