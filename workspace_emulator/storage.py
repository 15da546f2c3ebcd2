"""SQLite persistence shared by every service of the emulator.

One connection, guarded by a lock: the emulator serves one workspace, requests are small,
and a single writer keeps every acknowledged write ordered and durable. WAL journal; by
default synchronous=NORMAL: a commit is in the operating system's hands before the response
leaves, so it survives a kill of the emulator (what tests and drills do), and the database
is never corrupted; only an OS crash or power loss may drop the last commits. `fsync=True`
(synchronous=FULL) syncs every commit to the disk too, at a few milliseconds a write. The
log is copied back into the database file by a thread (workspace_emulator/wal_checkpoint.py), not by
the commit that happens to cross SQLite's threshold.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from workspace_emulator.wal_checkpoint import WalCheckpointer

DATABASE_FILE = "workspace.sqlite3"
# Set once the workspace's initial data is in; databases written before the rename carry
# the legacy key instead, and count as initialised too.
INITIALISED_KEY = "initialised"
LEGACY_INITIALISED_KEY = "seeded"

# The emulator's own tables and the identity provider's. The platform's are beside their
# models: the directory's (platform/directory.py) and each area's (platform/areas/), created
# when the workspace opens (`Database.create_tables`).
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS applications (
    client_id TEXT PRIMARY KEY, secret_sha256 TEXT NOT NULL, display_name TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (
    token_sha256 TEXT PRIMARY KEY, client_id TEXT NOT NULL, resource TEXT NOT NULL,
    expires_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS tokens_by_expiry ON tokens (expires_at);
CREATE TABLE IF NOT EXISTS oauth_secrets (id TEXT PRIMARY KEY, application_id TEXT NOT NULL,
    secret_sha256 TEXT NOT NULL, create_time REAL NOT NULL, expire_time REAL NOT NULL);
CREATE INDEX IF NOT EXISTS oauth_secrets_by_application ON oauth_secrets (application_id);
CREATE TABLE IF NOT EXISTS federated_trusts (kind TEXT NOT NULL, application_id TEXT NOT NULL,
    issuer TEXT NOT NULL, subject TEXT NOT NULL, audiences TEXT NOT NULL,
    PRIMARY KEY (kind, application_id, issuer, subject));
CREATE TABLE IF NOT EXISTS role_assignments (client_id TEXT NOT NULL, role TEXT NOT NULL,
    scope TEXT NOT NULL, PRIMARY KEY (client_id, role, scope));
CREATE TABLE IF NOT EXISTS managed_identities (client_id TEXT PRIMARY KEY,
    system_assigned INTEGER NOT NULL);
"""


# allow_nan=False: a stored document must be renderable as strict JSON later. One encoder
# for every call: json.dumps with options builds a new one each time.
_STORED_FORM = json.JSONEncoder(separators=(",", ":"), allow_nan=False)


def to_json(value: Any) -> str:
    return _STORED_FORM.encode(value)


def from_json(text: str) -> Any:
    return json.loads(text)


class ChangeCounter:
    """What was read from the counted tables while `count` is unchanged is still true, so
    it may be kept. A rolled-back change counts too: a needless refresh, never a stale
    read."""

    def __init__(self) -> None:
        self.count = 0

    def bump(self) -> None:
        self.count += 1


