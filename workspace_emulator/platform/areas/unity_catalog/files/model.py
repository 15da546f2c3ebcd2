"""Files in Unity Catalog volumes, as the Files API serves them (`/fs/files`,
`/fs/directories`). No HTTP here.

A path is `/Volumes/<catalog>/<schema>/<volume>/<rest>`: the three names are found whatever
their case (the unity_catalog area's volumes), the rest is case-sensitive. Entries are kept
under the volume's id, not its name: a renamed volume keeps its files, and a volume dropped
and made again under the same name starts empty. The volume's root is its own directory,
always there while the volume is.

Content is kept in the database in parts of at most PART_BYTES (`fs_parts`), written as
the request body arrives and read back one part at a time: a large file is never held
whole in memory. An upload writes its parts under a new content id first, then swaps the
entry to it in one transaction, so a reader never sees half a file.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import (
    DirectoryNotEmpty,
    EntityTooLarge,
    FileAlreadyExists,
    InvalidParameter,
    NotFound,
)
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import UnityCatalog
from workspace_emulator.storage import Database

TABLES = """
CREATE TABLE IF NOT EXISTS fs_entries (key TEXT PRIMARY KEY, parent TEXT NOT NULL,
    is_directory INTEGER NOT NULL, size INTEGER NOT NULL, modified_ms INTEGER NOT NULL,
    content TEXT);
CREATE INDEX IF NOT EXISTS fs_entries_by_parent ON fs_entries (parent, key);
CREATE TABLE IF NOT EXISTS fs_parts (content TEXT NOT NULL, seq INTEGER NOT NULL,
    data BLOB NOT NULL, PRIMARY KEY (content, seq));
"""

PART_BYTES = 1024 * 1024
MAX_FILE_BYTES = 5 * 1024 ** 3  # the service's single-request upload limit (5 GiB)
MAX_PAGE_SIZE = 1000
VOLUMES = "Volumes"


@dataclass(frozen=True)
class VolumePath:
    """A path in a volume: the volume's id and its names as stored, and the rest ("" for
    the volume's root, else "/a/b")."""

    volume_id: str
    volume_prefix: str  # /Volumes/<catalog>/<schema>/<volume>, as stored
    rest: str

    @property
    def key(self) -> str:
        return _key(self.volume_id, self.rest)

    @property
    def parent_rest(self) -> str:
        return self.rest.rsplit("/", 1)[0]

    @property
    def shown(self) -> str:
        return self.volume_prefix + self.rest


@dataclass(frozen=True)
class FileInfo:
    path: str
    size: int
    modified_ms: int
    content: str


@dataclass(frozen=True)
class PendingUpload:
    """An upload whose parts are being written under `content`."""

    target: VolumePath
    overwrite: bool
    content: str


def _key(volume_id: str, rest: str) -> str:
    return f"{volume_id}:{rest}"


def _ancestors(rest: str) -> list[str]:
    """The directories above `rest`, the volume root's excluded, outermost first."""
    parts = rest.split("/")[1:-1]
    return ["/" + "/".join(parts[:n]) for n in range(1, len(parts) + 1)]


