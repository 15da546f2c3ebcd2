"""The Lakeview area of the REST API (/api/2.0/lakeview/dashboards): a dashboard's draft
(create, get, list, update, trash) and its published copy (publish, get, unpublish)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

DASHBOARDS_PATH = "/api/2.0/lakeview/dashboards"
Objects = list[dict[str, Any]]


class LakeviewApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"LakeviewApi({self.client!r})"

    def list(self) -> Objects:
        """Every dashboard not in the trash (without its content), all pages."""
        found: Objects = []
        params: dict[str, Any] = {"page_size": 100}
        while True:
            page = self.client.get(DASHBOARDS_PATH, params)
            found += page.get("dashboards") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {"page_size": 100, "page_token": token}

    def get(self, dashboard_id: str) -> dict[str, Any]:
        return self.client.get(_path(dashboard_id))

    def create(self, dashboard: dict[str, Any]) -> dict[str, Any]:
        """The draft made (display_name, parent_path, serialized_dashboard, warehouse_id).
        Not repeated after a lost answer (create_or_adopt)."""
        return self.client.post(DASHBOARDS_PATH, dashboard)

    def update(self, dashboard_id: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Change the given fields of the draft (display_name, serialized_dashboard,
        warehouse_id; with `etag`, only if it is the current one)."""
        return self.client.patch(_path(dashboard_id), fields)

    def trash(self, dashboard_id: str) -> None:
        self.client.delete(_path(dashboard_id))

    def publish(self, dashboard_id: str, embed_credentials: bool | None,
                warehouse_id: str | None) -> dict[str, Any]:
        """Publish the draft as it is now (again, where it was published before)."""
        body = {"embed_credentials": embed_credentials, "warehouse_id": warehouse_id}
        return self.client.post(f"{_path(dashboard_id)}/published",
                                {k: v for k, v in body.items() if v is not None},
                                idempotent=True)

    def get_published(self, dashboard_id: str) -> dict[str, Any]:
        return self.client.get(f"{_path(dashboard_id)}/published")

    def unpublish(self, dashboard_id: str) -> None:
        self.client.delete(f"{_path(dashboard_id)}/published")


def _path(dashboard_id: str) -> str:
    return f"{DASHBOARDS_PATH}/{quote(str(dashboard_id), safe='')}"
