"""The tables (views and materialized views among them) and functions of Unity Catalog's
schemas, and Delta Sharing's shares, recipients and providers, as the grants' listing reads
them: by full name (a schema's objects) or name. No kind manages them; Grants and Grant name
them, and the audit finds the ones with direct grants."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from providers.client.calls import Calls
from providers.unity_catalog.schemas_api import every_page

UC_PATH = "/api/2.1/unity-catalog"
# securable type -> (the list's path under UC_PATH, its key in the answer)
IN_SCHEMAS = {"table": ("tables", "tables"), "function": ("functions", "functions")}
BESIDE_CATALOGS = {"share": ("shares", "shares"), "recipient": ("recipients", "recipients"),
                   "provider": ("providers", "providers")}


def in_schemas(client: Calls, securable_type: str, schemas: Iterable[str]) -> Iterator[str]:
    """The full names of the tables (or functions) of those schemas: one call per schema."""
    path, key = IN_SCHEMAS[securable_type]
    for schema in schemas:
        catalog, name = schema.split(".", 1)
        found: list[dict[str, Any]] = every_page(
            client, f"{UC_PATH}/{path}", key, {"catalog_name": catalog, "schema_name": name})
        for item in found:
            yield str(item.get("full_name") or f"{schema}.{item['name']}")


def beside_catalogs(client: Calls, securable_type: str) -> Iterator[str]:
    """The names of the metastore's shares (or recipients, or providers)."""
    path, key = BESIDE_CATALOGS[securable_type]
    found: list[dict[str, Any]] = every_page(client, f"{UC_PATH}/{path}", key, {})
    return (str(item["name"]) for item in found)
