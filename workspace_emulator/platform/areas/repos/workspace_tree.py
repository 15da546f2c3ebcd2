"""The workspace file tree as `workspace/get-status` sees it: the repos (Git folders) and
the folders that hold them, under the top-level folders every workspace has.

Nothing else lives in the tree here (no notebooks or files): the emulator has no
workspace import. A folder's id is derived from its path, so it stays the same across
restarts.
"""

from __future__ import annotations

import hashlib
from typing import Any

from workspace_emulator.errors import InvalidParameter, NotFound
from workspace_emulator.platform.areas.repos.model import Repos

TOP_LEVEL_FOLDERS = ("/", "/Users", "/Shared", "/Repos")
WORKSPACE_PREFIX = "/Workspace"  # the service accepts paths with and without it


def _folder_id(path: str) -> int:
    return int.from_bytes(hashlib.sha256(path.encode()).digest()[:6], "big")


def _parents(path: str) -> list[str]:
    parts = path.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[:end]) for end in range(1, len(parts) + 1)]


def _normalized(path: str) -> str:
    if not path.startswith("/"):
        raise InvalidParameter(f"Path ({path}) must be absolute: it starts with '/'.")
    if path == WORKSPACE_PREFIX or path.startswith(WORKSPACE_PREFIX + "/"):
        path = path[len(WORKSPACE_PREFIX):] or "/"
    return path.rstrip("/") or "/"


def get_status(repos: Repos, path: str) -> dict[str, Any]:
    """The object at `path`: a REPO or a DIRECTORY; 404 as the service words it."""
    wanted = _normalized(path)
    repo_paths = repos.paths()
    if wanted in repo_paths:
        repo_id = repo_paths[wanted]
        return {"object_type": "REPO", "path": wanted, "object_id": repo_id,
                "resource_id": str(repo_id)}
    folders = set(TOP_LEVEL_FOLDERS).union(*(_parents(p) for p in repo_paths))
    if wanted in folders:
        folder_id = _folder_id(wanted)
        return {"object_type": "DIRECTORY", "path": wanted, "object_id": folder_id,
                "resource_id": str(folder_id)}
    raise NotFound(f"Path ({path}) doesn't exist.")
