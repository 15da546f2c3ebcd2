"""Unity Catalog metastores at the workspace level through the official SDK, unchanged:
the initial metastore assigned to this workspace, create, get, list, update (owner, delta
sharing, the root credential), assignment to a workspace and its default catalog, the
current assignment and summary, delete (refused while it holds catalogs unless force).
Each rule with its refusal."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import InvalidParameterValue, InvalidState, NotFound
from databricks.sdk.service import catalog

from tests.emulator.support import unique
from workspace_emulator.testing import fetch_token

INITIAL_METASTORE = "9ce88c25-f4f8-47ae-80f8-5d90271e193b"
WORKSPACE_ID = 1234567890123456
OTHER_WORKSPACE_ID = 2345678901234567
ROOT = "abfss://root@lake.dfs.core.windows.net/metastore"


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture
def metastore(sdk) -> Iterator[catalog.MetastoreInfo]:
    made = sdk.metastores.create(unique("meta"), region="northeurope", storage_root=ROOT)
    yield made
    assert made.metastore_id is not None
    try:
        sdk.metastores.delete(made.metastore_id, force=True)
    except NotFound:
        pass


@pytest.fixture
def assigned_here(sdk, metastore) -> Iterator[catalog.MetastoreInfo]:
    """This workspace assigned to the new metastore; the initial metastore assigned again after."""
    assert metastore.metastore_id is not None
    sdk.metastores.assign(WORKSPACE_ID, metastore.metastore_id, "main")
    yield metastore
    sdk.metastores.assign(WORKSPACE_ID, INITIAL_METASTORE, "hive_metastore")


def test_the_initial_metastore_is_this_workspaces(sdk):
    current = sdk.metastores.current()
    assert (current.workspace_id, current.metastore_id, current.default_catalog_name) == (
        WORKSPACE_ID, INITIAL_METASTORE, "hive_metastore")
    summary = sdk.metastores.summary()
    assert summary.metastore_id == INITIAL_METASTORE and summary.storage_root
    assert INITIAL_METASTORE in [m.metastore_id for m in sdk.metastores.list()]


def test_metastore_lifecycle(sdk, metastore, emulator):
    assert metastore.metastore_id is not None
    assert (metastore.region, metastore.storage_root, metastore.owner) == (
        "northeurope", ROOT, emulator.client_id)
    assert metastore.delta_sharing_scope == catalog.DeltaSharingScopeEnum.INTERNAL
    assert metastore.metastore_id in [m.metastore_id for m in sdk.metastores.list()]
    credential = sdk.storage_credentials.create(
        unique("root"), azure_managed_identity=catalog.AzureManagedIdentityRequest(
            access_connector_id="/subscriptions/s/resourceGroups/r/providers/"
                                "Microsoft.Databricks/accessConnectors/c"))
    changed = sdk.metastores.update(
        metastore.metastore_id, owner="data-engineers",
        delta_sharing_scope=catalog.DeltaSharingScopeEnum.INTERNAL_AND_EXTERNAL,
        delta_sharing_recipient_token_lifetime_in_seconds=3600,
        delta_sharing_organization_name="acme", storage_root_credential_id=credential.id)
    assert (changed.owner, changed.delta_sharing_recipient_token_lifetime_in_seconds,
            changed.delta_sharing_organization_name) == ("data-engineers", 3600, "acme")
    assert (changed.storage_root_credential_id, changed.storage_root_credential_name) == (
        credential.id, credential.name)
    assert sdk.metastores.get(metastore.metastore_id).owner == "data-engineers"
    sdk.metastores.delete(metastore.metastore_id)
    with pytest.raises(NotFound, match="does not exist"):
        sdk.metastores.get(metastore.metastore_id)


def test_metastore_updates_are_checked(sdk, metastore):
    assert metastore.metastore_id is not None
    with pytest.raises(NotFound, match="Storage credential 'nope'"):
        sdk.metastores.update(metastore.metastore_id, storage_root_credential_id="nope")
    with pytest.raises(InvalidParameterValue, match="owner"):
        sdk.metastores.update(metastore.metastore_id, owner="nobody-at-all")
    with pytest.raises(InvalidParameterValue, match="storage_root"):
        sdk.metastores.create(unique("meta"), storage_root="/not/a/url")
    with pytest.raises(NotFound):
        sdk.metastores.get("00000000-0000-0000-0000-000000000000")


def test_assignment_of_another_workspace(sdk, metastore):
    assert metastore.metastore_id is not None
    sdk.metastores.assign(OTHER_WORKSPACE_ID, metastore.metastore_id, "main")
    sdk.metastores.update_assignment(OTHER_WORKSPACE_ID, default_catalog_name="sales")
    with pytest.raises(NotFound, match="not assigned"):
        sdk.metastores.unassign(OTHER_WORKSPACE_ID, INITIAL_METASTORE)
    sdk.metastores.unassign(OTHER_WORKSPACE_ID, metastore.metastore_id)
    with pytest.raises(NotFound, match="no metastore assigned"):
        sdk.metastores.update_assignment(OTHER_WORKSPACE_ID, default_catalog_name="x")
    with pytest.raises(NotFound, match="Workspace 42"):
        sdk.metastores.assign(42, metastore.metastore_id, "main")
    # This workspace's stays the initial metastore.
    assert sdk.metastores.current().metastore_id == INITIAL_METASTORE


def test_catalogs_join_the_assigned_metastore(sdk, assigned_here):
    metastore_id = assigned_here.metastore_id
    assert metastore_id is not None
    current = sdk.metastores.current()
    assert (current.metastore_id, current.default_catalog_name) == (metastore_id, "main")
    assert sdk.metastores.summary().metastore_id == metastore_id
    sdk.metastores.update_assignment(WORKSPACE_ID, default_catalog_name="sales")
    assert sdk.metastores.current().default_catalog_name == "sales"
    made = sdk.catalogs.create(unique("inmeta"))
    assert made.metastore_id == metastore_id
    with pytest.raises(InvalidState, match=r"not empty.*force"):
        sdk.metastores.delete(metastore_id)
    sdk.metastores.delete(metastore_id, force=True)
    assert made.name is not None
    with pytest.raises(NotFound):
        sdk.catalogs.get(made.name)
    with pytest.raises(NotFound, match="No metastore assigned"):
        sdk.metastores.current()
    with pytest.raises(NotFound, match="No metastore assigned"):
        sdk.catalogs.create(unique("nometa"))
