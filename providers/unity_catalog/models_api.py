"""The registered models of Unity Catalog as the grants' listing reads them: a catalog's
models, by full name. The kind that manages them, and its client area, are the ml domain's
(providers/ml); this domain only lists them for their grants."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls
from providers.unity_catalog.schemas_api import Objects, every_page

MODELS_PATH = "/api/2.1/unity-catalog/models"


class ModelsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ModelsApi({self.client!r})"

    def list(self, catalog_name: str) -> Objects:
        """Every model of the catalog the caller may see, all pages."""
        found: list[dict[str, Any]] = every_page(
            self.client, MODELS_PATH, "registered_models", {"catalog_name": catalog_name})
        return found
