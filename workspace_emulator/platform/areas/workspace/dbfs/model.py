"""DBFS, the workspace's own file system, as its REST API (`/api/2.0/dbfs/...`) serves it. No
HTTP here.

A path is absolute (`/tmp/a.txt`, or `dbfs:/tmp/a.txt`, the same file); the root `/` is a
directory that is always there. Directories are entries of their own; writing a file or
making a directory makes the directories above it (a file on the way is refused). A file's
bytes are kept in blocks (`dbfs_blocks`, each with its offset in the file): a `put` is one
block, a `create` / `add-block` / `close` stream one block per `add-block`, and a `read`
takes the blocks its range covers. A streamed file appears at `close`, whole; until then its
blocks wait under the handle, which an idle time of 10 minutes ends.

The service's limits: a `put`'s inline contents and an `add-block`'s data at most 1 MB
(MAX_BLOCK_SIZE_EXCEEDED), a `read` at most 1 MB (MAX_READ_SIZE_EXCEEDED; 0.5 MB unless
given).
"""

from __future__ import annotations

import base64
import binascii
import sqlite3
import uuid
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import (
    AlreadyExists,
    DbfsIoError,
    InvalidParameter,
    MaxBlockSizeExceeded,
    MaxReadSizeExceeded,
    NotFound,
)
from workspace_emulator.storage import Database

TABLES = """
CREATE TABLE IF NOT EXISTS dbfs_entries (path TEXT PRIMARY KEY, parent TEXT NOT NULL,
    is_dir INTEGER NOT NULL, size INTEGER NOT NULL, modified_ms INTEGER NOT NULL,
    content TEXT);
CREATE INDEX IF NOT EXISTS dbfs_entries_by_parent ON dbfs_entries (parent, path);
CREATE TABLE IF NOT EXISTS dbfs_blocks (content TEXT NOT NULL, start INTEGER NOT NULL,
    data BLOB NOT NULL, PRIMARY KEY (content, start));
CREATE TABLE IF NOT EXISTS dbfs_handles (handle INTEGER PRIMARY KEY, path TEXT NOT NULL,
    overwrite INTEGER NOT NULL, content TEXT NOT NULL, size INTEGER NOT NULL,
    used_ms INTEGER NOT NULL);
"""

MAX_BLOCK_BYTES = 1024 * 1024  # a put's contents, an add-block's data
MAX_READ_BYTES = 1024 * 1024
DEFAULT_READ_BYTES = 512 * 1024
HANDLE_IDLE_MS = 10 * 60 * 1000
ROOT = "/"
SCHEME = "dbfs:"


def normal_path(value: str | None, field: str = "path") -> str:
    """The absolute path without the `dbfs:` scheme and a trailing slash; INVALID_PARAMETER_VALUE
    for a missing, relative or climbing one."""
    if not value:
        raise InvalidParameter(f"Missing required field: {field}")
    path = value[len(SCHEME):] if value.startswith(SCHEME) else value
    if not path.startswith("/"):
        raise InvalidParameter(f"Invalid {field} '{value}': the path must be absolute "
                               "(/... or dbfs:/...).")
    parts = path.split("/")[1:]
    if parts and parts[-1] == "":
        parts = parts[:-1]
    if any(part in ("", ".", "..") for part in parts):
        raise InvalidParameter(
            f"Invalid {field} '{value}': empty, '.' and '..' segments are not allowed.")
    return "/" + "/".join(parts)


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] or ROOT


def _ancestors(path: str) -> list[str]:
    """The directories above `path`, the root's excluded, outermost first."""
    parts = path.split("/")[1:-1]
    return ["/" + "/".join(parts[:n]) for n in range(1, len(parts) + 1)]


