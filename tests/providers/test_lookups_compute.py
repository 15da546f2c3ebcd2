"""The lookups of what clusters are built from, against the emulator in both wire forms:
cluster policies by name or id, node types and Spark versions by criteria."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pulumi
import pytest

from providers import lookups
from providers.client import WorkspaceClient
from providers.compute.cluster_policies_api import ClusterPoliciesApi
from providers.compute.compute_choice import SparkVersionCriteria
from providers.lookups import LookupFailed
from tests.providers.resource_mocks import RecordingMocks
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log


@pytest.fixture
def policy(client: WorkspaceClient):
    name = f"lookup-policy-{uuid.uuid4().hex[:8]}"
    definition = {"num_workers": {"type": "range", "maxValue": 4}}
    policy_id = ClusterPoliciesApi(client).create(
        {"name": name, "definition": json.dumps(definition), "max_clusters_per_user": 3}
    )
    yield {"policy_id": policy_id, "name": name, "definition": definition}
    ClusterPoliciesApi(client).delete(policy_id)


def test_cluster_policy_by_name_and_by_id(client, policy) -> None:
    by_name = lookups.find_cluster_policy(client, name=policy["name"])
    assert by_name["policy_id"] == policy["policy_id"]
    assert by_name["definition"] == policy["definition"]  # a JSON object, not text
    assert by_name["max_clusters_per_user"] == 3
    by_id = lookups.find_cluster_policy(client, policy_id=policy["policy_id"])
    assert by_id == by_name


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"name": "no-such-policy"}, "no cluster policy named 'no-such-policy'"),
        ({"policy_id": "ABCDEF0000000000"}, "no cluster policy with policy_id 'ABCDEF0000000000'"),
    ],
)
def test_missing_cluster_policy_is_named(client, keys, message) -> None:
    with pytest.raises(LookupFailed, match=message):
        lookups.find_cluster_policy(client, **keys)


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        ({}, "Standard_F4s"),  # the smallest, never a deprecated or a GPU one
        ({"photon": True}, "Standard_DS3_v2"),
        ({"min_memory_gb": 20}, "Standard_DS4_v2"),
        ({"min_cores": 16}, "Standard_DS5_v2"),
        ({"local_disk": True}, "Standard_E8ds_v4"),
        ({"local_disk_min_size_gb": 1000}, "Standard_L8s_v2"),
        ({"min_gpus": 1}, "Standard_NC6s_v3"),
        ({"category": "compute optimized"}, "Standard_F4s"),
    ],
)
def test_node_type_by_criteria(client, criteria, expected) -> None:
    found = lookups.find_node_type(client, **criteria)
    assert found["node_type_id"] == expected
    if criteria.get("local_disk"):
        assert found["local_disks"] >= 1


def test_no_node_type_meets_the_criteria(client) -> None:
    with pytest.raises(LookupFailed, match="no node type with min_memory_gb=4096"):
        lookups.find_node_type(client, min_memory_gb=4096)


@pytest.mark.parametrize(
    ("criteria", "expected"),
    [
        ({}, "16.1.x-scala2.12"),  # the newest that is not a beta
        ({"long_term_support": True}, "15.4.x-scala2.12"),
        ({"long_term_support": True, "ml": True}, "15.4.x-cpu-ml-scala2.12"),
        ({"ml": True, "gpu": True}, "14.3.x-gpu-ml-scala2.12"),
        ({"beta": True}, "16.2.x-scala2.12"),
        ({"spark_version": "3.4.1"}, "13.3.x-scala2.12"),
    ],
)
def test_spark_version_by_criteria(client, criteria, expected) -> None:
    given = dict(criteria)
    spark_version = given.pop("spark_version", None)
    wanted = SparkVersionCriteria(**given)
    found = lookups.find_spark_version(client, criteria=wanted, spark_version=spark_version)
    assert found["key"] == expected and "Scala 2.12" in found["name"]


def test_spark_version_not_latest_needs_one_match(client) -> None:
    with pytest.raises(LookupFailed, match="objects match: Spark version with long_term"):
        lookups.find_spark_version(
            client, criteria=SparkVersionCriteria(long_term_support=True), latest=False
        )
    with pytest.raises(LookupFailed, match="no Spark version with scala='2.13'"):
        lookups.find_spark_version(client, criteria=SparkVersionCriteria(scala="2.13"))


def test_compute_lookups_only_read(client, emulator: EmulatorInfo, policy) -> None:
    clear_request_log(emulator)
    lookups.find_node_type(client, min_cores=8)
    lookups.find_spark_version(client)
    lookups.find_cluster_policy(client, name=policy["name"])
    methods = {entry["method"] for entry in request_log(emulator)}
    assert methods == {"GET"}


def test_program_lookups_give_plain_outputs(connection: dict[str, Any], policy) -> None:
    pulumi.runtime.set_mocks(RecordingMocks({}), project="proj", stack="dev", preview=True)
    seen: dict[str, Any] = {}

    @pulumi.runtime.test
    def scenario():
        secret_connection = pulumi.Output.secret(connection)
        node = lookups.get_node_type(secret_connection, min_memory_gb=20)
        version = lookups.get_spark_version(secret_connection, long_term_support=True)
        found = lookups.get_cluster_policy(secret_connection, name=policy["name"])

        async def inspect():
            seen["secret"] = await node.is_secret()
            seen["node"] = (await node.future() or {})["node_type_id"]
            seen["version"] = (await version.future() or {})["key"]
            seen["policy"] = (await found.future() or {})["policy_id"]

        return pulumi.Output.from_input(inspect())

    scenario()
    assert seen == {
        "secret": False,
        "node": "Standard_DS4_v2",
        "version": "15.4.x-scala2.12",
        "policy": policy["policy_id"],
    }


def test_program_cluster_policy_lookup_needs_exactly_one_key() -> None:
    with pytest.raises(LookupFailed, match="get_cluster_policy: give name or policy_id"):
        lookups.get_cluster_policy({})
