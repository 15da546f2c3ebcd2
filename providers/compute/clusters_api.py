"""The clusters area of the REST API: clusters (create, edit, resize, start, stop, restart,
permanent delete, pins), the libraries installed on them, and what they are built from
(node types, Spark versions)."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls

# Module-level: inside the classes `list` names their method.
Objects = list[dict[str, Any]]

CLUSTERS_PATH = "/api/2.0/clusters"
LIBRARIES_PATH = "/api/2.0/libraries"


class ClustersApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ClustersApi({self.client!r})"

    def list(self, *, pinned: bool | None = None) -> Objects:
        """Every cluster; `pinned=True`: only the pinned ones."""
        params = None if pinned is None else {"filter_by.is_pinned": str(pinned).lower()}
        return self.client.get(f"{CLUSTERS_PATH}/list", params).get("clusters") or []

    def get(self, cluster_id: str) -> dict[str, Any]:
        return self.client.get(f"{CLUSTERS_PATH}/get", {"cluster_id": cluster_id})

    def create(self, spec: dict[str, Any]) -> str:
        """Create (and start) a cluster; its id. Not repeated after a lost answer: callers
        look for the cluster they may have made (by its tag)."""
        return str(self.client.post(f"{CLUSTERS_PATH}/create", spec)["cluster_id"])

    def edit(self, cluster_id: str, spec: dict[str, Any]) -> None:
        """Replace the cluster's whole spec; a RUNNING cluster restarts, a TERMINATED one
        stays so (any other state: INVALID_STATE)."""
        body = {**spec, "cluster_id": cluster_id}
        self.client.post(f"{CLUSTERS_PATH}/edit", body, idempotent=True)

    def resize(self, cluster_id: str, size: dict[str, Any]) -> None:
        """`size`: {num_workers} or {autoscale}; a RUNNING cluster only, without a restart."""
        self.client.post(f"{CLUSTERS_PATH}/resize", {**size, "cluster_id": cluster_id},
                         idempotent=True)

    def start(self, cluster_id: str) -> None:
        """Start a TERMINATED cluster. Repeated after a lost answer, the second start fails
        with INVALID_STATE (the cluster is already starting): callers re-read the state."""
        self.client.post(f"{CLUSTERS_PATH}/start", {"cluster_id": cluster_id}, idempotent=True)

    def stop(self, cluster_id: str) -> None:
        """Terminate (the path depends on the wire form); stopping a stopped cluster is a no-op."""
        stop_path = self.client.wire.cluster_stop_path
        self.client.post(stop_path, {"cluster_id": cluster_id}, idempotent=True)

    def permanent_delete(self, cluster_id: str) -> None:
        self.client.post(
            f"{CLUSTERS_PATH}/permanent-delete", {"cluster_id": cluster_id}, idempotent=True
        )

    def set_pinned(self, cluster_id: str, pinned: bool) -> None:
        action = "pin" if pinned else "unpin"
        self.client.post(f"{CLUSTERS_PATH}/{action}", {"cluster_id": cluster_id}, idempotent=True)

    def is_pinned(self, cluster_id: str) -> bool:
        return any(c.get("cluster_id") == cluster_id for c in self.list(pinned=True))

    def node_types(self) -> Objects:
        return self.client.get(f"{CLUSTERS_PATH}/list-node-types").get("node_types") or []

    def spark_versions(self) -> Objects:
        return self.client.get(f"{CLUSTERS_PATH}/spark-versions").get("versions") or []

    # --- libraries ----------------------------------------------------------------------

    def library_statuses(self, cluster_id: str) -> Objects:
        """[{library, status, ...}] of the cluster (UNINSTALL_ON_RESTART: going away)."""
        answer = self.client.get(f"{LIBRARIES_PATH}/cluster-status", {"cluster_id": cluster_id})
        return answer.get("library_statuses") or []

    def install_libraries(self, cluster_id: str, libraries: Objects) -> None:
        body = {"cluster_id": cluster_id, "libraries": libraries}
        self.client.post(f"{LIBRARIES_PATH}/install", body, idempotent=True)

    def uninstall_libraries(self, cluster_id: str, libraries: Objects) -> None:
        body = {"cluster_id": cluster_id, "libraries": libraries}
        self.client.post(f"{LIBRARIES_PATH}/uninstall", body, idempotent=True)
