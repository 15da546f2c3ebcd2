"""Copies the write-ahead log back into the database file off the request path.

SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold, so one
write in a few hundred pays for folding all of them back (and for the syncs that go with
it): about half of a job create's COMMIT time, amortized. Here a second connection does it
in a thread, after every `every_commits` commits, in PASSIVE mode: it never waits for nor
blocks a reader or the writer, and sqlite3 releases the GIL while it works. Durability is
unchanged: a commit is durable once it is in the log, whether or not it was copied back.

A passive checkpoint never starts the log over while writes keep coming, so once the log
holds `restart_frames` pages the thread also tries a RESTART, which waits briefly for the
writer. Where that wait runs out (a busy machine), the writer starts the log over itself
after its next commit (`restart_due`), when no transaction of its connection is open: the
log's size stays bounded however the thread is scheduled.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

logger = logging.getLogger(__name__)

EVERY_COMMITS = 256
# Pages in the log (4 KiB each: 16 MiB) past which a checkpoint also starts the log over.
RESTART_FRAMES = 4096


class WalCheckpointer:
    def __init__(
        self, path: Path, every_commits: int = EVERY_COMMITS, restart_frames: int = RESTART_FRAMES
    ) -> None:
        self.every_commits = every_commits
        self.restart_frames = restart_frames
        self.completed = 0  # checkpoints run so far (tests watch it)
        self.restarted = 0  # times the log was started over, by the thread or the writer
        self.restarted_by_writer = 0
        # A RESTART waits for readers at most this long (holding the next write off meanwhile);
        # one that cannot finish is retried at the next checkpoint.
        self._conn = sqlite3.connect(
            str(path), isolation_level=None, check_same_thread=False, timeout=0.1
        )
        self._since_last = 0
        self._restart_due = False  # the thread's RESTART ran out of time: the writer's turn
        self._due = threading.Event()
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)
        self._thread.start()

    def committed(self, writer: sqlite3.Connection) -> None:
        """Counts one commit of `writer` (outside any transaction now); every
        `every_commits`-th wakes the thread. Starts the log over on `writer` where the
        thread could not."""
        if self._restart_due:
            self._restart_due = False
            if self._restart(writer):
                self.restarted_by_writer += 1
        self._since_last += 1
        if self._since_last >= self.every_commits:
            self._since_last = 0
            self._due.set()

    def _run(self) -> None:
        while True:
            self._due.wait()
            self._due.clear()
            if self._closing:
                return
            try:
                self.checkpoint()
            except sqlite3.Error as error:
                # The next one retries; a thread that died here would let the log grow.
                logger.warning("WAL checkpoint failed (retried after more commits): %s", error)
                continue
            self.completed += 1

    def checkpoint(self) -> None:
        """Copies the log back; starts it over too once it holds `restart_frames` pages."""
        _, log_frames, _ = self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if log_frames >= self.restart_frames and not self._restart(self._conn):
            self._restart_due = True

    def _restart(self, conn: sqlite3.Connection) -> bool:
        """Copies the log back and starts it over; False where a reader or writer held it
        past the connection's timeout."""
        busy, _, _ = conn.execute("PRAGMA wal_checkpoint(RESTART)").fetchone()
        if busy:
            return False
        self.restarted += 1
        return True

    def close(self) -> None:
        self._closing = True
        self._due.set()
        self._thread.join()
        self._conn.close()
