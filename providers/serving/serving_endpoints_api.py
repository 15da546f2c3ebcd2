"""The serving endpoints area of the REST API: an endpoint addressed by its name; its
config, AI gateway and tags each changed by a call of its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

ENDPOINTS_PATH = "/api/2.0/serving-endpoints"
# Module-level: inside the class `list` names its method.
Objects = list[dict[str, Any]]


class ServingEndpointsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ServingEndpointsApi({self.client!r})"

    def list(self) -> Objects:
        return list(self.client.get(ENDPOINTS_PATH).get("endpoints") or [])

    def get(self, name: str) -> dict[str, Any]:
        return self.client.get(_path(name))

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """The endpoint as made (NOT_READY, its config pending). Not repeated after a lost
        answer: callers look for the endpoint by its name, which is unique."""
        return self.client.post(ENDPOINTS_PATH, body)

    def update_config(self, name: str, config: dict[str, Any]) -> dict[str, Any]:
        """One config update (served entities, traffic); refused while another is in
        progress."""
        return self.client.put(f"{_path(name)}/config", config)

    def put_ai_gateway(self, name: str, gateway: dict[str, Any]) -> dict[str, Any]:
        """Replace the AI gateway settings (an empty body clears them)."""
        return self.client.put(f"{_path(name)}/ai-gateway", gateway)

    def patch_tags(self, name: str, add: Objects, delete: Sequence[str]) -> None:
        self.client.patch(f"{_path(name)}/tags", {"add_tags": add, "delete_tags": list(delete)})

    def delete(self, name: str) -> None:
        self.client.delete(_path(name))


def _path(name: str) -> str:
    return f"{ENDPOINTS_PATH}/{quote(name, safe='')}"
