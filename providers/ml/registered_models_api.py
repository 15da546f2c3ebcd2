"""The registered models area of the REST API (Unity Catalog 2.1): a schema's models,
addressed by their full name `catalog.schema.model`, their aliases and their versions."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

MODELS_PATH = "/api/2.1/unity-catalog/models"
# Module-level: inside the class `list` names its method.
Objects = list[dict[str, Any]]


class RegisteredModelsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"RegisteredModelsApi({self.client!r})"

    def list(self, catalog_name: str | None = None, schema_name: str | None = None
             ) -> Objects:
        """Every model the caller may see (of a catalog, or of one of its schemas), all
        pages."""
        params = {key: value for key, value in (("catalog_name", catalog_name),
                                                ("schema_name", schema_name)) if value}
        return self._pages(MODELS_PATH, "registered_models", params)

    def get(self, full_name: str) -> dict[str, Any]:
        """The model with its aliases."""
        return self.client.get(_model_path(full_name), {"include_aliases": "true"})

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """The model made from a create body (`catalog_name`, `schema_name`, `name`, ...).
        Not repeated after a lost answer: the kind looks for what it made (create_or_adopt)."""
        return self.client.post(MODELS_PATH, body)

    def update(self, full_name: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Change the given fields (`comment`, `owner`, `new_name`)."""
        return self.client.patch(_model_path(full_name), fields)

    def delete(self, full_name: str) -> None:
        self.client.delete(_model_path(full_name))

    def set_alias(self, full_name: str, alias: str, version: int) -> dict[str, Any]:
        return self.client.put(_alias_path(full_name, alias), {"version_num": version})

    def delete_alias(self, full_name: str, alias: str) -> None:
        self.client.delete(_alias_path(full_name, alias))

    def versions(self, full_name: str) -> Objects:
        """Every version of the model, all pages."""
        return self._pages(f"{_model_path(full_name)}/versions", "model_versions", {})

    def _pages(self, path: str, key: str, params: dict[str, Any]) -> Objects:
        found: Objects = []
        query = dict(params)
        while True:
            page = self.client.get(path, query or None)
            found += page.get(key) or []
            token = page.get("next_page_token")
            if not token:
                return found
            query = {**params, "page_token": token}


def _model_path(full_name: str) -> str:
    return f"{MODELS_PATH}/{quote(full_name, safe='')}"


def _alias_path(full_name: str, alias: str) -> str:
    return f"{_model_path(full_name)}/aliases/{quote(alias, safe='')}"
