"""Metastore, MetastoreAssignment and MetastoreDataAccess against the emulator: create,
read, update in place (owner, delta sharing, the default catalog, the root credential),
drift, import with no diff, delete (a metastore holding catalogs refused unless
force_destroy), and a metastore whose create answer was lost adopted, not made twice.
Tests that assign this workspace give it back the initial metastore after."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import InvalidState, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.metastore import MetastoreProvider
from providers.unity_catalog.metastore_assignment import MetastoreAssignmentProvider
from providers.unity_catalog.metastore_data_access import MetastoreDataAccessProvider
from providers.unity_catalog.metastores_api import METASTORES_PATH, MetastoresApi
from providers.unity_catalog.storage_credentials_api import StorageCredentialsApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.unity_catalog import CONNECTOR, fresh

INITIAL_METASTORE = "9ce88c25-f4f8-47ae-80f8-5d90271e193b"
WORKSPACE_ID = 1234567890123456
OTHER_WORKSPACE_ID = 3456789012345678
ROOT = "abfss://metastore@lake.dfs.core.windows.net/root"


@pytest.fixture
def provider() -> MetastoreProvider:
    return MetastoreProvider()


@pytest.fixture
def assignments() -> MetastoreAssignmentProvider:
    return MetastoreAssignmentProvider()


@pytest.fixture
def data_access() -> MetastoreDataAccessProvider:
    return MetastoreDataAccessProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {"name": fresh("meta"), "region": "northeurope", "storage_root": ROOT + "/",
            CONNECTION_KEY: connection}


@pytest.fixture
def metastore(provider, props, client) -> Iterator[str]:
    """The id of a metastore made for the test (deleted after, with what it holds)."""
    made = provider.create(props)
    yield made.id
    MetastoresApi(client).delete(made.id, force=True)


@pytest.fixture
def initial_metastore_given_back(client: WorkspaceClient) -> Iterator[None]:
    yield
    MetastoresApi(client).assign(WORKSPACE_ID, INITIAL_METASTORE, "hive_metastore")


def test_create_read_update_delete(provider, props, client) -> None:
    made = provider.create(props)
    found = MetastoresApi(client).get(made.id)
    assert (found["name"], found["region"], found["storage_root"]) == (
        props["name"], "northeurope", ROOT)
    assert made.outs["metastore_id"] == made.id and made.outs["storage_root"] == ROOT
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "owner": "data-engineers", "delta_sharing_scope":
               "INTERNAL_AND_EXTERNAL", "delta_sharing_recipient_token_lifetime_in_seconds": 600}
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {
        "owner", "delta_sharing_scope", "delta_sharing_recipient_token_lifetime_in_seconds"}
    assert not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    found = MetastoresApi(client).get(made.id)
    assert (found["owner"], found["delta_sharing_scope"],
            found["delta_sharing_recipient_token_lifetime_in_seconds"]) == (
        "data-engineers", "INTERNAL_AND_EXTERNAL", 600)
    assert not provider.diff(made.id, updated.outs, changed).changes

    # Drift: another owner set outside the stack is seen by a refresh.
    MetastoresApi(client).update(made.id, {"owner": "admins"})
    drifted = provider.read(made.id, updated.outs)
    assert provider.diff(made.id, drifted.outs, changed).changed_keys == ["owner"]

    assert provider.diff(made.id, made.outs, {**props, "region": "westus"}).replaces == [
        "region"]
    provider.delete(made.id, updated.outs)
    assert provider.read(made.id, updated.outs).id is None


def test_import_with_no_diff(provider, props, metastore) -> None:
    imported = provider.read(metastore, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["name"] == props["name"]
    assert not provider.diff(metastore, imported.outs, props, old_inputs={}).changes


def test_a_metastore_holding_catalogs_needs_force_destroy(
        provider, props, client, initial_metastore_given_back) -> None:
    made = provider.create(props)
    MetastoresApi(client).assign(WORKSPACE_ID, made.id, "main")
    catalog = CatalogsApi(client).create({"name": fresh("held")})
    with pytest.raises(InvalidState, match="set force_destroy: true on the Metastore"):
        provider.delete(made.id, made.outs)
    assert CatalogsApi(client).get(catalog["name"])["metastore_id"] == made.id
    forced = provider.update(made.id, made.outs, {**props, "force_destroy": True})
    provider.delete(made.id, forced.outs)
    assert provider.read(made.id, forced.outs).id is None


def test_a_lost_create_answer_adopts_the_metastore(provider, props, client, monkeypatch
                                                   ) -> None:
    lost = lose_the_answer_to(monkeypatch, METASTORES_PATH)
    made = provider.create(props)
    assert lost == [METASTORES_PATH]
    named = [m for m in MetastoresApi(client).list() if m["name"] == props["name"]]
    assert [m["metastore_id"] for m in named] == [made.id]
    provider.delete(made.id, made.outs)


def test_the_sharing_lifetime_is_required_for_external_sharing() -> None:
    failures = MetastoreProvider.input_failures(
        {"name": "m", "delta_sharing_scope": "INTERNAL_AND_EXTERNAL"})
    assert [(f.property, f.reason) for f in failures] == [(
        "delta_sharing_recipient_token_lifetime_in_seconds",
        "required with delta_sharing_scope INTERNAL_AND_EXTERNAL: how long a recipient's "
        "token lasts, in seconds (0: it never expires)")]
    failures = MetastoreProvider.input_failures(
        {"name": "m", "delta_sharing_recipient_token_lifetime_in_seconds": -1})
    assert [f.property for f in failures] == [
        "delta_sharing_recipient_token_lifetime_in_seconds"]
    failures = MetastoreProvider.input_failures({"name": "m", "storage_root": "/nowhere"})
    assert [f.property for f in failures] == ["storage_root"]
    assert "not a storage URL" in failures[0].reason


def test_assignment_of_this_workspace(assignments, client, connection, metastore,
                                      initial_metastore_given_back) -> None:
    provider = assignments
    props = {"workspace_id": WORKSPACE_ID, "metastore_id": metastore,
             "default_catalog_name": "main", CONNECTION_KEY: connection}
    made = provider.create(props)
    assert made.id == str(WORKSPACE_ID) and made.outs["signed_in_workspace"] is True
    assert MetastoresApi(client).current_assignment()["metastore_id"] == metastore
    assert not provider.diff(made.id, made.outs, props).changes

    changed = {**props, "default_catalog_name": "sales"}
    diff = provider.diff(made.id, made.outs, changed)
    assert diff.changed_keys == ["default_catalog_name"] and not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    assert MetastoresApi(client).current_assignment()["default_catalog_name"] == "sales"

    # Drift, read back: the signed-in workspace's assignment changed outside the stack.
    MetastoresApi(client).update_assignment(WORKSPACE_ID, {"default_catalog_name": "other"})
    drifted = provider.read(made.id, updated.outs)
    assert provider.diff(made.id, drifted.outs, changed).changed_keys == [
        "default_catalog_name"]
    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert not provider.diff(made.id, imported.outs, {**props, "default_catalog_name":
                                                      "other"}, old_inputs={}).changes

    provider.delete(made.id, updated.outs)
    assert provider.read(made.id, updated.outs).id is None


def test_assignment_of_another_workspace_stands_as_recorded(assignments, client, connection,
                                                            metastore) -> None:
    provider = assignments
    props = {"workspace_id": OTHER_WORKSPACE_ID, "metastore_id": metastore,
             CONNECTION_KEY: connection}
    made = provider.create(props)
    assert made.outs["signed_in_workspace"] is False
    assert made.outs["default_catalog_name"] == "hive_metastore"
    assert not provider.diff(made.id, provider.read(made.id, made.outs).outs, props).changes
    assert provider.diff(made.id, made.outs, {**props, "workspace_id": 42}).replaces == [
        "workspace_id"]
    provider.delete(made.id, made.outs)
    # Unassigned: assigning it again works, the workspace being free.
    MetastoresApi(client).assign(OTHER_WORKSPACE_ID, metastore, "main")
    MetastoresApi(client).unassign(OTHER_WORKSPACE_ID, metastore)


def _credential(client: WorkspaceClient) -> dict[str, Any]:
    return StorageCredentialsApi(client).create({
        "name": fresh("root"), "azure_managed_identity": {"access_connector_id": CONNECTOR}})


def test_data_access_sets_the_root_credential(data_access, client, connection, metastore
                                               ) -> None:
    provider = data_access
    first, second = _credential(client), _credential(client)
    props = {"metastore_id": metastore, "storage_root_credential_id": first["id"],
             CONNECTION_KEY: connection}
    made = provider.create(props)
    assert made.id == metastore
    assert made.outs["storage_root_credential_name"] == first["name"]
    assert MetastoresApi(client).get(metastore)["storage_root_credential_id"] == first["id"]
    assert not provider.diff(made.id, made.outs, props).changes

    changed = {**props, "storage_root_credential_id": second["id"]}
    assert provider.diff(made.id, made.outs, changed).changed_keys == [
        "storage_root_credential_id"]
    updated = provider.update(made.id, made.outs, changed)
    assert MetastoresApi(client).get(metastore)["storage_root_credential_name"] == (
        second["name"])

    MetastoresApi(client).update(metastore, {"storage_root_credential_id": first["id"]})
    drifted = provider.read(made.id, updated.outs)
    assert provider.diff(made.id, drifted.outs, changed).changed_keys == [
        "storage_root_credential_id"]
    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    assert provider.diff(made.id, made.outs, {**props, "metastore_id": "other"}).replaces == [
        "metastore_id"]
    provider.delete(made.id, updated.outs)  # the service keeps a metastore's root credential
    assert MetastoresApi(client).get(metastore)["storage_root_credential_id"] == first["id"]
