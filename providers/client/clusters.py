"""The clusters area of the REST API: list, read, start and stop existing clusters."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls

CLUSTERS_PATH = "/api/2.0/clusters"


class ClustersApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ClustersApi({self.client!r})"

    def list(self) -> list[dict[str, Any]]:
        return self.client.get(f"{CLUSTERS_PATH}/list").get("clusters") or []

    def get(self, cluster_id: str) -> dict[str, Any]:
        return self.client.get(f"{CLUSTERS_PATH}/get", {"cluster_id": cluster_id})

    def start(self, cluster_id: str) -> None:
        """Start a TERMINATED cluster. Repeated after a lost answer, the second start fails
        with INVALID_STATE (the cluster is already starting): callers re-read the state."""
        self.client.post(f"{CLUSTERS_PATH}/start", {"cluster_id": cluster_id}, idempotent=True)

    def stop(self, cluster_id: str) -> None:
        """Terminate (the path depends on the wire form); stopping a stopped cluster is a no-op."""
        stop_path = self.client.wire.cluster_stop_path
        self.client.post(stop_path, {"cluster_id": cluster_id}, idempotent=True)
