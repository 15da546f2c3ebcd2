"""What the workspace object kinds share (Notebook, WorkspaceFile, Directory): workspace paths
as the service reads them, and content taken from a file of the project or given inline,
known to the state only by its digest.

**Paths.** Absolute, with or without the `/Workspace` prefix (the service's mount of the
same tree, which get-status answers without): `/Workspace/Shared/etl` and `/Shared/etl` are
one object, recorded as `/Shared/etl`. Repeated slashes are one, a trailing slash is
dropped, `.` and `..` are refused. The folders every workspace has (`/`, `/Users`,
`/Shared`, `/Repos`) are no object of a stack's; under `/Repos` only the folders that hold
Git folders (`/Repos/<folder>`) are, a Git folder's contents being its remote's.

**Content.** `source` names a file by its path relative to the project directory (the one
holding `Pulumi.yaml`, found from the working directory, which the engine sets to the
program's: a path that does not move with the checkout), inside it, links resolved (a
symbolic link out of the project is refused); `content_base64` gives
small content inline (at most 64 KiB). The service takes at most 10 MB. Check reads the
content and records its SHA-256 (`content_sha256`, of the bytes as uploaded), never the
content: a `source` is kept (a path), inline content is dropped from the checked inputs and
kept in the provider process's memory (its process state) for the create or update of the
same deployment, whose checked inputs the engine hands back. The diff compares digests, so
a changed file is a change of the object, a moved one with the same bytes is not.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from pulumi.dynamic import CheckFailure

from providers.client import AlreadyExists, NotFound
from providers.client.process import Store
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.project_files import (  # noqa: F401 (kept importable from here)
    PROJECT_FILES,
    project_directory,
    project_file,
    source_roots,
)
from providers.workspace.workspace_objects_api import WorkspaceObjectsApi

WORKSPACE_PREFIX = "/Workspace"
TOP_LEVEL_FOLDERS = ("/", "/Users", "/Shared", "/Repos")
REPOS_FOLDER = "/Repos"
MAX_CONTENT_BYTES = 10 * 1024 * 1024  # the service's limit of one import
MAX_INLINE_BYTES = 64 * 1024
_SLASHES = re.compile(r"/{2,}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
# A path segment's characters the emulator and the service refuse: control characters.
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def canonical_path(value: str) -> str:
    """The path as the service records it (no `/Workspace` prefix, single slashes, no
    trailing one); ValueError for one that is not absolute or climbs."""
    if not value.startswith("/"):
        raise ValueError("must be an absolute workspace path, starting with /")
    clean = _SLASHES.sub("/", value)
    if clean == WORKSPACE_PREFIX or clean.startswith(WORKSPACE_PREFIX + "/"):
        clean = clean[len(WORKSPACE_PREFIX):] or "/"
    clean = clean.rstrip("/") or "/"
    if any(part in (".", "..") for part in clean.split("/")):
        raise ValueError("must not have . or .. segments")
    if _CONTROL.search(clean):
        raise ValueError("must not hold control characters")
    return clean


def object_path(value: str, *, folder: bool = False) -> str:
    """A path a stack's object may have: not one of the folders every workspace has, and
    under /Repos only a folder of Git folders (`folder`: the object is a folder)."""
    path = canonical_path(value)
    if path in TOP_LEVEL_FOLDERS:
        raise ValueError(f"{path} is a folder every workspace has; name one inside it")
    if path.startswith(REPOS_FOLDER + "/"):
        if not folder or path.count("/") > 2:
            raise ValueError(
                "under /Repos are only Git folders (the Repo kind) and the folders that hold "
                "them (/Repos/<folder>); put notebooks and files elsewhere, e.g. /Shared/..."
            )
    return path


def same_path(one: str, other: str) -> bool:
    try:
        return canonical_path(one) == canonical_path(other)
    except ValueError:
        return one == other


def parent_folder(path: str) -> str:
    return path.rsplit("/", 1)[0] or "/"


def workspace_path(path: str) -> str:
    """The object's path under the `/Workspace` mount (what a task's path may also say)."""
    return WORKSPACE_PREFIX + path


# Folders whose contents belong to people and to Git folders, never listed for a stack: the
# users' home folders and the Git folders under /Repos (the Repo kind's).
PERSONAL_FOLDERS = ("/Users", REPOS_FOLDER)


def stack_objects(client: Any, object_type: str) -> Iterator[tuple[str, str]]:
    """(path, path) of every object of `object_type` (NOTEBOOK, FILE or DIRECTORY) a stack
    may hold, for the audit and adoption: the tree walked from `/`, one list call per
    folder, but the users' home folders and /Repos, and nothing inside a Git folder
    wherever it is. A folder is listed only where it is empty: a folder holding anything
    is made by what it holds (a notebook's or file's upload makes its folder, a Directory
    its parents). Inside `one_tree_walk()` the three kinds share one walk."""
    walks = _tree_walks.get()
    if walks is None:
        entries: Iterable[tuple[str, str]] = _walk(client)
    else:
        if id(client) not in walks:
            walks[id(client)] = (client, list(_walk(client)))
        entries = walks[id(client)][1]
    for kind, path in entries:
        if kind == object_type:
            yield path, path


# Inside `one_tree_walk()`: the walk of each client (kept beside its id, so the id stays its).
_tree_walks: ContextVar[dict[int, tuple[Any, list[tuple[str, str]]]] | None] = ContextVar(
    "tree_walks", default=None
)


@contextmanager
def one_tree_walk() -> Iterator[None]:
    """Inside the block, the workspace tree is walked once per client: the audit and adopt
    list notebooks, files and folders, each kind from the same walk."""
    token = _tree_walks.set({})
    try:
        yield
    finally:
        _tree_walks.reset(token)


def _walk(client: Any) -> Iterator[tuple[str, str]]:
    """(object type, path) of what `stack_objects` lists, a folder only where empty."""
    folders = ["/"]
    while folders:
        folder = folders.pop()
        entries = WorkspaceObjectsApi(client).list(folder)
        if not entries and folder not in TOP_LEVEL_FOLDERS:
            yield "DIRECTORY", folder
        inside = []
        for entry in sorted(entries, key=lambda e: str(e.get("path"))):
            path = canonical_path(str(entry.get("path")))
            kind = str(entry.get("object_type"))
            if kind == "DIRECTORY":
                if path not in PERSONAL_FOLDERS:
                    inside.append(path)
            else:
                yield kind, path
        folders.extend(reversed(inside))


# --- content ------------------------------------------------------------------------------


def source_file(source: str) -> Path:
    """The file `source` names, its real path (links resolved) inside the project directory
    (providers/core/project_files.py); ValueError saying what is wrong with it."""
    return project_file(source, max_bytes=MAX_CONTENT_BYTES,
                        limit=f"the service imports at most {MAX_CONTENT_BYTES} bytes (10 MB)")


def inline_content(value: str) -> bytes:
    """`content_base64` decoded; ValueError where it is not base64 or too long."""
    try:
        content = base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("must be base64 (the standard alphabet, padded)") from None
    if len(content) > MAX_INLINE_BYTES:
        raise ValueError(f"is {len(content)} bytes: inline content is at most "
                         f"{MAX_INLINE_BYTES} bytes; give a file of the project as `source`")
    return content


def digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def digest_problem(value: str) -> str | None:
    return None if _SHA256.fullmatch(value) else "must be a SHA-256 digest: 64 hex digits"


def checked_digest(value: str) -> str:
    """A declared `content_sha256`, as a model's validator takes it."""
    problem = digest_problem(value)
    if problem:
        raise ValueError(problem)
    return value


