"""Copies the write-ahead log back into the database file off the request path.

SQLite's automatic checkpoint runs inside the COMMIT that crosses its threshold, so one
write in a few hundred pays for folding all of them back (and for the syncs that go with
it): about half of a job create's COMMIT time, amortized. Here a second connection does it
in a thread, after every `every_commits` commits, in PASSIVE mode: it never waits for nor
blocks a reader or the writer, and sqlite3 releases the GIL while it works. Durability is
unchanged: a commit is durable once it is in the log, whether or not it was copied back.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from pathlib import Path

logger = logging.getLogger(__name__)

EVERY_COMMITS = 256


class WalCheckpointer:
    def __init__(self, path: Path, every_commits: int = EVERY_COMMITS) -> None:
        self.every_commits = every_commits
        self.completed = 0  # checkpoints run so far (tests watch it)
        self._conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
        self._since_last = 0
        self._due = threading.Event()
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="wal-checkpoint", daemon=True)
        self._thread.start()

    def committed(self) -> None:
        """Counts one commit of the writer; every `every_commits`-th wakes the thread."""
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
                self._conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
            except sqlite3.Error as error:
                # The next one retries; a thread that died here would let the log grow.
                logger.warning("WAL checkpoint failed (retried after more commits): %s", error)
                continue
            self.completed += 1

    def close(self) -> None:
        self._closing = True
        self._due.set()
        self._thread.join()
        self._conn.close()
