"""Driving a cluster to a run state (RUNNING, TERMINATED) and waiting for it: what the Cluster and
ClusterState kinds share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from providers.client import InvalidState
from providers.compute.clusters_api import ClustersApi
from providers.core.polling import drive_to_state

if TYPE_CHECKING:
    from providers.client import WorkspaceClient


DEFAULT_TIMEOUT_SECONDS = 1200


class ClusterStateError(Exception):
    """The cluster cannot reach, or did not reach in time, the desired state."""


def converge(
    client: WorkspaceClient, cluster_id: str, desired: str, timeout_seconds: float
) -> dict[str, Any]:
    """Start or stop the cluster until it is `desired`; the cluster as last read."""

    def act(action: str) -> None:
        try:
            if action == "start":
                ClustersApi(client).start(cluster_id)
            else:
                ClustersApi(client).stop(cluster_id)
        except InvalidState:
            pass  # It moved since we looked (another start, say): look again.

    def stuck(cluster: dict[str, Any], why: str) -> ClusterStateError:
        named = f"cluster {cluster_id} ({cluster.get('cluster_name')})"
        message = cluster.get("state_message") or "no message"
        state = f"{cluster.get('state', 'UNKNOWN')} ({message})"
        if why == "cannot":
            return ClusterStateError(f"{named} is {state}; it cannot be started")
        return ClusterStateError(
            f"{named} did not become {desired} within {timeout_seconds:g} s: it is {state}. "
            "Run `pulumi up` again to go on waiting, or raise timeout_seconds"
        )

    return drive_to_state(f"cluster {cluster_id}", desired, timeout_seconds,
                          lambda: ClustersApi(client).get(cluster_id), act, _ACTIONS, stuck)


# What to do about a cluster in a state, per desired state; states not named here: wait.
_ACTIONS: dict[str, dict[str, str]] = {
    "RUNNING": {"TERMINATED": "start", "ERROR": "fail"},
    "TERMINATED": {
        state: "stop"
        for state in ("PENDING", "RUNNING", "RESTARTING", "RESIZING", "ERROR", "UNKNOWN")
    },
}
