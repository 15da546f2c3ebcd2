"""The official SDK, unchanged, drives the emulator's Lakeview dashboards: create, get,
update with etags, the content in the service's form, publish, get the published copy,
unpublish, trash, list, the service's refusals, and their permissions."""

from __future__ import annotations

import json

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import InvalidParameterValue, NotFound, ResourceAlreadyExists
from databricks.sdk.errors.platform import ResourceConflict
from databricks.sdk.service import dashboards, iam, sql

from tests.emulator.support import unique
from workspace_emulator.testing import EmulatorInfo, fetch_token

CONTENT = {"pages": [{"name": "orders", "displayName": "Orders"}], "datasets": []}


@pytest.fixture(scope="module")
def sdk(emulator: EmulatorInfo) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture(scope="module")
def warehouse_id(sdk: WorkspaceClient) -> str:
    warehouse = sdk.warehouses.create(name=unique("dashboards"), cluster_size="2X-Small")
    made: object = warehouse.response
    assert isinstance(made, sql.CreateWarehouseResponse) and made.id is not None
    return made.id


@pytest.fixture(scope="module")
def folder(sdk: WorkspaceClient) -> str:
    path = f"/Shared/{unique('dashboards')}"
    sdk.workspace.mkdirs(path)
    return path


def make(sdk: WorkspaceClient, folder: str, **extra) -> dashboards.Dashboard:
    made = sdk.lakeview.create(dashboard=dashboards.Dashboard(
        display_name=unique("Orders"), parent_path=folder,
        serialized_dashboard=json.dumps(CONTENT, indent=2), **extra))
    assert made.dashboard_id is not None
    return made


def test_dashboard_lifecycle(sdk: WorkspaceClient, warehouse_id: str, folder: str) -> None:
    made = make(sdk, folder, warehouse_id=warehouse_id)
    assert made.path == f"{folder}/{made.display_name}.lvdash.json"
    assert made.lifecycle_state == dashboards.LifecycleState.ACTIVE
    # The service keeps the content in its own form: the same JSON, not the same text.
    assert made.serialized_dashboard != json.dumps(CONTENT, indent=2)
    assert json.loads(made.serialized_dashboard or "") == CONTENT
    dashboard_id = made.dashboard_id or ""

    edited = {**CONTENT, "datasets": [{"name": "d", "query": "SELECT 1"}]}
    updated = sdk.lakeview.update(dashboard_id, dashboard=dashboards.Dashboard(
        serialized_dashboard=json.dumps(edited), etag=made.etag))
    assert updated.etag != made.etag and json.loads(updated.serialized_dashboard or "") == edited
    with pytest.raises(ResourceConflict):
        sdk.lakeview.update(dashboard_id, dashboard=dashboards.Dashboard(
            display_name="stale", etag=made.etag))

    with pytest.raises(NotFound):
        sdk.lakeview.get_published(dashboard_id)
    published = sdk.lakeview.publish(dashboard_id, embed_credentials=False)
    assert (published.warehouse_id, published.embed_credentials) == (warehouse_id, False)
    assert sdk.lakeview.get_published(dashboard_id).display_name == made.display_name
    sdk.lakeview.unpublish(dashboard_id)
    with pytest.raises(NotFound):
        sdk.lakeview.unpublish(dashboard_id)

    assert dashboard_id in {d.dashboard_id for d in sdk.lakeview.list()}
    sdk.lakeview.trash(dashboard_id)
    assert sdk.lakeview.get(dashboard_id).lifecycle_state == dashboards.LifecycleState.TRASHED
    assert dashboard_id not in {d.dashboard_id for d in sdk.lakeview.list()}
    assert dashboard_id in {d.dashboard_id for d in sdk.lakeview.list(show_trashed=True)}
    with pytest.raises(NotFound):
        sdk.lakeview.trash(dashboard_id)
    # Its path is free again.
    again = sdk.lakeview.create(dashboard=dashboards.Dashboard(
        display_name=made.display_name, parent_path=folder))
    assert again.path == made.path


def test_dashboard_refusals(sdk: WorkspaceClient, warehouse_id: str, folder: str) -> None:
    made = make(sdk, folder)
    with pytest.raises(ResourceAlreadyExists, match="lvdash.json"):
        sdk.lakeview.create(dashboard=dashboards.Dashboard(
            display_name=made.display_name, parent_path=folder))
    with pytest.raises(InvalidParameterValue, match="serialized_dashboard"):
        sdk.lakeview.create(dashboard=dashboards.Dashboard(
            display_name=unique("x"), parent_path=folder, serialized_dashboard="{not json"))
    with pytest.raises(NotFound, match="warehouse"):
        make(sdk, folder, warehouse_id="0123456789abcdef")
    with pytest.raises(NotFound, match="doesn't exist"):
        make(sdk, f"{folder}/missing")
    with pytest.raises(InvalidParameterValue, match="warehouse_id"):
        sdk.lakeview.publish(made.dashboard_id or "")


def test_permissions_of_dashboards(sdk: WorkspaceClient, folder: str) -> None:
    made = make(sdk, folder)
    grant = [iam.AccessControlRequest(group_name="users",
                                      permission_level=iam.PermissionLevel.CAN_READ)]
    held = sdk.permissions.set("dashboards", made.dashboard_id or "", access_control_list=grant)
    assert any(entry.group_name == "users" for entry in held.access_control_list or [])
    with pytest.raises(NotFound):
        sdk.permissions.get("dashboards", "0" * 32)