def current_digest(status: Mapping[str, Any], recorded: Mapping[str, Any],
                   export: Callable[[], bytes]) -> str:
    """The digest of an object's content: the recorded one while the service's `modified_at`
    is the one recorded with it, else the digest of the content `export` reads."""
    unchanged = (
        recorded.get("content_sha256") is not None
        and recorded.get("modified_at") is not None
        and status.get("modified_at") == recorded.get("modified_at")
    )
    return str(recorded["content_sha256"]) if unchanged else digest(export())


def upload_making_parent(objects: Any, path: str, upload: Callable[[], None]) -> None:
    """Runs `upload` of the object at `path`; where its folder is missing, makes the folder
    and uploads again."""
    try:
        upload()
    except NotFound:
        objects.mkdirs(parent_folder(path))
        upload()


def create_at(path: str, upload: Callable[[], None],
              found: Callable[[], Mapping[str, Any] | None]) -> None:
    """Creates the object at `path` or adopts the declared one there (create_or_adopt); where
    something else holds the path, the service's refusal says how to take it over."""
    try:
        create_or_adopt(upload, found)
    except AlreadyExists as error:
        if found() is None:
            error.message += (
                f" ({path} holds something else made outside this stack: import it, "
                f"`import: {path}` in the stack config or `pulumi import`, or give "
                "another path)")
            error.args = (str(error),)
            raise


