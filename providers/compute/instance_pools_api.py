"""The instance pools area of the REST API: create, edit, get, list, delete."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls

POOLS_PATH = "/api/2.0/instance-pools"
# Module-level: inside the class `list` names its method.
Objects = list[dict[str, Any]]


class InstancePoolsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"InstancePoolsApi({self.client!r})"

    def list(self) -> Objects:
        """The pools not deleted."""
        return self.client.get(f"{POOLS_PATH}/list").get("instance_pools") or []

    def get(self, pool_id: str) -> dict[str, Any]:
        """The pool; a deleted one shows state DELETED."""
        return self.client.get(f"{POOLS_PATH}/get", {"instance_pool_id": pool_id})

    def create(self, settings: dict[str, Any]) -> str:
        """The new pool's id. Not repeated after a lost answer: callers look for the pool
        by its name, which is unique."""
        return str(self.client.post(f"{POOLS_PATH}/create", settings)["instance_pool_id"])

    def edit(self, pool_id: str, settings: dict[str, Any]) -> None:
        """Replace the pool's editable settings (name and node type required; a setting left
        out is cleared)."""
        body = {**settings, "instance_pool_id": pool_id}
        self.client.post(f"{POOLS_PATH}/edit", body, idempotent=True)

    def delete(self, pool_id: str) -> None:
        self.client.post(f"{POOLS_PATH}/delete", {"instance_pool_id": pool_id}, idempotent=True)
