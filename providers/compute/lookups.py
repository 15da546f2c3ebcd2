"""Lookups of compute: clusters, cluster policies, node types and runtime versions.
(providers/lookups/__init__.py says what a lookup is.)"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pulumi
from pydantic import Field

from providers.client import (
    NotFound,
    WorkspaceClient,
)
from providers.compute.cluster_policies_api import ClusterPoliciesApi
from providers.compute.clusters_api import ClustersApi
from providers.compute.compute_choice import (
    NodeTypeCriteria,
    SparkVersionCriteria,
    choose_node_type,
    matching_spark_versions,
)
from providers.core.lookup import (
    LookupFailed,
    LookupResult,
    Result,
    exactly_one,
    found_nothing,
    lookup_output,
    nothing_if_gone,
    only_one,
)


def get_cluster(
    connection: pulumi.Input[dict],
    *,
    name: pulumi.Input[str] | None = None,
    cluster_id: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A cluster by `name` (its cluster_name, which must be unique) or by `cluster_id`."""
    exactly_one("get_cluster", name=name, cluster_id=cluster_id)
    return lookup_output(connection, find_cluster, name=name, cluster_id=cluster_id)


def get_cluster_policy(
    connection: pulumi.Input[dict],
    *,
    name: pulumi.Input[str] | None = None,
    policy_id: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A cluster policy by `name` (names are unique) or by `policy_id`; its definition as a
    JSON object."""
    exactly_one("get_cluster_policy", name=name, policy_id=policy_id)
    return lookup_output(connection, find_cluster_policy, name=name, policy_id=policy_id)


def get_node_type(
    connection: pulumi.Input[dict],
    *,
    min_memory_gb: pulumi.Input[float] | None = None,
    min_cores: pulumi.Input[float] | None = None,
    min_gpus: pulumi.Input[int] | None = None,
    local_disk: pulumi.Input[bool] | None = None,
    local_disk_min_size_gb: pulumi.Input[int] | None = None,
    category: pulumi.Input[str] | None = None,
    photon: pulumi.Input[bool] | None = None,
) -> pulumi.Output[Result]:
    """The smallest node type of the workspace that meets every criterion given (none: the
    smallest of all); deprecated and hidden ones, and GPU ones unless `min_gpus`, never."""
    return lookup_output(
        connection,
        find_node_type,
        min_memory_gb=min_memory_gb,
        min_cores=min_cores,
        min_gpus=min_gpus,
        local_disk=local_disk,
        local_disk_min_size_gb=local_disk_min_size_gb,
        category=category,
        photon=photon,
    )


def get_spark_version(
    connection: pulumi.Input[dict],
    *,
    long_term_support: bool = False,
    latest: bool = True,
    ml: bool = False,
    gpu: bool = False,
    photon: bool = False,
    beta: bool = False,
    scala: str = "2.12",
    spark_version: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A runtime version (`key` for a cluster's `spark_version`, and its `name`): the newest
    that matches (`latest=False`: the only one, or fail listing them). `spark_version`: the
    Apache Spark version it must include, e.g. "3.5.0"."""
    criteria = SparkVersionCriteria(long_term_support, ml, gpu, photon, beta, scala)
    return lookup_output(
        connection,
        lambda client, **keys: find_spark_version(
            client, criteria=criteria, latest=latest, **keys
        ),
        spark_version=spark_version,
    )


def find_cluster(
    client: WorkspaceClient, *, name: str | None = None, cluster_id: str | None = None
) -> Result:
    if cluster_id is not None:
        try:
            return ClusterInfo.model_validate(ClustersApi(client).get(cluster_id)).as_output()
        except NotFound:
            raise found_nothing(client, f"cluster with cluster_id {cluster_id!r}") from None
    named = [c for c in ClustersApi(client).list() if c.get("cluster_name") == name]
    found = only_one(client, named, f"cluster named {name!r}", "cluster_id")
    return ClusterInfo.model_validate(found).as_output()


def find_cluster_policy(
    client: WorkspaceClient, *, name: str | None = None, policy_id: str | None = None
) -> Result:
    if policy_id is not None:
        with nothing_if_gone(client, f"cluster policy with policy_id {policy_id!r}"):
            policy = ClusterPoliciesApi(client).get(policy_id)
        return ClusterPolicyInfo.from_service(policy).as_output()
    named = [p for p in ClusterPoliciesApi(client).list() if p.get("name") == name]
    found = only_one(client, named, f"cluster policy named {name!r}", "policy_id")
    return ClusterPolicyInfo.from_service(found).as_output()


def find_node_type(client: WorkspaceClient, **criteria: Any) -> Result:
    wanted = NodeTypeCriteria(**criteria)
    found = choose_node_type(ClustersApi(client).node_types(), wanted)
    if found is None:
        raise found_nothing(client, f"node type with {wanted.describe()}")
    return NodeTypeInfo.from_service(dict(found)).as_output()


def find_spark_version(
    client: WorkspaceClient,
    *,
    criteria: SparkVersionCriteria | None = None,
    latest: bool = True,
    spark_version: str | None = None,
) -> Result:
    wanted = dataclasses.replace(criteria or SparkVersionCriteria(), spark_version=spark_version)
    found = matching_spark_versions(ClustersApi(client).spark_versions(), wanted)
    what = f"Spark version with {wanted.describe() or 'no criteria'}"
    if not found:
        raise found_nothing(client, what)
    if len(found) > 1 and not latest:
        keys = ", ".join(repr(v.get("key")) for v in found)
        raise LookupFailed(
            f"{len(found)} objects match: {what} in {client.connection.base_url} ({keys}); "
            "narrow the criteria, or pass latest=True for the newest"
        )
    return SparkVersionInfo.model_validate(dict(found[0])).as_output()


class AutoscaleInfo(LookupResult):
    min_workers: int
    max_workers: int


class ClusterInfo(LookupResult):
    cluster_id: str
    cluster_name: str | None = None
    state: str
    state_message: str | None = None
    spark_version: str | None = None
    node_type_id: str | None = None
    num_workers: int | None = None
    autoscale: AutoscaleInfo | None = None
    creator_user_name: str | None = None
    start_time: int | None = None
    terminated_time: int | None = None


class ClusterPolicyInfo(LookupResult):
    policy_id: str
    name: str
    # The definition as a JSON object (the service keeps it as text).
    definition: dict[str, Any] = Field(default_factory=dict)
    description: str | None = None
    max_clusters_per_user: int | None = None
    policy_family_id: str | None = None
    creator_user_name: str | None = None
    is_default: bool | None = None

    @classmethod
    def from_service(cls, policy: dict[str, Any]) -> ClusterPolicyInfo:
        text = policy.get("definition") or "{}"
        return cls.model_validate({**policy, "definition": json.loads(text)})


class NodeTypeInfo(LookupResult):
    node_type_id: str
    memory_mb: int
    num_cores: float
    num_gpus: int = 0
    category: str | None = None
    local_disks: int = 0
    local_disk_size_gb: int = 0
    photon_capable: bool = False

    @classmethod
    def from_service(cls, node: dict[str, Any]) -> NodeTypeInfo:
        instance = node.get("node_instance_type") or {}
        return cls.model_validate(
            {
                **node,
                "num_gpus": node.get("num_gpus") or 0,
                "local_disks": instance.get("local_disks") or 0,
                "local_disk_size_gb": instance.get("local_disk_size_gb") or 0,
                "photon_capable": bool(
                    node.get("photon_worker_capable") and node.get("photon_driver_capable")
                ),
            }
        )


class SparkVersionInfo(LookupResult):
    key: str
    name: str
