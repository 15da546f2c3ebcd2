"""One emulator per data directory: an exclusive lock on `<data_dir>/.lock`, held for the
life of the process.

Two emulators on one SQLite file would each believe their own counters, caches and
reserved id blocks (storage.ReservedIds), and hand out the same ids. `flock` locks go with
the process: a killed emulator (even `kill -9`) leaves no stale lock behind, so the next
start never has to guess. The file holds the holder's pid, for the message of the emulator
that is turned away. An in-memory emulator takes no lock.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_FILE = ".lock"


class DataDirInUse(RuntimeError):
    """Another process holds the data directory."""


class DataDirLock:
    """The held lock; `release()` (or the process ending) lets it go."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOCK_FILE
        data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read_pid(fd)
            os.close(fd)
            who = f"pid {holder}" if holder else "another process (pid unknown)"
            raise DataDirInUse(
                f"the data directory {data_dir.resolve()} is already in use by {who}, "
                f"another emulator; stop it, or give this one another --data-dir "
                f"(or --in-memory)") from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd: int | None = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor lets the lock go
            self._fd = None


def _read_pid(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode("ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
