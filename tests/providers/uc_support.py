"""Unity Catalog objects the grant and location tests make for themselves on the shared
emulator: a fresh catalog, a storage credential, a service credential, a PATCH whose answer
is lost."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import NotFound, ServerError, WorkspaceClient
from providers.unity_catalog.storage_credentials_api import StorageCredentialsApi

CATALOGS = "/api/2.1/unity-catalog/catalogs"
CREDENTIALS = "/api/2.1/unity-catalog/credentials"
ACCESS_CONNECTOR = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/dp/providers/"
    "Microsoft.Databricks/accessConnectors/uc"
)


def fresh_name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:8]}"


@pytest.fixture
def catalog(client: WorkspaceClient) -> Iterator[str]:
    """A catalog made for the test (with its default schema), removed after it."""
    name = fresh_name("cat")
    client.post(CATALOGS, {"name": name})
    yield name
    with contextlib.suppress(NotFound):
        client.request("DELETE", f"{CATALOGS}/{name}", params={"force": "true"})


@pytest.fixture
def credential(client: WorkspaceClient) -> Iterator[str]:
    """A storage credential made for the test, removed (with its locations) after it."""
    name = fresh_name("cred")
    StorageCredentialsApi(client).create(
        {"name": name, "azure_managed_identity": {"access_connector_id": ACCESS_CONNECTOR}}
    )
    yield name
    with contextlib.suppress(NotFound):
        StorageCredentialsApi(client).delete(name, force=True)


@pytest.fixture
def service_credential(client: WorkspaceClient) -> Iterator[str]:
    """A service credential made for the test (its name in mixed case), removed after it."""
    name = fresh_name("Svc")
    client.post(CREDENTIALS, {"name": name, "purpose": "SERVICE",
                              "azure_managed_identity": {"access_connector_id": ACCESS_CONNECTOR}})
    yield name
    with contextlib.suppress(NotFound):
        client.request("DELETE", f"{CREDENTIALS}/{name}")


def lose_the_answer_to_patch(
    monkeypatch: pytest.MonkeyPatch, path_part: str, times: int = 1
) -> list[str]:
    """The next `times` PATCHes to a path holding `path_part` reach the service, then
    answer 500."""
    real_patch = WorkspaceClient.patch
    lost: list[str] = []

    def patch(self: WorkspaceClient, to: str, body: Any) -> dict[str, Any]:
        answer = real_patch(self, to, body)
        if path_part in to and len(lost) < times:
            lost.append(to)
            raise ServerError(
                status=500, code="INTERNAL_ERROR", message="lost", method="PATCH", path=to
            )
        return answer

    monkeypatch.setattr(WorkspaceClient, "patch", patch)
    return lost
