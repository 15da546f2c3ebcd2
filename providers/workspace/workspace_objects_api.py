"""The workspace objects area of the REST API (`WorkspaceObjectsApi(client)`): notebooks, files
and folders by path. Import (content as base64 in JSON), export (the content back, decoded),
get-status (an object's type, id, language, times and size), list, mkdirs (every folder of a
path; nothing for one that is there) and delete (`recursive` for a folder holding anything).
"""

from __future__ import annotations

import base64
from typing import Any

from providers.client.calls import Calls

WORKSPACE_PATH = "/api/2.0/workspace"


class WorkspaceObjectsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"WorkspaceObjectsApi({self.client!r})"

    def status(self, path: str) -> dict[str, Any]:
        """`object_type`, `object_id`, `path`, and a notebook's `language`, a notebook's or
        file's `created_at` and `modified_at`, a file's `size`; NotFound where nothing is."""
        return self.client.get(f"{WORKSPACE_PATH}/get-status", {"path": path})

    def list(self, path: str) -> list[dict[str, Any]]:
        """The objects in the folder at `path` (each as `status` gives it)."""
        return list(self.client.get(f"{WORKSPACE_PATH}/list", {"path": path}).get("objects")
                    or [])

    def mkdirs(self, path: str) -> None:
        """The folder and every folder above it (nothing for one that is there)."""
        self.client.post(f"{WORKSPACE_PATH}/mkdirs", {"path": path}, idempotent=True)

    def import_(
        self,
        path: str,
        content: bytes,
        *,
        format: str,
        language: str | None = None,
        overwrite: bool = False,
    ) -> None:
        """Puts `content` at `path` in `format` (a notebook's `language` for SOURCE). Without
        `overwrite` a path taken is AlreadyExists, and the call is not repeated after a lost
        answer (the object may have been made); with it, it may be."""
        body: dict[str, Any] = {
            "path": path,
            "format": format,
            "content": base64.b64encode(content).decode(),
            "overwrite": overwrite,
        }
        if language is not None:
            body["language"] = language
        self.client.post(f"{WORKSPACE_PATH}/import", body, idempotent=overwrite)

    def export(self, path: str, format: str | None = None) -> bytes:
        """The object's content in `format` (the service's default, SOURCE, when None)."""
        params = {"path": path} if format is None else {"path": path, "format": format}
        answer = self.client.get(f"{WORKSPACE_PATH}/export", params)
        return base64.b64decode(answer.get("content") or "")

    def delete(self, path: str, recursive: bool = False) -> None:
        self.client.post(
            f"{WORKSPACE_PATH}/delete", {"path": path, "recursive": recursive}, idempotent=True
        )
