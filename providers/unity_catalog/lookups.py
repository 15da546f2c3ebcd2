"""Lookups of Unity Catalog: a catalog's bindings. (providers/lookups/__init__.py says what a
lookup is.)"""

from __future__ import annotations

import pulumi
from pydantic import Field

from providers.client import (
    NotFound,
    WorkspaceClient,
)
from providers.core.lookup import (
    LookupResult,
    Result,
    exactly_one,
    found_nothing,
    lookup_output,
)
from providers.unity_catalog.catalogs_api import CatalogsApi


def get_catalog_bindings(
    connection: pulumi.Input[dict], *, catalog: pulumi.Input[str]
) -> pulumi.Output[Result]:
    """A catalog's isolation mode and workspace bindings (which count only while it is
    ISOLATED)."""
    exactly_one("get_catalog_bindings", catalog=catalog)
    return lookup_output(connection, find_catalog_bindings, catalog=catalog)


def find_catalog_bindings(client: WorkspaceClient, *, catalog: str) -> Result:
    try:
        info = CatalogsApi(client).get(catalog)
        bindings = CatalogsApi(client).get_bindings(catalog)
    except NotFound:
        raise found_nothing(client, f"catalog named {catalog!r}") from None
    return CatalogBindingsInfo(
        catalog=catalog,
        isolation_mode=info.get("isolation_mode"),
        bindings=[CatalogBindingInfo.model_validate(b) for b in bindings],
    ).as_output()


class CatalogBindingInfo(LookupResult):
    workspace_id: int
    binding_type: str


class CatalogBindingsInfo(LookupResult):
    catalog: str
    isolation_mode: str | None = None
    bindings: list[CatalogBindingInfo] = Field(default_factory=list)