class ReservedIds:
    """Ids of one counter, reserved `block` at a time: a create writes the counter once per
    block instead of once per id. The counter holds the last id reserved, so no id is handed
    out twice, not after a restart (the rest of its block is skipped) nor by a version that
    counts one at a time. A block is given up when anyone else changes the counters (a reset
    empties them, and its ids start again) or the transaction that reserved it rolls back.

    `take(conn)` inside the transaction that uses the id, `taken(id)` once it committed."""

    def __init__(self, db: Database, counter: str, start: int, block: int) -> None:
        self._db = db
        self._counter = counter
        self._start = start
        self._block = block
        self._counter_changes = db.changes_to("counters")
        self._next = self._last = self._valid_at = -1
        self._reserved: tuple[int, int] | None = None  # (last id, changes) if not committed

    def take(self, conn: sqlite3.Connection) -> int:
        if self._valid_at == self._counter_changes.count and self._next <= self._last:
            self._reserved = None
            return self._next
        row = conn.execute(
            "INSERT INTO counters (name, value) VALUES (?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value = value + ? RETURNING value",
            (self._counter, self._start + self._block - 1, self._block),
        ).fetchone()
        last = int(row["value"])
        self._reserved = (last, self._counter_changes.count)
        return last - self._block + 1

    def taken(self, value: int) -> None:
        if self._reserved is not None:
            self._last, self._valid_at = self._reserved
            self._reserved = None
        self._next = value + 1


class Database:
    """A SQLite database, on disk (durable) or in memory (for tests)."""

    def __init__(self, path: Path | None, fsync: bool = False) -> None:
        self.path = path
        if path is None:
            target = ":memory:"
            self.is_new = True
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.is_new = not path.exists() or path.stat().st_size == 0
            target = str(path)
        self._conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self._depth = 0
        self._checkpointer: WalCheckpointer | None = None
        if path is not None:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute(f"PRAGMA synchronous={'FULL' if fsync else 'NORMAL'}")
            self._conn.execute("PRAGMA wal_autocheckpoint=0")
            self._checkpointer = WalCheckpointer(path)
        self._conn.executescript(SCHEMA)
        if not self.is_new and not self.is_initialised():
            self.is_new = True  # initial data never applied (e.g. killed during the first start)

    def create_tables(self, sql: str) -> None:
        """Runs `CREATE ... IF NOT EXISTS` statements: tables a newer version added appear in
        an existing database, the others are left as they are."""
        with self._lock:
            self._conn.executescript(sql)

    @classmethod
    def in_directory(cls, data_dir: Path, fsync: bool = False) -> Database:
        return cls(data_dir / DATABASE_FILE, fsync)

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._conn

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """A transaction: committed (and synced) on success, rolled back on any error.

        Nested calls join the outermost transaction (e.g. applying the initial data as one
        unit).
        """
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self._conn
                finally:
                    self._depth -= 1
                return
            self._conn.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            else:
                self._conn.execute("COMMIT")
                if self._checkpointer is not None:
                    self._checkpointer.committed(self._conn)
            finally:
                self._depth = 0

    def changes_to(self, *tables: str) -> ChangeCounter:
        """A counter of the rows inserted, updated or deleted in these tables, by any
        statement (temporary triggers of this connection call back into it)."""
        counter = ChangeCounter()
        function = f"count_change_{id(counter)}"
        self._conn.create_function(function, 0, counter.bump)
        for table in tables:
            for event in ("INSERT", "UPDATE", "DELETE"):
                self._conn.execute(
                    f'CREATE TEMP TRIGGER "{function}_{table}_{event}" AFTER {event} '
                    f'ON main."{table}" BEGIN SELECT {function}(); END')
        return counter

    def next_value(self, conn: sqlite3.Connection, counter: str, start: int) -> int:
        """`start` the first time, then one more than last time (one statement)."""
        row = conn.execute(
            "INSERT INTO counters (name, value) VALUES (?, ?) "
            "ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value",
            (counter, start),
        ).fetchone()
        return int(row["value"])

    def is_initialised(self) -> bool:
        return any(self.get_meta(key) is not None
                   for key in (INITIALISED_KEY, LEGACY_INITIALISED_KEY))

    def get_meta(self, key: str) -> Any:
        with self.read() as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else from_json(row["value"])

    def set_meta(self, conn: sqlite3.Connection, key: str, value: Any) -> None:
        conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, to_json(value)),
        )

    def close(self) -> None:
        with self._lock:
            if self._checkpointer is not None:
                self._checkpointer.close()
            self._conn.close()
