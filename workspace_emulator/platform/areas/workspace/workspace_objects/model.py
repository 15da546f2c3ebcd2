"""The workspace's file tree: folders, notebooks and files, beside the repos (Git folders)
of the repos area and the folders every workspace has (paths.py).

Each object has a path (unique, kept without the `/Workspace` prefix), an object id (a new
one per object; an overwrite keeps it), its type, and for notebooks and files the content
as imported, a `created_at` and a `modified_at` (epoch milliseconds, on the emulator's
clock); a notebook has its language, a file its size. formats.py says what an import makes
and what an export gives back.

Rules, as the service has them: an object's parent folder must exist (mkdirs makes every
folder of a path, and succeeds on one that is there already); a path taken is
RESOURCE_ALREADY_EXISTS unless `overwrite` (a folder is never overwritten); a folder that
holds anything is deleted only with `recursive` (DIRECTORY_NOT_EMPTY otherwise); content is
at most 10 MB (MAX_NOTEBOOK_SIZE_EXCEEDED). The emulator holds no contents of a Git folder:
a path inside a repo cannot be written (a notebook there counts as present for a job's run),
and under `/Repos` only the folders that hold repos can be made.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import (
    AlreadyExists,
    DirectoryNotEmpty,
    InvalidParameter,
    MaxNotebookSizeExceeded,
    NotFound,
)
from workspace_emulator.platform.areas.workspace.repos.model import Repos
from workspace_emulator.platform.areas.workspace.workspace_objects import formats, paths
from workspace_emulator.platform.areas.workspace.workspace_objects.paths import (
    REPOS_FOLDER,
    ROOT,
    TOP_LEVEL_FOLDERS,
)
from workspace_emulator.storage import Database, from_json, to_json

OBJECT_ID_START = 1_800_000_000_000_001
MAX_CONTENT_BYTES = 10 * 1024 * 1024
# The object types of /permissions/<type>/<id> this area holds, and their object_type.
PERMISSION_TYPES = {"notebooks": "NOTEBOOK", "directories": "DIRECTORY", "files": "FILE"}

TABLES = """
CREATE TABLE IF NOT EXISTS workspace_objects (path TEXT PRIMARY KEY, parent TEXT NOT NULL,
    object_id INTEGER NOT NULL UNIQUE, doc TEXT NOT NULL, content BLOB);
