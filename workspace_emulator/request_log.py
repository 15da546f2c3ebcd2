"""The request log served at /_emulator/requests.

Entries hold no secrets: no headers, no query strings, no bodies; the client is the
client id a token was issued to, never the token itself.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import NamedTuple

MAX_ENTRIES = 20_000


class RequestLogEntry(NamedTuple):
    # A named tuple, not a frozen dataclass: as immutable, at a third of the cost per request.
    time: float
    service: str
    method: str
    path: str
    status: int | None
    client: str | None
    fault: str | None
    duration_ms: float


class RequestLog:
    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._entries: deque[RequestLogEntry] = deque(maxlen=max_entries)
        self._lock = threading.Lock()

    def record(self, entry: RequestLogEntry) -> None:
        with self._lock:
            self._entries.append(entry)

    def entries(self) -> list[dict]:
        with self._lock:
            return [entry._asdict() for entry in self._entries]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
