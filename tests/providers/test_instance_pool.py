"""InstancePool against the emulator, in both wire forms: validation by field, the lifecycle
(in-place edits, a node type change replaces, what the service fills in is no change),
drift, import by id, adoption after a lost answer, and a cluster that names the pool."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.compute.instance_pool import InstancePoolProvider
from providers.compute.instance_pools_api import InstancePoolsApi
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_check_names, failures

NODE = "Standard_DS3_v2"
SPARK = "15.4.x-scala2.12"


@pytest.fixture
def provider() -> InstancePoolProvider:
    return InstancePoolProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "instance_pool_name": f"pool-{uuid.uuid4().hex[:8]}",
        "node_type_id": NODE,
        "min_idle_instances": 1,
        "max_capacity": 4,
        "preloaded_spark_versions": [SPARK],
        "custom_tags": {"team": "data"},
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"instance_pool_name": " "}, "instance_pool_name", "1 to 100 characters"),
        ({"instance_pool_name": "p" * 101}, "instance_pool_name", "1 to 100 characters"),
        ({"node_type_id": None}, "node_type_id", "Field required"),
        ({"min_idle_instances": -1}, "min_idle_instances", "greater than or equal to 0"),
        ({"max_capacity": 0}, "max_capacity", "greater than or equal to 1"),
        ({"min_idle_instances": 5}, "min_idle_instances", "do not fit in max_capacity 4"),
        ({"idle_instance_autotermination_minutes": 10001},
         "idle_instance_autotermination_minutes", "less than or equal to 10000"),
        ({"preloaded_spark_versions": [SPARK, SPARK]}, "preloaded_spark_versions",
         "at most 1 item"),
        ({"custom_tags": {f"k{i}": "v" for i in range(46)}}, "custom_tags", "at most 45"),
        ({"azure_attributes": {"availability": "SPOT"}}, "azure_attributes.availability",
         "'SPOT_AZURE' or 'ON_DEMAND_AZURE'"),
        ({"azure_attributes": {"availability": "SPOT_AZURE"},
          "aws_attributes": {"availability": "SPOT"}}, "azure_attributes", "one cloud"),
        ({"colour": "red"}, "colour", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "max_capacity": UNKNOWN}) == {}


def test_lifecycle(provider, props, client: WorkspaceClient) -> None:
    made = provider.create(props)
    pool = InstancePoolsApi(client).get(made.id)
    assert (pool["instance_pool_name"], pool["min_idle_instances"]) == (
        props["instance_pool_name"], 1)
    assert made.outs["instance_pool_id"] == made.id
    assert "enable_elastic_disk" not in made.outs  # the service's, not declared
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "max_capacity": 8, "custom_tags": {"team": "bi"},
               "idle_instance_autotermination_minutes": 15}
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {"max_capacity", "custom_tags",
                                      "idle_instance_autotermination_minutes"}
    assert not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    pool = InstancePoolsApi(client).get(made.id)
    assert (pool["max_capacity"], pool["custom_tags"]) == (8, {"team": "bi"})
    assert pool["preloaded_spark_versions"] == [SPARK]

    # A setting declared before and no longer is cleared.
    fewer = {k: v for k, v in changed.items() if k != "custom_tags"}
    updated = provider.update(made.id, updated.outs, fewer)
    assert "custom_tags" not in InstancePoolsApi(client).get(made.id)

    other_node = {**fewer, "node_type_id": "Standard_DS4_v2"}
    diff = provider.diff(made.id, updated.outs, other_node)
    assert diff.replaces == ["node_type_id"] and diff.delete_before_replace
    renamed = {**other_node, "instance_pool_name": props["instance_pool_name"] + "-2"}
    assert not provider.diff(made.id, updated.outs, renamed).delete_before_replace

    provider.delete(made.id, updated.outs)
    assert InstancePoolsApi(client).get(made.id)["state"] == "DELETED"
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)


def test_drift_shows_in_refresh(provider, props, client: WorkspaceClient) -> None:
    made = provider.create(props)
    InstancePoolsApi(client).edit(made.id, {"instance_pool_name": props["instance_pool_name"],
                                         "node_type_id": NODE, "max_capacity": 9})
    read = provider.read(made.id, made.outs)
    assert set(provider.diff(made.id, read.outs, props).changed_keys) == {
        "max_capacity", "min_idle_instances", "custom_tags"}
    provider.update(made.id, read.outs, props)
    assert InstancePoolsApi(client).get(made.id)["max_capacity"] == 4
    provider.delete(made.id, made.outs)


def test_import_by_pool_id(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["instance_pool_name"] == props["instance_pool_name"]
    assert imported.outs["node_type_id"] == NODE
    # What the service filled in is recorded, and not a change of the declared pool.
    assert imported.outs["enable_elastic_disk"] is True
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_a_lost_answer_adopts_the_pool(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, "/api/2.0/instance-pools/create")
    made = provider.create(props)
    assert lost == ["/api/2.0/instance-pools/create"]
    named = [p for p in InstancePoolsApi(client).list()
             if p["instance_pool_name"] == props["instance_pool_name"]]
    assert [p["instance_pool_id"] for p in named] == [made.id]
    provider.delete(made.id, made.outs)


def test_a_name_taken_by_another_pool_is_refused(provider, props, client) -> None:
    other = InstancePoolsApi(client).create({"instance_pool_name": props["instance_pool_name"],
                                          "node_type_id": "Standard_DS4_v2"})
    with pytest.raises(AlreadyExists, match="instance_pool_name: another pool"):
        provider.create(props)
    InstancePoolsApi(client).delete(other)
