"""The official SDK, unchanged, drives the emulator's SQL warehouses (create and wait until
running, edit, stop, start, auto stop, delete) and instance pools (create, edit, get, list,
delete, stats, a cluster from a pool), and their permissions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    InvalidParameterValue,
    NotFound,
    ResourceAlreadyExists,
)
from databricks.sdk.service import compute, iam, sql

from tests.conftest import emulator_fixture
from tests.emulator.support import Api, expect_error, unique
from workspace_emulator.testing import EmulatorInfo, advance_clock, fetch_token

NODE = "Standard_DS3_v2"
SPARK = "15.4.x-scala2.12"
WAITS = timedelta(seconds=30)

slow_emulator = emulator_fixture("module", transition_seconds=0.3)


@pytest.fixture(scope="module")
def sdk(slow_emulator: EmulatorInfo) -> WorkspaceClient:
    return WorkspaceClient(host=slow_emulator.base_url, token=fetch_token(slow_emulator))


@pytest.fixture
def manual_sdk(manual: EmulatorInfo) -> WorkspaceClient:
    return WorkspaceClient(host=manual.base_url, token=fetch_token(manual))


def _created_id(created: object) -> str:
    """The id in the answer to a warehouse create not waited for: the SDK types `Wait.response`
    as nothing in particular, and every field of its dataclasses as Optional."""
    assert isinstance(created, sql.CreateWarehouseResponse) and created.id is not None
    return created.id


def _used_count(sdk: WorkspaceClient, pool_id: str) -> int | None:
    stats = sdk.instance_pools.get(pool_id).stats
    assert stats is not None
    return stats.used_count


# --- SQL warehouses ------------------------------------------------------------------------


def test_warehouse_lifecycle(sdk: WorkspaceClient) -> None:
    name = unique("sdk-warehouse")
    made = sdk.warehouses.create_and_wait(
        name=name, cluster_size="2X-Small", max_num_clusters=2, auto_stop_mins=15,
        warehouse_type=sql.CreateWarehouseRequestWarehouseType.PRO,
        enable_serverless_compute=True,
        tags=sql.EndpointTags(custom_tags=[sql.EndpointTagPair(key="team", value="bi")]),
        timeout=WAITS)
    assert made.id is not None
    assert made.state == sql.State.RUNNING and made.num_clusters == 1
    # What the service fills in.
    assert (made.min_num_clusters, made.enable_photon, made.spot_instance_policy) == (
        1, True, sql.SpotInstancePolicy.COST_OPTIMIZED)
    assert made.channel is not None
    assert made.channel.name == sql.ChannelName.CHANNEL_NAME_CURRENT
    assert made.odbc_params is not None
    assert made.odbc_params.path == f"/sql/1.0/warehouses/{made.id}"
    assert made.jdbc_url is not None
    assert f"httpPath=/sql/1.0/warehouses/{made.id}" in made.jdbc_url
    assert made.id in {w.id for w in sdk.warehouses.list()}

    stopped = sdk.warehouses.stop_and_wait(made.id, timeout=WAITS)
    assert stopped.state == sql.State.STOPPED and stopped.num_clusters == 0
    # An edit of a stopped warehouse leaves it stopped, and keeps what it does not give.
    sdk.warehouses.edit(made.id, cluster_size="Small", max_num_clusters=4)
    edited = sdk.warehouses.get(made.id)
    assert (edited.cluster_size, edited.max_num_clusters, edited.state) == (
        "Small", 4, sql.State.STOPPED)
    assert edited.tags is not None and edited.tags.custom_tags is not None
    assert edited.tags.custom_tags[0].key == "team"
    assert sdk.warehouses.start_and_wait(made.id, timeout=WAITS).state == sql.State.RUNNING
    sdk.warehouses.wait_get_warehouse_running(made.id, timeout=WAITS)

    sdk.warehouses.delete(made.id)
    with pytest.raises(NotFound):
        sdk.warehouses.get(made.id)
    assert made.id not in {w.id for w in sdk.warehouses.list()}


def test_an_edit_of_a_running_warehouse_size_restarts_it(sdk: WorkspaceClient) -> None:
    made = sdk.warehouses.create_and_wait(name=unique("restart"), cluster_size="X-Small",
                                          timeout=WAITS)
    assert made.id is not None
    sdk.warehouses.edit(made.id, cluster_size="Medium")
    assert sdk.warehouses.get(made.id).state == sql.State.STARTING
    assert sdk.warehouses.wait_get_warehouse_running(made.id, timeout=WAITS).cluster_size == (
        "Medium")
    sdk.warehouses.edit(made.id, auto_stop_mins=30)  # not how its clusters are built
    assert sdk.warehouses.get(made.id).state == sql.State.RUNNING
    sdk.warehouses.delete(made.id)


@pytest.mark.parametrize(
    ("settings", "says"),
    [
        ({"cluster_size": "Tiny"}, "'cluster_size'"),
        ({"auto_stop_mins": 5}, "'auto_stop_mins'"),
        ({"min_num_clusters": 3, "max_num_clusters": 2}, "must not exceed"),
        ({"max_num_clusters": 41}, "'max_num_clusters'"),
        ({"enable_serverless_compute": True}, "PRO"),
        ({"channel": {"name": "CHANNEL_NAME_CUSTOM"}}, "dbsql_version"),
    ],
)
def test_bad_warehouse_settings_are_refused(
    sdk: WorkspaceClient, slow_emulator: EmulatorInfo, settings: dict, says: str
) -> None:
    api = Api(slow_emulator.base_url, fetch_token(slow_emulator))
    body = {"name": unique("bad"), "cluster_size": "Small", **settings}
    error = expect_error(api.post("/api/2.0/sql/warehouses", body), 400,
                         "INVALID_PARAMETER_VALUE")
    assert says in error["message"]


def test_warehouse_names_are_unique(sdk: WorkspaceClient) -> None:
    name = unique("taken")
    warehouse_id = _created_id(sdk.warehouses.create(name=name, cluster_size="Small").response)
    with pytest.raises(ResourceAlreadyExists):
        sdk.warehouses.create(name=name, cluster_size="Small")
    sdk.warehouses.delete(warehouse_id)


def test_auto_stop_and_stop_while_starting(
    manual: EmulatorInfo, manual_sdk: WorkspaceClient
) -> None:
    warehouse_id = _created_id(manual_sdk.warehouses.create(
        name=unique("idle"), cluster_size="Small", auto_stop_mins=10).response)
    assert manual_sdk.warehouses.get(warehouse_id).state == sql.State.STARTING
    advance_clock(manual, 60)
    assert manual_sdk.warehouses.get(warehouse_id).state == sql.State.RUNNING
    advance_clock(manual, 10 * 60)
    assert manual_sdk.warehouses.get(warehouse_id).state == sql.State.STOPPED  # idle 10 min
    manual_sdk.warehouses.start(warehouse_id)
    manual_sdk.warehouses.stop(warehouse_id)  # while it starts
    assert manual_sdk.warehouses.get(warehouse_id).state == sql.State.STOPPING
    advance_clock(manual, 60)
    assert manual_sdk.warehouses.get(warehouse_id).state == sql.State.STOPPED


def test_warehouse_permissions(sdk: WorkspaceClient) -> None:
    warehouse_id = _created_id(
        sdk.warehouses.create(name=unique("perms"), cluster_size="Small").response)
    levels = {level.permission_level for level in
              sdk.warehouses.get_permission_levels(warehouse_id).permission_levels or []}
    assert {sql.WarehousePermissionLevel.CAN_USE, sql.WarehousePermissionLevel.CAN_MONITOR,
            sql.WarehousePermissionLevel.CAN_MANAGE,
            sql.WarehousePermissionLevel.IS_OWNER} <= levels
    granted = sdk.warehouses.update_permissions(warehouse_id, access_control_list=[
        sql.WarehouseAccessControlRequest(
            group_name="users", permission_level=sql.WarehousePermissionLevel.CAN_USE)])
    assert any(entry.group_name == "users" for entry in granted.access_control_list or [])
    # The older path of the same object.
    same = sdk.permissions.get("sql/warehouses", warehouse_id)
    assert any(entry.group_name == "users" for entry in same.access_control_list or [])
    sdk.warehouses.delete(warehouse_id)
    with pytest.raises(NotFound):
        sdk.warehouses.get_permissions(warehouse_id)


# --- instance pools ------------------------------------------------------------------------


def test_pool_lifecycle(sdk: WorkspaceClient) -> None:
    name = unique("sdk-pool")
    pool_id = sdk.instance_pools.create(
        instance_pool_name=name, node_type_id=NODE, min_idle_instances=1, max_capacity=4,
        idle_instance_autotermination_minutes=30, preloaded_spark_versions=[SPARK],
        custom_tags={"team": "data"}).instance_pool_id
    assert pool_id is not None
    pool = sdk.instance_pools.get(pool_id)
    assert pool.state == compute.InstancePoolState.ACTIVE
    assert (pool.instance_pool_name, pool.node_type_id, pool.preloaded_spark_versions) == (
        name, NODE, [SPARK])
    assert pool.stats is not None
    assert pool.stats.idle_count == 1 and pool.stats.used_count == 0
    assert pool.enable_elastic_disk is True  # filled in
    assert pool.azure_attributes is not None
    assert pool.azure_attributes.availability == (
        compute.InstancePoolAzureAttributesAvailability.ON_DEMAND_AZURE)
    assert pool.default_tags is not None
    assert pool.default_tags["DatabricksInstancePoolId"] == pool_id
    assert pool_id in {p.instance_pool_id for p in sdk.instance_pools.list()}

    sdk.instance_pools.edit(pool_id, instance_pool_name=name, node_type_id=NODE,
                            min_idle_instances=2, max_capacity=8)
    edited = sdk.instance_pools.get(pool_id)
    assert (edited.min_idle_instances, edited.max_capacity, edited.custom_tags) == (2, 8, None)
    assert edited.preloaded_spark_versions == [SPARK]  # not the edit's: kept

    with pytest.raises(InvalidParameterValue, match="node_type_id"):
        sdk.instance_pools.edit(pool_id, instance_pool_name=name,
                                node_type_id="Standard_DS4_v2")

    sdk.instance_pools.delete(pool_id)
    assert sdk.instance_pools.get(pool_id).state == compute.InstancePoolState.DELETED
    assert pool_id not in {p.instance_pool_id for p in sdk.instance_pools.list()}


def test_pool_names_are_unique_and_settings_checked(
    sdk: WorkspaceClient, slow_emulator: EmulatorInfo
) -> None:
    name = unique("pool")
    pool_id = sdk.instance_pools.create(instance_pool_name=name,
                                        node_type_id=NODE).instance_pool_id
    assert pool_id is not None
    with pytest.raises(ResourceAlreadyExists):
        sdk.instance_pools.create(instance_pool_name=name, node_type_id=NODE)
    api = Api(slow_emulator.base_url, fetch_token(slow_emulator))
    refusals: list[tuple[dict[str, object], str]] = [
        ({"node_type_id": "m5.huge"}, "not supported"),
        ({"min_idle_instances": 3, "max_capacity": 2}, "must not exceed"),
        ({"preloaded_spark_versions": [SPARK, SPARK]}, "at most one"),
        ({"idle_instance_autotermination_minutes": 10001}, "between 0 and 10000"),
    ]
    for settings, says in refusals:
        body = {"instance_pool_name": unique("bad"), "node_type_id": NODE, **settings}
        error = expect_error(api.post("/api/2.0/instance-pools/create", body), 400)
        assert says in error["message"], error
    sdk.instance_pools.delete(pool_id)
    # The name is free again once the pool is deleted.
    again = sdk.instance_pools.create(instance_pool_name=name, node_type_id=NODE)
    assert again.instance_pool_id is not None
    sdk.instance_pools.delete(again.instance_pool_id)


def test_a_cluster_from_a_pool(sdk: WorkspaceClient) -> None:
    pool_id = sdk.instance_pools.create(instance_pool_name=unique("for-clusters"),
                                        node_type_id=NODE).instance_pool_id
    assert pool_id is not None
    cluster = sdk.clusters.create_and_wait(
        cluster_name=unique("pooled"), spark_version=SPARK, num_workers=1,
        instance_pool_id=pool_id, timeout=WAITS)
    assert cluster.cluster_id is not None
    assert _used_count(sdk, pool_id) == 1
    sdk.clusters.delete_and_wait(cluster.cluster_id, timeout=WAITS)
    assert _used_count(sdk, pool_id) == 0
    sdk.instance_pools.delete(pool_id)
    with pytest.raises(InvalidParameterValue, match="Instance pool"):
        sdk.clusters.create(cluster_name=unique("pooled"), spark_version=SPARK,
                            num_workers=1, instance_pool_id=pool_id)
    with pytest.raises(InvalidParameterValue, match="does not exist"):
        sdk.clusters.create(cluster_name=unique("pooled"), spark_version=SPARK,
                            num_workers=1, instance_pool_id="0000-000000-pool-nothing")
    sdk.clusters.permanent_delete(cluster.cluster_id)


def test_pool_permissions(sdk: WorkspaceClient, slow_emulator: EmulatorInfo) -> None:
    pool_id = sdk.instance_pools.create(instance_pool_name=unique("perms"),
                                        node_type_id=NODE).instance_pool_id
    assert pool_id is not None
    levels = {level.permission_level for level in
              sdk.instance_pools.get_permission_levels(pool_id).permission_levels or []}
    assert levels == {compute.InstancePoolPermissionLevel.CAN_ATTACH_TO,
                      compute.InstancePoolPermissionLevel.CAN_MANAGE}
    sdk.instance_pools.set_permissions(pool_id, access_control_list=[
        compute.InstancePoolAccessControlRequest(
            group_name="users",
            permission_level=compute.InstancePoolPermissionLevel.CAN_ATTACH_TO)])
    found = sdk.permissions.get("instance-pools", pool_id)
    assert [(e.group_name, (e.all_permissions or [])[0].permission_level)
            for e in found.access_control_list or [] if e.group_name == "users"] == [
        ("users", iam.PermissionLevel.CAN_ATTACH_TO)]
    api = Api(slow_emulator.base_url, fetch_token(slow_emulator))
    refused = api.patch(f"/api/2.0/permissions/instance-pools/{pool_id}", {
        "access_control_list": [{"group_name": "users", "permission_level": "CAN_USE"}]})
    assert "CAN_USE" in expect_error(refused, 400)["message"]
    sdk.instance_pools.delete(pool_id)
    with pytest.raises(NotFound):
        sdk.instance_pools.get_permissions(pool_id)
