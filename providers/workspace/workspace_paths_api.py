"""What is at a workspace path (`WorkspacePathsApi(client)`): the workspace's get-status call,
which names the object's type (NOTEBOOK, DIRECTORY, FILE, REPO, ...) and its object id, the
id its permissions are addressed by."""

from __future__ import annotations

from typing import Any

from providers.client.calls import Calls

GET_STATUS_PATH = "/api/2.0/workspace/get-status"


class WorkspacePathsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"WorkspacePathsApi({self.client!r})"

    def status(self, path: str) -> dict[str, Any]:
        """`object_type`, `object_id`, `path` (and a notebook's `language`) of the object at
        `path`, with or without the /Workspace prefix; NotFound where nothing is."""
        return self.client.get(GET_STATUS_PATH, {"path": path})
