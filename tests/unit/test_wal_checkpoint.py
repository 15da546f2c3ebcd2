"""The write-ahead log is copied back by the checkpoint thread, not by a request's COMMIT,
and what is committed is in the database whether or not it was copied back yet."""

from __future__ import annotations

import sqlite3
import time

import pytest

from workspace_emulator.storage import Database
from workspace_emulator.wal_checkpoint import WalCheckpointer

ROW = "x" * 3000  # about a page per row, so the log grows by a few pages a commit


def _wal_pages(db_path) -> int:
    wal = db_path.with_name(db_path.name + "-wal")
    return wal.stat().st_size // 4096 if wal.exists() else 0


def _commit_rows(db: Database, count: int, start: int = 0) -> None:
    for n in range(start, start + count):
        with db.write() as conn:
            conn.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (f"k{n}", ROW))


def _wait_for(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


@pytest.fixture
def db(tmp_path):
    on_disk = Database(tmp_path / "workspace.sqlite3")
    yield on_disk
    on_disk.close()


def _checkpointer(db: Database) -> WalCheckpointer:
    assert db._checkpointer is not None
    return db._checkpointer


def test_the_commit_leaves_the_checkpoint_to_the_thread(db):
    (autocheckpoint,) = db._conn.execute("PRAGMA wal_autocheckpoint").fetchone()
    assert autocheckpoint == 0
    checkpointer = _checkpointer(db)
    every = checkpointer.every_commits

    _commit_rows(db, every - 1)
    time.sleep(0.2)
    assert checkpointer.completed == 0

    _commit_rows(db, 1, start=every - 1)
    assert _wait_for(lambda: checkpointer.completed == 1)


def test_the_log_is_reused_once_copied_back(db):
    checkpointer = _checkpointer(db)
    every = checkpointer.every_commits
    _commit_rows(db, every)
    assert _wait_for(lambda: checkpointer.completed == 1)
    one_batch = _wal_pages(db.path)
    for batch in range(1, 8):
        _commit_rows(db, every, start=batch * every)
        assert _wait_for(lambda done=batch + 1: checkpointer.completed == done)
    # Without checkpoints the log would hold all eight batches' pages.
    assert _wal_pages(db.path) < 2 * one_batch


def _log_frames(db: Database) -> int:
    """The pages in the log, read by a passive checkpoint of another connection (retried
    while the thread's own checkpoint keeps it busy)."""
    other = sqlite3.connect(str(db.path))
    try:
        for _ in range(100):
            busy, frames, _ = other.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            if not busy and frames >= 0:
                return frames
            time.sleep(0.01)
        raise AssertionError("the log stayed busy")
    finally:
        other.close()


def test_a_log_past_the_limit_is_started_over(db):
    # Under continuous writes a passive checkpoint never copies the whole log back before the
    # next commit, so the writer never starts it over (52 MB after 4,000 creates over HTTP).
    checkpointer = _checkpointer(db)
    checkpointer.every_commits = 10**9  # the test runs the checkpoints itself
    _commit_rows(db, 100)
    checkpointer.restart_frames = 10**6
    checkpointer.checkpoint()
    assert checkpointer.restarted == 0  # a log under the limit is only copied back

    _commit_rows(db, 100, start=100)
    checkpointer.restart_frames = 50
    checkpointer.checkpoint()
    assert checkpointer.restarted == 1
    _commit_rows(db, 1, start=200)
    assert _log_frames(db) < 10  # the commit after the restart wrote at the log's start


def test_the_writer_starts_the_log_over_where_the_thread_could_not(db):
    checkpointer = _checkpointer(db)
    checkpointer.every_commits = 10**9  # the test runs the checkpoints itself
    checkpointer.restart_frames = 50
    _commit_rows(db, 100)
    reader = sqlite3.connect(str(db.path), isolation_level=None)
    try:
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM meta").fetchone()  # holds the log's end
        checkpointer.checkpoint()  # its RESTART waits 0.1 s for the reader, then gives up
        assert checkpointer.restarted == 0
    finally:
        reader.close()
    _commit_rows(db, 1, start=100)  # the writer restarts the log after this commit
    assert (checkpointer.restarted, checkpointer.restarted_by_writer) == (1, 1)
    _commit_rows(db, 1, start=101)
    assert _log_frames(db) < 10
    _commit_rows(db, 1, start=102)
    assert checkpointer.restarted_by_writer == 1  # once, not after every commit


def test_the_log_stops_growing_under_continuous_writes(db):
    checkpointer = _checkpointer(db)
    checkpointer.every_commits = 16
    checkpointer.restart_frames = 64
    batches = 0
    for batches in range(180):  # ~4 pages a commit: ~12,000 pages in a log never started over
        _commit_rows(db, 16, start=batches * 16)
    # However the thread was scheduled meanwhile, writing on until it next starts the log
    # over leaves only what was written since.
    restarts = checkpointer.restarted
    deadline = time.monotonic() + 30
    while checkpointer.restarted == restarts and time.monotonic() < deadline:
        batches += 1
        _commit_rows(db, 16, start=batches * 16)
    assert checkpointer.restarted > restarts
    assert _log_frames(db) < 1000


def test_committed_rows_are_read_back_by_a_new_connection_whether_copied_back_or_not(db):
    every = _checkpointer(db).every_commits
    _commit_rows(db, every + 7)  # one checkpoint, then seven commits only in the log
    other = sqlite3.connect(str(db.path))
    try:
        (count,) = other.execute("SELECT count(*) FROM meta WHERE key LIKE 'k%'").fetchone()
    finally:
        other.close()
    assert count == every + 7


def test_an_in_memory_database_has_no_checkpoint_thread():
    db = Database(None)
    try:
        assert db._checkpointer is None
        _commit_rows(db, 3)
        with db.read() as conn:
            assert conn.execute("SELECT count(*) FROM meta WHERE key LIKE 'k%'").fetchone()[0] == 3
    finally:
        db.close()


def test_close_stops_the_thread(tmp_path):
    db = Database(tmp_path / "workspace.sqlite3")
    thread = _checkpointer(db)._thread
    db.close()
    assert not thread.is_alive()


def test_a_failed_checkpoint_leaves_the_thread_running(db, caplog):
    checkpointer = _checkpointer(db)
    working = checkpointer._conn
    broken = sqlite3.connect(":memory:", check_same_thread=False)
    broken.close()  # any statement on it raises sqlite3.ProgrammingError
    checkpointer._conn = broken
    _commit_rows(db, checkpointer.every_commits)
    assert _wait_for(lambda: "WAL checkpoint failed" in caplog.text)
    assert checkpointer.completed == 0
    checkpointer._conn = working
    _commit_rows(db, checkpointer.every_commits, start=checkpointer.every_commits)
    assert _wait_for(lambda: checkpointer.completed == 1)
