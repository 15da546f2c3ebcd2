"""The metastores area of the REST API at the workspace level (Unity Catalog 2.1): metastores
(create, read, update, delete), their assignment to workspaces, and the current workspace's
assignment. The account-level API serves the same objects under the account; a stack signs
in to a workspace, so it calls these."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

METASTORES_PATH = "/api/2.1/unity-catalog/metastores"
CURRENT_ASSIGNMENT_PATH = "/api/2.1/unity-catalog/current-metastore-assignment"

Objects = list[dict[str, Any]]


class MetastoresApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"MetastoresApi({self.client!r})"

    def list(self) -> Objects:
        """Every metastore the caller may see, all pages."""
        found: Objects = []
        params: dict[str, Any] = {}
        while True:
            page = self.client.get(METASTORES_PATH, params or None)
            found += page.get("metastores") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {"page_token": token}

    def get(self, metastore_id: str) -> dict[str, Any]:
        return self.client.get(_metastore_path(metastore_id))

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """The metastore made from a create body (`name`, `region`, `storage_root`). Not
        repeated after a lost answer: the kind looks for what it made (create_or_adopt)."""
        return self.client.post(METASTORES_PATH, body)

    def update(self, metastore_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Change the given fields (`new_name`, `owner`, the delta sharing settings,
        `storage_root_credential_id`), keep the rest."""
        return self.client.patch(_metastore_path(metastore_id), fields)

    def delete(self, metastore_id: str, force: bool = False) -> None:
        """Delete the metastore; `force`: with the catalogs it holds."""
        params = {"force": "true"} if force else None
        self.client.request("DELETE", _metastore_path(metastore_id), params=params,
                            idempotent=True)

    def assign(self, workspace_id: int, metastore_id: str, default_catalog_name: str) -> None:
        """Assign the metastore to the workspace (replacing any assignment it has)."""
        self.client.put(_assignment_path(workspace_id), {
            "metastore_id": metastore_id, "default_catalog_name": default_catalog_name})

    def update_assignment(self, workspace_id: int, fields: dict[str, Any]) -> None:
        """Change the workspace's assignment (`metastore_id`, `default_catalog_name`)."""
        self.client.patch(_assignment_path(workspace_id), fields)

    def unassign(self, workspace_id: int, metastore_id: str) -> None:
        self.client.request("DELETE", _assignment_path(workspace_id),
                            params={"metastore_id": metastore_id}, idempotent=True)

    def current_assignment(self) -> dict[str, Any]:
        """The assignment of the workspace the client signs in to."""
        return self.client.get(CURRENT_ASSIGNMENT_PATH)


def _metastore_path(metastore_id: str) -> str:
    return f"{METASTORES_PATH}/{quote(metastore_id, safe='')}"


def _assignment_path(workspace_id: int) -> str:
    return f"/api/2.1/unity-catalog/workspaces/{int(workspace_id)}/metastore"
