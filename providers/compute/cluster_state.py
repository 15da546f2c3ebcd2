"""ClusterState: an existing cluster held RUNNING or TERMINATED.

An action resource: it makes no object of its own. Creating or updating it starts or
stops the cluster as needed and waits (up to `timeout_seconds`) until the cluster is in the
desired state; a cluster already there gets no start or stop call. Changing `state` is an
update; another `cluster_id` replaces the resource. Deleting the resource leaves the
cluster as it is (a running cluster keeps running).

Its recorded `state` is the cluster's state when last seen, so `pulumi refresh` (or `up
--refresh`) notices a cluster that was stopped out of band and the next `up` starts it again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import pulumi
from pydantic import BaseModel, ConfigDict, Field, field_validator

from providers.client import NotFound
from providers.compute.clusters_api import ClustersApi
from providers.compute.run_states import DEFAULT_TIMEOUT_SECONDS, ClusterStateError, converge
from providers.core.kind import Lookup, declare
from providers.core.lifecycle import Spec, WorkspaceProvider

if TYPE_CHECKING:
    from providers.client import WorkspaceClient


class ClusterStateModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cluster_id: str
    state: Literal["RUNNING", "TERMINATED"]
    timeout_seconds: int | None = Field(default=None, ge=1, le=24 * 3600)

    @field_validator("cluster_id")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value


class ClusterStateProvider(WorkspaceProvider):
    args_model = ClusterStateModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"cluster_id"})

    def create_object(self, client: WorkspaceClient, args: ClusterStateModel, spec: Spec):
        return args.cluster_id, *self._converge(client, args, spec)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        return self._observed(ClustersApi(client).get(id_), recorded)

    def update_object(self, client, id_, recorded, args: ClusterStateModel, spec: Spec):
        return self._converge(client, args, spec)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        """Leaves the cluster in whatever state it is: the resource only held it there."""

    def _converge(self, client: WorkspaceClient, args: ClusterStateModel, spec: Spec):
        timeout = args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        try:
            cluster = converge(client, args.cluster_id, args.state, timeout)
        except NotFound:
            raise ClusterStateError(
                f"cluster_id {args.cluster_id!r}: no such cluster in the workspace "
                f"{client.connection.base_url}"
            ) from None
        return self._observed(cluster, spec)

    @staticmethod
    def _observed(cluster: Mapping[str, Any], like: Mapping[str, Any]) -> tuple[Spec, dict]:
        observed: Spec = {"cluster_id": cluster["cluster_id"], "state": cluster.get("state")}
        if "timeout_seconds" in like:
            observed["timeout_seconds"] = like["timeout_seconds"]
        computed = {
            "cluster_name": cluster.get("cluster_name"),
            "state_message": cluster.get("state_message") or "",
        }
        return observed, computed


def _cluster_id_named(connection: pulumi.Input[dict], name: str) -> pulumi.Output[str]:
    from providers.compute.lookups import get_cluster

    return get_cluster(connection, name=name).apply(lambda cluster: cluster["cluster_id"])


KIND = declare(
    name="ClusterState",
    provider=ClusterStateProvider,
    outputs={"cluster_name": str, "state_message": str},
    config_key="clusterStates",
    references={"cluster_name": Lookup(field="cluster_id", resolve=_cluster_id_named)},
    importable=False,
    doc="docs/actions.md",
    summary="an action: holds an existing cluster RUNNING or TERMINATED",
    stack_output=("cluster_states", lambda resource: resource.state),
    action="holds an existing cluster RUNNING or TERMINATED",
)
