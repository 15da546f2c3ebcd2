"""Helpers of the Unity Catalog provider tests: fresh names, catalogs and schemas made for a
test, and an external location to put storage roots and external volumes under."""

from __future__ import annotations

import uuid

from providers.client import WorkspaceClient
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.schemas_api import SchemasApi
from tests.emulator.support import Api
from workspace_emulator.testing import EmulatorInfo, fetch_token

UC = "/api/2.1/unity-catalog"
CONNECTOR = (
    "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Databricks/accessConnectors/uc"
)


def fresh(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


def make_catalog(client: WorkspaceClient) -> str:
    """A catalog made for the test (its `default` schema with it)."""
    return str(CatalogsApi(client).create({"name": fresh("cat")})["name"])


def make_schema(client: WorkspaceClient, catalog: str) -> str:
    """The full name of a schema made for the test in `catalog`."""
    return str(
        SchemasApi(client).create({"name": fresh("sch"), "catalog_name": catalog})["full_name"]
    )


def external_location(emulator: EmulatorInfo) -> str:
    """The URL of a new external location (and its storage credential), made over the API."""
    api = Api(emulator.base_url, fetch_token(emulator))
    credential = api.post(
        f"{UC}/storage-credentials",
        json={
            "name": fresh("cred"),
            "azure_managed_identity": {"access_connector_id": CONNECTOR},
        },
    )
    assert credential.status_code == 200, credential.text
    url = f"abfss://lake@emulated.dfs.core.windows.net/{fresh('loc')}"
    location = api.post(
        f"{UC}/external-locations",
        json={
            "name": fresh("loc"),
            "url": url,
            "credential_name": credential.json()["name"],
        },
    )
    assert location.status_code == 200, location.text
    return url