class ContentUnavailable(Exception):
    """The content of inputs whose inline content this process never checked."""


class CheckedContent:
    """Inline content this process checked, by its digest (see the module's docstring)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_digest: dict[str, bytes] = {}


checked_content = Store("inline content checked", CheckedContent)


def remember(content: bytes) -> str:
    key = digest(content)
    held = checked_content()
    with held.lock:
        held.by_digest[key] = content
    return key


def remembered(key: str) -> bytes | None:
    held = checked_content()
    with held.lock:
        return held.by_digest.get(key)


def content_source_rules(inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
    """One of `source` and `content_base64`, each readable."""
    given = [key for key in ("source", "content_base64") if inputs.get(key) is not None]
    if not given:
        return [("source", "required: a file of the project (`source`), or small content "
                           "inline (`content_base64`)")]
    if len(given) > 1:
        return [("content_base64", "give source or content_base64, not both")]
    key = given[0]
    try:
        if key == "source":
            source_file(inputs["source"])
        else:
            inline_content(inputs["content_base64"])
    except ValueError as error:
        return [(key, str(error))]
    return []


def raw_content(inputs: Mapping[str, Any]) -> bytes | None:
    """The declared content, read or decoded; None where only its digest is left (inline
    content after check)."""
    if inputs.get("content_base64") is not None:
        return inline_content(inputs["content_base64"])
    if inputs.get("source") is not None:
        return source_file(inputs["source"]).read_bytes()
    return None


def checked_inputs(
    inputs: Mapping[str, Any], prepared: bytes
) -> tuple[dict[str, Any], list[CheckFailure]]:
    """The inputs as the state records them: the digest of the content as uploaded
    (`prepared`) in `content_sha256`, inline content left out (remembered here)."""
    checked = dict(inputs)
    key = digest(prepared)
    declared = inputs.get("content_sha256")
    if declared is not None and declared != key:
        reason = (f"the content's SHA-256 is {key}, not the declared {declared} (the file "
                  "changed, or the digest is of other content)")
        return checked, [CheckFailure("content_sha256", reason)]
    if checked.pop("content_base64", None) is not None:
        remember(prepared)
    checked["content_sha256"] = key
    return checked, []


def upload_content(inputs: Mapping[str, Any], prepared: bytes | None) -> bytes:
    """The content to upload: the prepared declared content, or the inline content this
    process checked for the recorded digest; it must match the checked digest."""
    key = inputs.get("content_sha256")
    if prepared is None:
        found = remembered(key) if key else None
        if found is None:
            raise ContentUnavailable(
                "the inline content (content_base64) of this resource was checked by another "
                "provider process, and the state keeps only its digest: run the update again "
                "(`pulumi up`), which checks it anew")
        return found
    if key and digest(prepared) != key:
        raise ContentUnavailable(
            f"the content changed since this deployment checked it (SHA-256 {key}, now "
            f"{digest(prepared)}): run the update again")
    return prepared


def path_id_problem(id_: str) -> str | None:
    """What is wrong with a workspace path as an import id (a notebook's, a file's, a
    folder's), before any request; None where nothing is."""
    try:
        canonical_path(id_)
    except ValueError as error:
        return str(error)
    return import_ids.no_dot_segments(id_)
