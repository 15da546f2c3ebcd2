"""One list call serves the reads of many objects of a kind (a refresh reads them all).

`Listing.take(client, name)` answers a read from the last listing of that workspace and
hands each object out once: a second read of the same object (after an out-of-band change,
say) lists again, as does a read of an object the listing does not hold. So no read returns
something older than the read before it, and a refresh of N objects makes one call where
it made N. A listing older than `max_age_seconds` is never used, and `forget` drops it
(a kind calls it after its own writes).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from providers.client.workspace import WorkspaceClient

Fetch = Callable[[WorkspaceClient], dict[str, dict[str, Any]]]


@dataclass
class _Snapshot:
    taken_at: float
    remaining: dict[str, dict[str, Any]] = field(default_factory=dict)


class Listing:
    """The listings of one kind, per workspace connection. Thread-safe: concurrent reads
    wait for one list call rather than each making their own."""

    def __init__(
        self,
        fetch: Fetch,
        *,
        max_age_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch = fetch
        self.max_age_seconds = max_age_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._snapshots: dict[Hashable, _Snapshot] = {}
        self._key_locks: dict[Hashable, threading.Lock] = {}

    def take(self, client: WorkspaceClient, name: str) -> dict[str, Any] | None:
        """The object called `name`, or None when the service does not list it."""
        key = client.connection.cache_key()
        with self._key_lock(key):
            found = self._take_listed(key, name)
            if found is not None:
                return found
            snapshot = _Snapshot(self._clock(), dict(self._fetch(client)))
            found = snapshot.remaining.pop(name, None)
            with self._lock:
                self._snapshots[key] = snapshot
            return found

    def forget(self, client: WorkspaceClient) -> None:
        with self._lock:
            self._snapshots.pop(client.connection.cache_key(), None)

    def clear(self) -> None:
        with self._lock:
            self._snapshots.clear()

    def _take_listed(self, key: Hashable, name: str) -> dict[str, Any] | None:
        with self._lock:
            snapshot = self._snapshots.get(key)
            if snapshot is None or self._clock() - snapshot.taken_at > self.max_age_seconds:
                return None
            return snapshot.remaining.pop(name, None)

    def _key_lock(self, key: Hashable) -> threading.Lock:
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())
