"""One list call serves the reads of many objects of a kind (a refresh reads them all).

`Listing.take(client, name)` answers a read from the last listing of that workspace and
hands each object out once: a second read of the same object (after an out-of-band change,
say) lists again, as does a read of an object the listing does not hold. So no read returns
something older than the read before it, and a refresh of N objects makes one call where
it made N. A listing is not used once this process has sent the workspace any write
(`workspace.writes_sent`), once it is older than `max_age_seconds`, or after `forget`.

Where the workspace holds more objects than a listing should fetch, the fetch answers None
(`TOO_MANY`): the reads of the next `max_age_seconds` then go one by one (`read_one`),
concurrently. A listing given a `Cap` tries again, fetching twice as many, once the reads
made one by one since its last try have cost as many calls as that bigger listing would
(its pages): a refresh that reads many objects of a big workspace lists them in a few pages
where it made a call per object, and listing never costs more calls than the reads one by
one it replaces, so a refresh of a few objects lists no more than before.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from providers.client.workspace import WorkspaceClient

# What a fetch answers when the workspace holds too many objects to list them for reads.
TOO_MANY = None

# fetch(client), or with a Cap fetch(client, most): TOO_MANY where there are more than `most`.
Fetch = Callable[..., dict[str, dict[str, Any]] | None]
ReadOne = Callable[[], dict[str, Any] | None]


@dataclass(frozen=True)
class Cap:
    """How many objects a listing fetches at most: `first` at first, twice as many at each
    try after the reads one by one have paid for it; `page_size` objects per list call."""

    first: int
    page_size: int
    # Beyond this a workspace is read one by one whatever a run reads.
    ceiling: int = 20_000

    def pages(self, most: int) -> int:
        # The pages of `most` objects and the one that tells there are more.
        return -(-most // self.page_size) + 1


@dataclass
class _Snapshot:
    taken_at: float
    writes_before: int  # the workspace's write count as the list call began
    remaining: dict[str, dict[str, Any]] | None  # None: too many to list
    most: int = 0  # the cap it was fetched with (a Cap's listing)
    read_alone: int = 0  # reads made one by one since (TOO_MANY)


class Listing:
    """The listings of one kind, per workspace connection. Thread-safe: concurrent reads
    wait for one list call rather than each making their own."""

    def __init__(
        self,
        fetch: Fetch,
        *,
        cap: Cap | None = None,
        max_age_seconds: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch = fetch
        self.cap = cap
        self.max_age_seconds = max_age_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._snapshots: dict[Hashable, _Snapshot] = {}
        self._key_locks: dict[Hashable, threading.Lock] = {}

    def take(
        self, client: WorkspaceClient, name: str, read_one: ReadOne | None = None
    ) -> dict[str, Any] | None:
        """The object called `name`, or None when the service does not list it. With
        `read_one`, an object a fresh listing does not hold, or any object of a workspace
        too big to list, is read by `read_one` instead."""
        key = client.connection.cache_key()
        alone = False
        with self._key_lock(key):
            snapshot = self._usable(key, client)
            most = self.cap.first if self.cap is not None else 0
            if snapshot is not None and snapshot.remaining is TOO_MANY:
                most = self._bigger_listing_paid_for(snapshot)
                alone = most == 0
            elif snapshot is not None:
                found = self._pop(snapshot, name)
                if found is not None:
                    return found
                most = max(most, snapshot.most)  # what fitted then
            if not alone:
                writes_before = _writes_sent(client)
                listed = self._fetch(client, most) if self.cap is not None else self._fetch(client)
                snapshot = _Snapshot(
                    self._clock(), writes_before, None if listed is TOO_MANY else dict(listed),
                    most,
                )
                with self._lock:
                    self._snapshots[key] = snapshot
                alone = listed is TOO_MANY
                found = None if alone else self._pop(snapshot, name)
        # Outside the lock: the reads of a workspace too big to list go concurrently.
        if alone:
            return read_one() if read_one is not None else None
        if found is None and read_one is not None:
            return read_one()
        return found

    def _bigger_listing_paid_for(self, snapshot: _Snapshot) -> int:
        """The cap to list again with, now that one more read goes one by one; 0 while the
        reads one by one have not yet cost what that listing would (or past the ceiling)."""
        cap = self.cap
        if cap is None or snapshot.most >= cap.ceiling:
            return 0
        with self._lock:
            snapshot.read_alone += 1
            bigger = min(snapshot.most * 2, cap.ceiling)
            return bigger if snapshot.read_alone >= cap.pages(bigger) else 0

    def forget(self, client: WorkspaceClient) -> None:
        with self._lock:
            self._snapshots.pop(client.connection.cache_key(), None)

    def clear(self) -> None:
        with self._lock:
            self._snapshots.clear()

    def _usable(self, key: Hashable, client: WorkspaceClient) -> _Snapshot | None:
        with self._lock:
            snapshot = self._snapshots.get(key)
        if snapshot is None:
            return None
        if self._clock() - snapshot.taken_at > self.max_age_seconds:
            return None
        if _writes_sent(client) != snapshot.writes_before:
            return None
        return snapshot

    def _pop(self, snapshot: _Snapshot, name: str) -> dict[str, Any] | None:
        with self._lock:
            return snapshot.remaining.pop(name, None) if snapshot.remaining else None

    def _key_lock(self, key: Hashable) -> threading.Lock:
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())


def _writes_sent(client: WorkspaceClient) -> int:
    # Imported here: a kind's module imports this one without the transport (requests),
    # which loads only when a client is made.
    from providers.client.workspace import writes_sent

    return writes_sent(client.connection.base_url)
