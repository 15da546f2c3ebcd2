"""The tables (views and materialized views among them) and functions of Unity Catalog's
schemas as the grants' listing reads them, by full name. No kind manages them; Grants and
Grant name them, and the audit finds the ones with direct grants."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls
from providers.unity_catalog.schemas_api import every_page

UC_PATH = "/api/2.1/unity-catalog"
# securable type -> (the list's path under UC_PATH, its key in the answer)
LISTS = {"table": ("tables", "tables"), "function": ("functions", "functions")}


class SchemaObjectsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"SchemaObjectsApi({self.client!r})"

    def list(self, securable_type: str, catalog_name: str, schema_name: str) -> list[str]:
        """The full names of the schema's tables (or functions), all pages."""
        path, key = LISTS[securable_type]
        found: list[dict[str, Any]] = every_page(
            self.client, f"{UC_PATH}/{path}", key,
            {"catalog_name": catalog_name, "schema_name": schema_name})
        return [str(item.get("full_name") or f"{catalog_name}.{schema_name}.{item['name']}")
                for item in found]