def _decoded(data: str | None, field: str) -> bytes:
    try:
        block = base64.b64decode(data or "", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidParameter(f"{field} must be base64-encoded.") from None
    if len(block) > MAX_BLOCK_BYTES:
        raise MaxBlockSizeExceeded(
            f"The {field} is {len(block)} bytes, over the {MAX_BLOCK_BYTES} bytes (1 MB) one "
            "call takes: upload larger files with create, add-block and close.")
    return block


def _info(row: sqlite3.Row) -> dict[str, Any]:
    return {"path": row["path"], "is_dir": bool(row["is_dir"]), "file_size": row["size"],
            "modification_time": row["modified_ms"]}


def _under(path: str) -> str:
    """The prefix of every path below `path`."""
    return "/" if path == ROOT else path + "/"


class Dbfs:
    def __init__(self, db: Database) -> None:
        self._db = db

    # --- entries --------------------------------------------------------------------------

    @staticmethod
    def _entry(conn: sqlite3.Connection, path: str) -> sqlite3.Row | None:
        if path == ROOT:
            return {"path": ROOT, "is_dir": 1, "size": 0, "modified_ms": 0,  # type: ignore[return-value]
                    "content": None}
        return conn.execute("SELECT * FROM dbfs_entries WHERE path = ?", (path,)).fetchone()

    def _existing(self, conn: sqlite3.Connection, path: str) -> sqlite3.Row:
        row = self._entry(conn, path)
        if row is None:
            raise NotFound(f"No file or directory exists on path {path}.")
        return row

    def _make_directories(self, conn: sqlite3.Connection, paths: list[str], now_ms: int) -> None:
        """Each directory of `paths` (outermost first) that is not there; a file on the way
        refused."""
        for path in paths:
            row = self._entry(conn, path)
            if row is None:
                conn.execute(
                    "INSERT INTO dbfs_entries (path, parent, is_dir, size, modified_ms, content) "
                    "VALUES (?, ?, 1, 0, ?, NULL)", (path, _parent(path), now_ms))
            elif not row["is_dir"]:
                raise AlreadyExists(
                    f"A file exists at {path}, where a directory is needed.")

    def _check_writable(self, conn: sqlite3.Connection, path: str, overwrite: bool) -> None:
        if path == ROOT:
            raise InvalidParameter("The root directory is no file.")
        for above in _ancestors(path):
            row = self._entry(conn, above)
            if row is not None and not row["is_dir"]:
                raise AlreadyExists(f"A file exists at {above}, where a directory is needed.")
        row = self._entry(conn, path)
        if row is not None and row["is_dir"]:
            raise AlreadyExists(f"A directory exists at {path}; a file cannot replace it.")
        if row is not None and not overwrite:
            raise AlreadyExists(
                f"A file already exists at {path}: give overwrite=true to replace it.")

    def _write_file(self, conn: sqlite3.Connection, path: str, content: str, size: int,
                    overwrite: bool) -> None:
        self._check_writable(conn, path, overwrite)
        now_ms = clock.now_ms()
        self._make_directories(conn, _ancestors(path), now_ms)
        old = self._entry(conn, path)
        conn.execute(
            "INSERT INTO dbfs_entries (path, parent, is_dir, size, modified_ms, content) "
            "VALUES (?, ?, 0, ?, ?, ?) ON CONFLICT(path) DO UPDATE SET size = excluded.size, "
            "modified_ms = excluded.modified_ms, content = excluded.content",
            (path, _parent(path), size, now_ms, content))
        if old is not None and old["content"]:
            conn.execute("DELETE FROM dbfs_blocks WHERE content = ?", (old["content"],))

    # --- writing --------------------------------------------------------------------------

    def put(self, path: str | None, contents: str | None, overwrite: bool) -> None:
        target = normal_path(path)
        block = _decoded(contents, "contents")
        content = uuid.uuid4().hex
        with self._db.write() as conn:
            if block:
                conn.execute("INSERT INTO dbfs_blocks (content, start, data) VALUES (?, 0, ?)",
                             (content, block))
            self._write_file(conn, target, content, len(block), overwrite)

    def create(self, path: str | None, overwrite: bool) -> int:
        target = normal_path(path)
        with self._db.write() as conn:
            self._check_writable(conn, target, overwrite)
            cursor = conn.execute(
                "INSERT INTO dbfs_handles (path, overwrite, content, size, used_ms) "
                "VALUES (?, ?, ?, 0, ?)", (target, int(overwrite), uuid.uuid4().hex,
                                           clock.now_ms()))
            return int(cursor.lastrowid or 0)

    def _handle(self, conn: sqlite3.Connection, handle: int | None) -> sqlite3.Row:
        row = None if handle is None else conn.execute(
            "SELECT * FROM dbfs_handles WHERE handle = ?", (handle,)).fetchone()
        if row is not None and clock.now_ms() - row["used_ms"] > HANDLE_IDLE_MS:
            self._forget(conn, row)
            row = None
        if row is None:
            raise NotFound(f"No open stream has the handle {handle} (never opened, closed, "
                           "or idle for more than 10 minutes).")
        return row

    @staticmethod
    def _forget(conn: sqlite3.Connection, row: sqlite3.Row) -> None:
        conn.execute("DELETE FROM dbfs_blocks WHERE content = ?", (row["content"],))
        conn.execute("DELETE FROM dbfs_handles WHERE handle = ?", (row["handle"],))

    def add_block(self, handle: int | None, data: str | None) -> None:
        block = _decoded(data, "data")
        with self._db.write() as conn:
            row = self._handle(conn, handle)
            if block:
                conn.execute("INSERT INTO dbfs_blocks (content, start, data) VALUES (?, ?, ?)",
                             (row["content"], row["size"], block))
            conn.execute("UPDATE dbfs_handles SET size = ?, used_ms = ? WHERE handle = ?",
                         (row["size"] + len(block), clock.now_ms(), row["handle"]))

    def close(self, handle: int | None) -> None:
        with self._db.write() as conn:
            row = self._handle(conn, handle)
            conn.execute("DELETE FROM dbfs_handles WHERE handle = ?", (row["handle"],))
            self._write_file(conn, row["path"], row["content"], row["size"],
                             bool(row["overwrite"]))

    def mkdirs(self, path: str | None) -> None:
        target = normal_path(path)
        if target == ROOT:
            return
        with self._db.write() as conn:
            self._make_directories(conn, [*_ancestors(target), target], clock.now_ms())

    def delete(self, path: str | None, recursive: bool) -> None:
        """A path that is not there is deleted already (no error, as the service answers)."""
        target = normal_path(path)
        with self._db.write() as conn:
            if target == ROOT:
                raise InvalidParameter("The root directory cannot be deleted.")
            row = self._entry(conn, target)
            if row is None:
                return
            below = conn.execute(
                "SELECT path, content FROM dbfs_entries WHERE substr(path, 1, ?) = ?",
                (len(_under(target)), _under(target))).fetchall()
            if below and not recursive:
                raise DbfsIoError(
                    f"The directory {target} is not empty: give recursive=true to delete it "
                    "with its contents.")
            for entry in [*below, row]:
                if entry["content"]:
                    conn.execute("DELETE FROM dbfs_blocks WHERE content = ?", (entry["content"],))
                conn.execute("DELETE FROM dbfs_entries WHERE path = ?", (entry["path"],))

    def move(self, source_path: str | None, destination_path: str | None) -> None:
        source = normal_path(source_path, "source_path")
        destination = normal_path(destination_path, "destination_path")
        with self._db.write() as conn:
            row = self._existing(conn, source)
            if source == ROOT or destination.startswith(_under(source)) or source == destination:
                raise InvalidParameter(
                    f"Cannot move {source} to {destination}: not into itself.")
            if self._entry(conn, destination) is not None:
                raise AlreadyExists(f"A file or directory already exists at {destination}.")
            self._make_directories(conn, _ancestors(destination), clock.now_ms())
            below = conn.execute(
                "SELECT path FROM dbfs_entries WHERE substr(path, 1, ?) = ?",
                (len(_under(source)), _under(source))).fetchall() if row["is_dir"] else []
            for old in [source, *(entry["path"] for entry in below)]:
                new = destination + old[len(source):]
                conn.execute("UPDATE dbfs_entries SET path = ?, parent = ? WHERE path = ?",
                             (new, _parent(new), old))

    # --- reading --------------------------------------------------------------------------

    def get_status(self, path: str | None) -> dict[str, Any]:
        target = normal_path(path)
        with self._db.read() as conn:
            return _info(self._existing(conn, target))

    def list(self, path: str | None) -> dict[str, Any]:
        """A directory's entries (by path), or a file's own; `{}` for an empty directory."""
        target = normal_path(path)
        with self._db.read() as conn:
            row = self._existing(conn, target)
            if not row["is_dir"]:
                return {"files": [_info(row)]}
            rows = conn.execute("SELECT * FROM dbfs_entries WHERE parent = ? ORDER BY path",
                                (target,)).fetchall()
        return {"files": [_info(child) for child in rows]} if rows else {}

    def read(self, path: str | None, offset: int | None, length: int | None) -> dict[str, Any]:
        target = normal_path(path)
        start = 0 if offset is None else offset
        size = DEFAULT_READ_BYTES if length is None else length
        if start < 0 or size < 0:
            raise InvalidParameter(
                f"offset and length must not be negative (offset {start}, length {size}).")
        if size > MAX_READ_BYTES:
            raise MaxReadSizeExceeded(
                f"The length {size} is over the {MAX_READ_BYTES} bytes (1 MB) one read takes.")
        with self._db.read() as conn:
            row = self._existing(conn, target)
            if row["is_dir"]:
                raise InvalidParameter(f"{target} is a directory: only a file can be read.")
            end = min(start + size, row["size"])
            blocks = conn.execute(
                "SELECT start, data FROM dbfs_blocks WHERE content = ? AND start < ? "
                "AND start + length(data) > ? ORDER BY start",
                (row["content"], end, start)).fetchall() if end > start else []
        data = b"".join(bytes(block["data"]) for block in blocks)
        if blocks:
            first = blocks[0]["start"]
            data = data[start - first:end - first]
        return {"bytes_read": len(data), "data": base64.b64encode(data).decode()}

    def add_initial(self, conn: sqlite3.Connection, file: dict[str, Any]) -> None:
        """A file of the initial data's `dbfs` section: `path`, `content` as text."""
        target = normal_path(file.get("path"))
        content, data = uuid.uuid4().hex, str(file.get("content") or "").encode()
        if data:
            conn.execute("INSERT INTO dbfs_blocks (content, start, data) VALUES (?, 0, ?)",
                         (content, data))
        self._write_file(conn, target, content, len(data), overwrite=True)

    def exists(self, path: str) -> bool:
        """Whether a file is at `path` (`dbfs:/...` or `/...`): what a job's library or init
        script names."""
        try:
            target = normal_path(path)
        except InvalidParameter:
            return False
        with self._db.read() as conn:
            row = self._entry(conn, target)
        return row is not None and not row["is_dir"]