class VolumeFiles:
    def __init__(self, db: Database, unity_catalog: UnityCatalog) -> None:
        self._db = db
        self._unity_catalog = unity_catalog

    # --- paths ----------------------------------------------------------------------------

    def resolve(self, path: str, field: str = "path") -> VolumePath:
        parts = path.split("/")
        if len(parts) < 5 or parts[0] != "" or parts[1] != VOLUMES or not all(parts[2:5]):
            raise InvalidParameter(
                f"Invalid {field} '{path}': expected an absolute path "
                f"/{VOLUMES}/<catalog>/<schema>/<volume>/...")
        rest_parts = parts[5:]
        if rest_parts and rest_parts[-1] == "":
            rest_parts = rest_parts[:-1]  # a trailing slash
        if any(p in ("", ".", "..") for p in rest_parts):
            raise InvalidParameter(
                f"Invalid {field} '{path}': empty, '.' and '..' segments are not allowed.")
        volume = self._unity_catalog.get_volume(".".join(parts[2:5]))
        prefix = (f"/{VOLUMES}/{volume['catalog_name']}/{volume['schema_name']}/"
                  f"{volume['name']}")
        rest = "".join(f"/{p}" for p in rest_parts)
        return VolumePath(volume["volume_id"], prefix, rest)

    @staticmethod
    def _entry(conn: sqlite3.Connection, key: str) -> sqlite3.Row | None:
        return conn.execute("SELECT * FROM fs_entries WHERE key = ?", (key,)).fetchone()

    def _is_directory(self, conn: sqlite3.Connection, target: VolumePath) -> bool:
        if target.rest == "":
            return True
        row = self._entry(conn, target.key)
        return row is not None and bool(row["is_directory"])

    def _make_directories(self, conn: sqlite3.Connection, target: VolumePath,
                          rests: list[str], now_ms: int) -> None:
        """Creates each directory of `rests` (outermost first) that is not there; a file on
        the way is refused."""
        for rest in rests:
            key = _key(target.volume_id, rest)
            row = self._entry(conn, key)
            if row is None:
                conn.execute(
                    "INSERT INTO fs_entries (key, parent, is_directory, size, modified_ms, "
                    "content) VALUES (?, ?, 1, 0, ?, NULL)",
                    (key, _key(target.volume_id, rest.rsplit("/", 1)[0]), now_ms))
            elif not row["is_directory"]:
                raise FileAlreadyExists(
                    f"'{target.volume_prefix}{rest}' is a file, not a directory.")

    # --- files ----------------------------------------------------------------------------

    def _check_upload(self, conn: sqlite3.Connection, target: VolumePath,
                      overwrite: bool) -> sqlite3.Row | None:
        if target.rest == "":
            raise InvalidParameter(
                f"Invalid path '{target.shown}': a file's path is below the volume's root.")
        for rest in _ancestors(target.rest):
            row = self._entry(conn, _key(target.volume_id, rest))
            if row is not None and not row["is_directory"]:
                raise FileAlreadyExists(
                    f"'{target.volume_prefix}{rest}' is a file, not a directory.")
        existing = self._entry(conn, target.key)
        if existing is not None and existing["is_directory"]:
            raise FileAlreadyExists(f"'{target.shown}' is a directory.")
        if existing is not None and not overwrite:
            raise FileAlreadyExists(
                f"The file '{target.shown}' already exists; upload with overwrite=true to "
                "replace it.")
        return existing

    def begin_upload(self, path: str, overwrite: bool) -> PendingUpload:
        target = self.resolve(path, "file_path")
        with self._db.read() as conn:
            self._check_upload(conn, target, overwrite)
        return PendingUpload(target, overwrite, uuid.uuid4().hex)

    def store_part(self, upload: PendingUpload, seq: int, data: bytes) -> None:
        with self._db.write() as conn:
            conn.execute("INSERT INTO fs_parts (content, seq, data) VALUES (?, ?, ?)",
                         (upload.content, seq, data))

    def finish_upload(self, upload: PendingUpload, size: int) -> None:
        target = upload.target
        now_ms = clock.now_ms()
        with self._db.write() as conn:
            existing = self._check_upload(conn, target, upload.overwrite)
            self._make_directories(conn, target, _ancestors(target.rest), now_ms)
            conn.execute(
                "INSERT INTO fs_entries (key, parent, is_directory, size, modified_ms, "
                "content) VALUES (?, ?, 0, ?, ?, ?) ON CONFLICT(key) DO UPDATE SET "
                "size = excluded.size, modified_ms = excluded.modified_ms, "
                "content = excluded.content",
                (target.key, _key(target.volume_id, target.parent_rest), size, now_ms,
                 upload.content))
            if existing is not None and existing["content"]:
                conn.execute("DELETE FROM fs_parts WHERE content = ?", (existing["content"],))

    def discard(self, upload: PendingUpload) -> None:
        with self._db.write() as conn:
            conn.execute("DELETE FROM fs_parts WHERE content = ?", (upload.content,))

    @staticmethod
    def refuse_oversize(size: int) -> None:
        if size > MAX_FILE_BYTES:
            raise EntityTooLarge(f"The file is larger than {MAX_FILE_BYTES} bytes, the most "
                                "one upload takes.")

    def file(self, path: str) -> FileInfo:
        target = self.resolve(path, "file_path")
        with self._db.read() as conn:
            row = None if target.rest == "" else self._entry(conn, target.key)
        if row is None or row["is_directory"]:
            raise NotFound(f"The file '{target.shown}' does not exist.")
        return FileInfo(target.shown, row["size"], row["modified_ms"], row["content"])

    def parts(self, content: str) -> Iterator[bytes]:
        """The file's content, one stored part at a time (each read on its own)."""
        seq = -1
        while True:
            with self._db.read() as conn:
                row = conn.execute(
                    "SELECT seq, data FROM fs_parts WHERE content = ? AND seq > ? "
                    "ORDER BY seq LIMIT 1", (content, seq)).fetchone()
            if row is None:
                return
            seq = row["seq"]
            yield bytes(row["data"])

    def delete_file(self, path: str) -> None:
        target = self.resolve(path, "file_path")
        with self._db.write() as conn:
            row = None if target.rest == "" else self._entry(conn, target.key)
            if row is None:
                raise NotFound(f"The file '{target.shown}' does not exist.")
            if row["is_directory"]:
                raise InvalidParameter(
                    f"'{target.shown}' is a directory: delete it through /fs/directories.")
            conn.execute("DELETE FROM fs_entries WHERE key = ?", (target.key,))
            conn.execute("DELETE FROM fs_parts WHERE content = ?", (row["content"],))

    # --- directories ----------------------------------------------------------------------

    def create_directory(self, path: str) -> None:
        target = self.resolve(path, "directory_path")
        if target.rest == "":
            return
        with self._db.write() as conn:
            self._make_directories(conn, target, [*_ancestors(target.rest), target.rest],
                                   clock.now_ms())

    def directory(self, path: str) -> VolumePath:
        target = self.resolve(path, "directory_path")
        with self._db.read() as conn:
            if not self._is_directory(conn, target):
                raise NotFound(f"The directory '{target.shown}' does not exist.")
        return target

    def list_directory(self, path: str, page_size: int | None, page_token: str | None
                       ) -> dict[str, Any]:
        if page_size is not None and page_size < 0:
            raise InvalidParameter(f"page_size must be positive, got {page_size}.")
        size = MAX_PAGE_SIZE if not page_size else min(page_size, MAX_PAGE_SIZE)
        target = self.resolve(path, "directory_path")
        after = ""
        if page_token:
            after = _key(target.volume_id, f"{target.rest}/{page_token}")
        with self._db.read() as conn:
            if not self._is_directory(conn, target):
                raise NotFound(f"The directory '{target.shown}' does not exist.")
            rows = conn.execute(
                "SELECT * FROM fs_entries WHERE parent = ? AND key > ? ORDER BY key LIMIT ?",
                (target.key, after, size + 1)).fetchall()
        contents = []
        for row in rows[:size]:
            name = row["key"].rsplit("/", 1)[1]
            entry: dict[str, Any] = {"path": f"{target.shown}/{name}", "name": name,
                                     "is_directory": bool(row["is_directory"])}
            if not row["is_directory"]:
                entry.update(file_size=row["size"], last_modified=row["modified_ms"])
            contents.append(entry)
        answer: dict[str, Any] = {"contents": contents}
        if len(rows) > size:
            answer["next_page_token"] = contents[-1]["name"]
        return answer

    def delete_directory(self, path: str) -> None:
        target = self.resolve(path, "directory_path")
        if target.rest == "":
            raise InvalidParameter(
                f"'{target.shown}' is the volume's root: delete the volume instead.")
        with self._db.write() as conn:
            if not self._is_directory(conn, target):
                raise NotFound(f"The directory '{target.shown}' does not exist.")
            child = conn.execute("SELECT 1 FROM fs_entries WHERE parent = ? LIMIT 1",
                                 (target.key,)).fetchone()
            if child is not None:
                raise DirectoryNotEmpty(
                    f"The directory '{target.shown}' is not empty: delete its contents "
                    "first.")
            conn.execute("DELETE FROM fs_entries WHERE key = ?", (target.key,))
