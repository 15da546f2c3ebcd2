"""The permissions API for every object type, driven by the official SDK over real HTTP:
GET, PUT, PATCH and permissionLevels, the levels of each type as the SDK's enums list them,
the owner rules, and who may change what."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import InvalidParameterValue, NotFound, PermissionDenied
from databricks.sdk.service import compute, iam, ml, pipelines, sql, workspace

from tests.emulator.support import add_service_principal
from workspace_emulator.testing import fetch_token

CLUSTER = "0101-120000-shared01"
WAREHOUSE = "5a1e2b3c4d5e6f70"
PIPELINE = "8f3c2a10-1b2c-4d5e-8f90-0a1b2c3d4e5f"
NOTEBOOK = "1710000000000001"
MODEL = "3b7e5f1a9c2d4e6f8a0b1c2d3e4f5a6b"
REPO = "3000000000000001"

# (object type, an object of that type, the SDK's enum of its levels)
OBJECTS = [
    ("clusters", CLUSTER, compute.ClusterPermissionLevel),
    ("cluster-policies", "E0631F5C0D000001", compute.ClusterPolicyPermissionLevel),
    ("instance-pools", "0101-120000-pool0001", compute.InstancePoolPermissionLevel),
    ("repos", REPO, workspace.RepoPermissionLevel),
    ("notebooks", NOTEBOOK, workspace.WorkspaceObjectPermissionLevel),
    ("directories", "1710000000000002", workspace.WorkspaceObjectPermissionLevel),
    ("warehouses", WAREHOUSE, sql.WarehousePermissionLevel),
    ("pipelines", PIPELINE, pipelines.PipelinePermissionLevel),
    ("registered-models", MODEL, ml.RegisteredModelPermissionLevel),
]


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


def direct(acl: iam.ObjectPermissions) -> dict[str, str]:
    found = {}
    for entry in acl.access_control_list or []:
        name = entry.user_name or entry.group_name or entry.service_principal_name
        for permission in entry.all_permissions or []:
            if not permission.inherited and name and permission.permission_level:
                found[name] = permission.permission_level.value
    return found


@pytest.mark.parametrize(("object_type", "object_id", "levels"), OBJECTS)
def test_levels_are_the_sdk_enums(sdk, object_type, object_id, levels):
    served = sdk.permissions.get_permission_levels(object_type, object_id).permission_levels
    assert sorted(level.permission_level.value for level in served) == sorted(
        level.value for level in levels)


@pytest.mark.parametrize(("object_type", "object_id", "levels"), OBJECTS)
def test_patch_put_get(sdk, object_type, object_id, levels):
    level = next(lv.value for lv in levels if lv.value != "IS_OWNER")
    patched = sdk.permissions.update(object_type, object_id, access_control_list=[
        iam.AccessControlRequest(group_name="analysts",
                                 permission_level=iam.PermissionLevel(level))])
    assert direct(patched)["analysts"] == level
    admins = next(e for e in patched.access_control_list if e.group_name == "admins")
    assert admins.all_permissions[-1].inherited
    got = sdk.permissions.get(object_type, object_id)
    assert got.object_id.endswith(object_id) and direct(got) == direct(patched)
    replaced = sdk.permissions.set(object_type, object_id, access_control_list=[
        iam.AccessControlRequest(user_name="bob@example.com",
                                 permission_level=iam.PermissionLevel(level))])
    assert "analysts" not in direct(replaced) and direct(replaced)["bob@example.com"] == level
    sdk.permissions.set(object_type, object_id, access_control_list=[])


def test_a_level_of_another_type_is_refused(sdk):
    with pytest.raises(InvalidParameterValue, match="CAN_ATTACH_TO, CAN_RESTART, CAN_MANAGE"):
        sdk.permissions.update("clusters", CLUSTER, access_control_list=[
            iam.AccessControlRequest(group_name="analysts",
                                     permission_level=iam.PermissionLevel.CAN_VIEW)])
    with pytest.raises(InvalidParameterValue):
        sdk.permissions.update("notebooks", NOTEBOOK, access_control_list=[
            iam.AccessControlRequest(group_name="analysts",
                                     permission_level=iam.PermissionLevel.IS_OWNER)])


def test_unknown_objects_and_types(sdk):
    with pytest.raises(NotFound):
        sdk.permissions.get("clusters", "0000-000000-nothere0")
    with pytest.raises(NotFound):
        sdk.permissions.get("notebooks", "999")
    with pytest.raises(NotFound):
        sdk.permissions.get("gizmos", "1")


def test_ownership_moves_and_is_kept_by_put(sdk, emulator):
    before = direct(sdk.permissions.get("warehouses", WAREHOUSE))
    assert before[emulator.client_id] == "IS_OWNER"
    moved = sdk.permissions.update("warehouses", WAREHOUSE, access_control_list=[
        iam.AccessControlRequest(user_name="alice@example.com",
                                 permission_level=iam.PermissionLevel.IS_OWNER)])
    assert direct(moved)["alice@example.com"] == "IS_OWNER"
    assert emulator.client_id not in direct(moved)
    # A PUT that names no owner keeps the owner.
    kept = sdk.permissions.set("warehouses", WAREHOUSE, access_control_list=[])
    assert direct(kept) == {"alice@example.com": "IS_OWNER"}
    with pytest.raises(InvalidParameterValue):
        sdk.permissions.update("warehouses", WAREHOUSE, access_control_list=[
            iam.AccessControlRequest(group_name="analysts",
                                     permission_level=iam.PermissionLevel.IS_OWNER)])
    sdk.permissions.update("warehouses", WAREHOUSE, access_control_list=[
        iam.AccessControlRequest(service_principal_name=emulator.client_id,
                                 permission_level=iam.PermissionLevel.IS_OWNER)])


def test_the_older_warehouse_path(api):
    response = api.get(f"/api/2.0/permissions/sql/warehouses/{WAREHOUSE}")
    assert response.status_code == 200, response.text
    assert response.json()["object_id"] == f"/sql/warehouses/{WAREHOUSE}"


def test_only_managers_change_permissions(api, emulator):
    application, _ = add_service_principal(api, emulator)
    other = WorkspaceClient(host=emulator.base_url, token=fetch_token(
        emulator, application["client_id"], application["client_secret"]))
    with pytest.raises(PermissionDenied):
        other.permissions.get("clusters", CLUSTER)
    with pytest.raises(PermissionDenied):
        other.permissions.update("clusters", CLUSTER, access_control_list=[
            iam.AccessControlRequest(group_name="analysts",
                                     permission_level=iam.PermissionLevel.CAN_ATTACH_TO)])
    WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator)).permissions.update(
        "clusters", CLUSTER, access_control_list=[iam.AccessControlRequest(
            service_principal_name=application["client_id"],
            permission_level=iam.PermissionLevel.CAN_MANAGE)])
    granted = other.permissions.update("clusters", CLUSTER, access_control_list=[
        iam.AccessControlRequest(group_name="analysts",
                                 permission_level=iam.PermissionLevel.CAN_ATTACH_TO)])
    assert direct(granted)["analysts"] == "CAN_ATTACH_TO"
    api.put(f"/api/2.0/permissions/clusters/{CLUSTER}", json={"access_control_list": []})