CREATE INDEX IF NOT EXISTS workspace_objects_by_parent ON workspace_objects (parent);
"""


def _view(path: str, object_id: int, doc: dict[str, Any]) -> dict[str, Any]:
    """An object as get-status and list show it."""
    shown: dict[str, Any] = {"object_type": doc["object_type"], "path": path,
                             "object_id": object_id, "resource_id": str(object_id)}
    if doc["object_type"] == "NOTEBOOK":
        shown["language"] = doc["language"]
    if doc["object_type"] in ("NOTEBOOK", "FILE"):
        shown["created_at"] = doc["created_at"]
        shown["modified_at"] = doc["modified_at"]
    if doc["object_type"] == "FILE":
        shown["size"] = doc["size"]
    return shown


def _folder_view(path: str) -> dict[str, Any]:
    folder_id = paths.folder_id(path)
    return {"object_type": "DIRECTORY", "path": path, "object_id": folder_id,
            "resource_id": str(folder_id)}


def _repo_view(path: str, repo_id: int) -> dict[str, Any]:
    return {"object_type": "REPO", "path": path, "object_id": repo_id,
            "resource_id": str(repo_id)}


class WorkspaceObjects:
    def __init__(self, db: Database, repos: Repos) -> None:
        self._db = db
        self._repos = repos

    # --- initial data -----------------------------------------------------------------
    def add_initial(self, conn: sqlite3.Connection, spec: dict[str, Any]) -> None:
        """A folder, notebook (with `language`, `content` as text) or file of the
        initial-data file, with its object id; its parent must be there already."""
        path = paths.normalized(spec["path"])
        object_type = spec["object_type"]
        content = str(spec.get("content", "")).encode()
        now = clock.now_ms()
        doc: dict[str, Any] = {"object_type": object_type}
        if object_type == "NOTEBOOK":
            doc.update(language=spec["language"], format=spec.get("format", "SOURCE"))
        if object_type in ("NOTEBOOK", "FILE"):
            doc.update(created_at=now, modified_at=now)
        if object_type == "FILE":
            doc["size"] = len(content)
        self._parent_folder(conn, path)
        conn.execute(
            "INSERT INTO workspace_objects (path, parent, object_id, doc, content) "
            "VALUES (?, ?, ?, ?, ?)",
            (path, paths.parent(path), int(spec["object_id"]), to_json(doc),
             None if object_type == "DIRECTORY" else content))

    # --- reads ------------------------------------------------------------------------
    def get_status(self, path: str) -> dict[str, Any]:
        """The object at `path`; 404 as the service words it."""
        wanted = paths.normalized(path)
        with self._db.read() as conn:
            found = self._status(conn, wanted)
        if found is None:
            raise NotFound(f"Path ({path}) doesn't exist.")
        return found

    def list(self, path: str, notebooks_modified_after: int | None = None) -> dict[str, Any]:
        """The objects in a folder, by path (an empty folder answers `{}`); a notebook or
        file lists itself."""
        wanted = paths.normalized(path)
        with self._db.read() as conn:
            found = self._status(conn, wanted)
            if found is None:
                raise NotFound(f"Path ({path}) doesn't exist.")
            if found["object_type"] in ("DIRECTORY",):
                objects = list(self._children(conn, wanted))
            elif found["object_type"] == "REPO":
                objects = []  # the emulator holds no contents of a Git folder
            else:
                objects = [found]
        if notebooks_modified_after is not None:
            objects = [o for o in objects if o["object_type"] != "NOTEBOOK"
                       or o["modified_at"] > notebooks_modified_after]
        return {"objects": objects} if objects else {}

    def export(self, path: str, format_: str | None) -> tuple[bytes, str]:
        """(content, file type) of the object at `path` in `format_`."""
        wanted = paths.normalized(path)
        with self._db.read() as conn:
            found = self._status(conn, wanted)
            if found is None:
                raise NotFound(f"Path ({path}) doesn't exist.")
            if found["object_type"] in ("DIRECTORY", "REPO"):
                entries = list(self._entries_below(conn, wanted))
                return formats.export_folder(entries, format_)
            row = self._stored(conn, wanted)
        assert row is not None
        doc, content = from_json(row["doc"]), bytes(row["content"] or b"")
        if doc["object_type"] == "NOTEBOOK":
            return formats.export_notebook(content, doc["language"], doc["format"], format_,
                                           paths.name(wanted))
        return formats.export_file(content, format_, paths.name(wanted))

    def exists(self, object_type: str, object_id: str) -> bool:
        """Whether an object of this type (NOTEBOOK, DIRECTORY, FILE) has `object_id`: what
        the permissions of notebooks, directories and files ask."""
        if not object_id.isdigit():
            return False
        with self._db.read() as conn:
            row = conn.execute("SELECT doc FROM workspace_objects WHERE object_id = ?",
                               (int(object_id),)).fetchone()
        if row is not None:
            return bool(from_json(row["doc"])["object_type"] == object_type)
        return object_type == "DIRECTORY" and int(object_id) in {
            paths.folder_id(folder) for folder in self._virtual_folders()}

    def notebook_problem(self, path: str) -> str | None:
        """Why a job's notebook task cannot run the notebook at `path` (None when it can): it
        is not there, or is not a notebook. A path inside a repo counts as there: the
        emulator holds no contents of Git folders."""
        return self.object_problem(path, "NOTEBOOK")

    def object_problem(self, path: str, object_type: str) -> str | None:
        """Why what is at `path` cannot be read as an object of `object_type` (NOTEBOOK,
        FILE; None when it can), as notebook_problem says it."""
        try:
            wanted = paths.normalized(path)
        except InvalidParameter:
            return "is not an absolute workspace path"
        with self._db.read() as conn:
            if self._repo_holding(wanted) is not None:
                return None
            found = self._status(conn, wanted)
        if found is None:
            return "does not exist"  # job_runs.MISSING
        if found["object_type"] != object_type:
            return f"is a {found['object_type'].lower()}, not a {object_type.lower()}"
        return None

    # --- writes -----------------------------------------------------------------------
    def mkdirs(self, path: str) -> None:
        """The folder and every folder above it; nothing for one that is there already."""
        wanted = paths.normalized(path)
        with self._db.write() as conn:
            self._writable(wanted, folder=True)
            for folder in [*paths.ancestors(wanted), wanted]:
                found = self._status(conn, folder)
                if found is None:
                    self._insert(conn, folder, {"object_type": "DIRECTORY"}, None)
                elif found["object_type"] != "DIRECTORY":
                    raise AlreadyExists(
                        f"Cannot create the folder {wanted}: {folder} already exists and it is "
                        "not a folder.")

    def import_(self, path: str, content: bytes, format_: str | None, language: str | None,
                overwrite: bool) -> None:
        wanted = paths.normalized(path)
        if len(content) > MAX_CONTENT_BYTES:
            raise MaxNotebookSizeExceeded(
                f"The content of {wanted} is {len(content)} bytes, more than the "
                f"{MAX_CONTENT_BYTES} bytes (10 MB) an import takes.")
        made = formats.resolve(wanted, content, format_, language)
        target = made.path
        with self._db.write() as conn:
            self._writable(target, folder=False)
            self._parent_folder(conn, target)
            found = self._status(conn, target)
            now = clock.now_ms()
            doc: dict[str, Any] = {"object_type": made.object_type, "created_at": now,
                                   "modified_at": now, "format": made.stored_format}
            if made.language is not None:
                doc["language"] = made.language
            if made.object_type == "FILE":
                doc["size"] = len(content)
            if found is None:
                self._insert(conn, target, doc, content)
                return
            if not overwrite or found["object_type"] in ("DIRECTORY", "REPO"):
                raise AlreadyExists(f"Node named '{paths.name(target)}' already exists")
            if found["object_type"] == made.object_type:
                doc["created_at"] = found["created_at"]
                object_id = found["object_id"]
            else:  # a notebook in place of a file, or the other way: another object
                object_id = self._db.next_value(conn, "workspace_object_id", OBJECT_ID_START)
            conn.execute(
                "UPDATE workspace_objects SET object_id = ?, doc = ?, content = ? "
                "WHERE path = ?", (object_id, to_json(doc), content, target))

    def delete(self, path: str, recursive: bool) -> None:
        wanted = paths.normalized(path)
        with self._db.write() as conn:
            found = self._status(conn, wanted)
            if found is None:
                raise NotFound(f"Path ({path}) doesn't exist.")
            if wanted in TOP_LEVEL_FOLDERS:
                raise InvalidParameter(f"The folder {wanted} cannot be deleted: every "
                                       "workspace has it.")
            if found["object_type"] == "REPO":
                self._repos.delete(found["object_id"])
                return
            if found["object_type"] == "DIRECTORY":
                held = list(self._children(conn, wanted))
                if held and not recursive:
                    raise DirectoryNotEmpty(f"Folder ({wanted}) is not empty.")
                for repo_path, repo_id in self._repo_paths().items():
                    if paths.is_within(repo_path, wanted):
                        self._repos.delete(repo_id)
                conn.execute("DELETE FROM workspace_objects WHERE path = ? OR path LIKE ? "
                             "ESCAPE '\\'", (wanted, _below(wanted)))
                return
            conn.execute("DELETE FROM workspace_objects WHERE path = ?", (wanted,))

    # --- helpers ------------------------------------------------------------------------
    @staticmethod
    def _stored(conn: sqlite3.Connection, path: str) -> sqlite3.Row | None:
        return conn.execute("SELECT path, object_id, doc, content FROM workspace_objects "
                            "WHERE path = ?", (path,)).fetchone()

    def _repo_paths(self) -> dict[str, int]:
        return {paths.normalized(path): repo_id for path, repo_id in self._repos.paths().items()}

    def _virtual_folders(self) -> set[str]:
        """The folders every workspace has, and those that hold repos."""
        return set(TOP_LEVEL_FOLDERS).union(*(paths.ancestors(p) for p in self._repo_paths()))

    def _repo_holding(self, path: str) -> str | None:
        """The repo `path` is inside of (not the repo's own path), if any."""
        return next((repo for repo in self._repo_paths()
                     if path != repo and paths.is_within(path, repo)), None)

    def _status(self, conn: sqlite3.Connection, path: str) -> dict[str, Any] | None:
        row = self._stored(conn, path)
        if row is not None:
            return _view(path, row["object_id"], from_json(row["doc"]))
        repos = self._repo_paths()
        if path in repos:
            return _repo_view(path, repos[path])
        if path in self._virtual_folders():
            return _folder_view(path)
        return None

    def _children(self, conn: sqlite3.Connection, folder: str) -> Iterator[dict[str, Any]]:
        """The objects directly in `folder`, by path."""
        found: dict[str, dict[str, Any]] = {}
        for row in conn.execute("SELECT path, object_id, doc FROM workspace_objects "
                                "WHERE parent = ? AND path != ?", (folder, ROOT)):
            found[row["path"]] = _view(row["path"], row["object_id"], from_json(row["doc"]))
        for repo_path, repo_id in self._repo_paths().items():
            if paths.parent(repo_path) == folder and repo_path not in found:
                found[repo_path] = _repo_view(repo_path, repo_id)
        for virtual in self._virtual_folders():
            if virtual != ROOT and paths.parent(virtual) == folder and virtual not in found:
                found[virtual] = _folder_view(virtual)
        for path in sorted(found):
            yield found[path]

    def _entries_below(self, conn: sqlite3.Connection, folder: str
                       ) -> Iterator[formats.Entry]:
        prefix = "" if folder == ROOT else folder
        for row in conn.execute("SELECT path, doc, content FROM workspace_objects "
                                "WHERE path LIKE ? ESCAPE '\\' ORDER BY path",
                                (_below(folder),)):
            doc = from_json(row["doc"])
            if doc["object_type"] == "DIRECTORY":
                continue
            yield formats.Entry(row["path"][len(prefix) + 1:], doc["object_type"],
                                bytes(row["content"] or b""), doc.get("language"),
                                doc.get("format", "RAW"))

    def _writable(self, path: str, folder: bool) -> None:
        """400 where the emulator cannot write `path`: a folder every workspace has, inside
        a repo, or under /Repos (where only the folders that hold repos are made)."""
        repo = self._repo_holding(path)
        if repo is not None:
            raise InvalidParameter(
                f"Cannot write {path}: it is inside the Git folder {repo}, whose contents "
                "come from its remote (the emulator holds none).")
        if paths.is_within(path, REPOS_FOLDER) and path != REPOS_FOLDER:
            depth = path.count("/")
            if not folder or depth > 2:
                raise InvalidParameter(
                    f"Cannot create {path}: /Repos holds only folders of Git folders "
                    "(/Repos/<folder>/<repo>); make a repo instead.")
        if path == ROOT and not folder:
            raise InvalidParameter("Path (/) is the workspace's root folder.")

    def _parent_folder(self, conn: sqlite3.Connection, path: str) -> None:
        parent = paths.parent(path)
        found = self._status(conn, parent)
        if found is None or found["object_type"] != "DIRECTORY":
            raise NotFound(f"The parent folder ({parent}) does not exist.")

    def _insert(self, conn: sqlite3.Connection, path: str, doc: dict[str, Any],
                content: bytes | None) -> None:
        object_id = self._db.next_value(conn, "workspace_object_id", OBJECT_ID_START)
        conn.execute("INSERT INTO workspace_objects (path, parent, object_id, doc, content) "
                     "VALUES (?, ?, ?, ?, ?)",
                     (path, paths.parent(path), object_id, to_json(doc), content))


def _below(folder: str) -> str:
    """A LIKE pattern of every path below `folder`."""
    escaped = folder.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return "/%" if folder == ROOT else f"{escaped}/%"
