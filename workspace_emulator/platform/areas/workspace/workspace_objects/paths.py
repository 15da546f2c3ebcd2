"""Workspace paths as the service reads them: absolute, with or without the `/Workspace`
prefix (the same object either way, answered without it), repeated slashes collapsed and a
trailing slash dropped; `.` and `..` segments are refused.

Every workspace has its top-level folders (`/`, `/Users`, `/Shared`, `/Repos`); the folders
that hold repos exist while they hold one. Their ids are derived from the path, so they stay
the same across restarts.
"""

from __future__ import annotations

import hashlib
import re

from workspace_emulator.errors import InvalidParameter

ROOT = "/"
TOP_LEVEL_FOLDERS = (ROOT, "/Users", "/Shared", "/Repos")
REPOS_FOLDER = "/Repos"
WORKSPACE_PREFIX = "/Workspace"  # the service accepts paths with and without it
_SLASHES = re.compile(r"/{2,}")


def normalized(path: str) -> str:
    """The path as the service stores it; 400 for one that is not absolute or climbs."""
    if not path.startswith("/"):
        raise InvalidParameter(f"Path ({path}) must be absolute: it starts with '/'.")
    clean = _SLASHES.sub("/", path)
    if clean == WORKSPACE_PREFIX or clean.startswith(WORKSPACE_PREFIX + "/"):
        clean = clean[len(WORKSPACE_PREFIX):] or ROOT
    clean = clean.rstrip("/") or ROOT
    if any(part in (".", "..") for part in clean.split("/")):
        raise InvalidParameter(f"Path ({path}) is not a valid workspace path: it contains "
                               "'.' or '..' segments.")
    return clean


def parent(path: str) -> str:
    head = path.rsplit("/", 1)[0]
    return head or ROOT


def name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def ancestors(path: str) -> list[str]:
    """Every folder above `path`, outermost first, `/` left out."""
    parts = path.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[:end]) for end in range(1, len(parts) + 1)]


def is_within(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or below it."""
    return folder == ROOT or path == folder or path.startswith(folder + "/")


def folder_id(path: str) -> int:
    """The id of a folder every workspace has (or a repo's folder): derived from its path."""
    return int.from_bytes(hashlib.sha256(path.encode()).digest()[:6], "big")
