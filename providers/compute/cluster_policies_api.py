"""The cluster policies area of the REST API: create, edit, get, list, delete a policy, and
the policy families a policy may inherit from."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls

# Module-level: inside the classes `list` names their method.
Objects = list[dict[str, Any]]

POLICIES_PATH = "/api/2.0/policies/clusters"
FAMILIES_PATH = "/api/2.0/policy-families"


class ClusterPoliciesApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ClusterPoliciesApi({self.client!r})"

    def list(self) -> Objects:
        return self.client.get(f"{POLICIES_PATH}/list").get("policies") or []

    def get(self, policy_id: str) -> dict[str, Any]:
        return self.client.get(f"{POLICIES_PATH}/get", {"policy_id": policy_id})

    def create(self, fields: dict[str, Any]) -> str:
        """The new policy's id. Not repeated after a lost answer: callers look for the
        policy by its name, which is unique."""
        return str(self.client.post(f"{POLICIES_PATH}/create", fields)["policy_id"])

    def edit(self, policy_id: str, fields: dict[str, Any]) -> None:
        """Replace every field of the policy (a field left out is cleared)."""
        body = {**fields, "policy_id": policy_id}
        self.client.post(f"{POLICIES_PATH}/edit", body, idempotent=True)

    def delete(self, policy_id: str) -> None:
        self.client.post(f"{POLICIES_PATH}/delete", {"policy_id": policy_id}, idempotent=True)

    def families(self) -> Objects:
        return self.client.get(FAMILIES_PATH).get("policy_families") or []
