"""Listing: one list call serves many reads; each object handed out once; never older than
this process's last write; a workspace too big to list is read one by one."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from providers.client import workspace
from providers.client.listing import TOO_MANY, Cap, Listing
from providers.client.workspace import WorkspaceClient
from tests.unit.client_support import FakeClock, connection


class Service:
    """Stands for the list endpoint: what it holds now, and how often it was listed."""

    def __init__(self, **objects: int) -> None:
        self.objects = {name: {"name": name, "version": v} for name, v in objects.items()}
        self.calls = 0
        self._lock = threading.Lock()

    def list(self, client: WorkspaceClient) -> dict[str, dict[str, Any]]:
        with self._lock:
            self.calls += 1
            return {name: dict(value) for name, value in self.objects.items()}


def taken(listing: Listing, client: WorkspaceClient, name: str) -> dict[str, Any]:
    found = listing.take(client, name)
    assert found is not None, f"{name} is not listed"
    return found


def test_one_list_call_serves_a_read_of_every_object():
    service = Service(a=1, b=1, c=1)
    listing = Listing(service.list)
    client = WorkspaceClient(connection())

    assert [taken(listing, client, n)["name"] for n in "abc"] == ["a", "b", "c"]
    assert service.calls == 1


def test_reading_an_object_again_lists_again_and_sees_the_change():
    service = Service(a=1, b=1)
    listing = Listing(service.list)
    client = WorkspaceClient(connection())
    assert taken(listing, client, "a")["version"] == 1

    service.objects["a"]["version"] = 2
    assert taken(listing, client, "a")["version"] == 2
    assert service.calls == 2


def test_an_object_the_service_does_not_list_is_none_after_a_fresh_list():
    service = Service(a=1)
    listing = Listing(service.list)
    client = WorkspaceClient(connection())
    listing.take(client, "a")

    assert listing.take(client, "gone") is None
    assert service.calls == 2


def test_an_old_listing_or_a_forgotten_one_is_not_used():
    clock = FakeClock(now=0.0)
    service = Service(a=1, b=1, c=1)
    listing = Listing(service.list, max_age_seconds=30, clock=clock)
    client = WorkspaceClient(connection())
    listing.take(client, "a")

    clock.now = 31
    listing.take(client, "b")
    assert service.calls == 2
    listing.forget(client)
    listing.take(client, "c")
    assert service.calls == 3


def test_listings_are_per_workspace():
    service = Service(a=1)
    listing = Listing(service.list)
    listing.take(WorkspaceClient(connection()), "a")
    listing.take(WorkspaceClient(connection(base_url="https://other.example")), "a")

    assert service.calls == 2


def test_concurrent_reads_share_one_list_call():
    service = Service(**{f"o{i}": 1 for i in range(40)})
    listing = Listing(service.list)
    client = WorkspaceClient(connection())
    found: list[dict | None] = []

    def read(name: str) -> None:
        found.append(listing.take(client, name))

    threads = [threading.Thread(target=read, args=(f"o{i}",)) for i in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert service.calls == 1 and all(found) and len(found) == 40


def test_a_write_of_this_process_to_the_workspace_retires_the_listing():
    service = Service(a=1, b=1)
    listing = Listing(service.list)
    client = WorkspaceClient(connection())
    listing.take(client, "a")

    workspace._count_write(client.connection.base_url)
    service.objects["b"]["version"] = 2

    assert taken(listing, client, "b")["version"] == 2
    assert service.calls == 2


def test_a_workspace_too_big_to_list_is_read_one_by_one_without_listing_again():
    calls = []

    def too_many(client: WorkspaceClient) -> None:
        calls.append(1)
        return TOO_MANY

    listing = Listing(too_many)
    client = WorkspaceClient(connection())

    def read_one(name: str) -> Callable[[], dict[str, Any]]:
        return lambda: {"name": name}

    read = [listing.take(client, n, read_one(n)) for n in "abc"]

    assert read == [{"name": "a"}, {"name": "b"}, {"name": "c"}]
    assert len(calls) == 1


def test_with_read_one_an_object_a_fresh_listing_lacks_is_read_alone():
    service = Service(a=1)
    listing = Listing(service.list)
    client = WorkspaceClient(connection())
    alone: list[str] = []

    def read_one() -> dict[str, Any] | None:
        alone.append("x")
        return None

    assert listing.take(client, "x", read_one) is None
    assert (service.calls, alone) == (1, ["x"])


def test_reads_of_a_workspace_too_big_to_list_go_concurrently():
    # Before, each read one by one held the listing's lock through its call: the reads of a
    # kind in a big workspace went one at a time, however many the host served at once.
    listing = Listing(lambda client: TOO_MANY)
    client = WorkspaceClient(connection())
    assert listing.take(client, "first", lambda: {"name": "first"}) == {"name": "first"}
    both_in_flight = threading.Barrier(2, timeout=5)
    found: list[dict[str, Any] | None] = []

    def read(name: str) -> None:
        def read_one() -> dict[str, Any]:
            both_in_flight.wait()  # broken (an error) unless the other read is in flight too
            return {"name": name}

        found.append(listing.take(client, name, read_one))

    threads = [threading.Thread(target=read, args=(n,)) for n in "ab"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(f["name"] for f in found if f) == ["a", "b"]


class PagedService:
    """A list endpoint of `count` objects, `page_size` a call, that answers TOO_MANY past
    `most` (after the pages that tell): counts its list calls and the reads one by one."""

    def __init__(self, count: int, page_size: int = 100) -> None:
        self.objects = {f"o{i}": {"name": f"o{i}"} for i in range(count)}
        self.page_size = page_size
        self.list_calls = 0
        self.read_calls = 0

    def list(self, client: WorkspaceClient, most: int) -> dict[str, dict[str, Any]] | None:
        fetched = min(len(self.objects), most + 1)
        self.list_calls += max(1, -(-fetched // self.page_size))
        if len(self.objects) > most:
            return TOO_MANY
        return {name: dict(value) for name, value in self.objects.items()}

    def read_one(self, name: str) -> Callable[[], dict[str, Any]]:
        def read() -> dict[str, Any]:
            self.read_calls += 1
            return dict(self.objects[name])

        return read


def read_all(listing: Listing, service: PagedService, names: list[str]) -> list[str]:
    client = WorkspaceClient(connection())
    return [listing.take(client, n, service.read_one(n))["name"] for n in names]  # type: ignore[index]


def test_a_run_reading_many_objects_of_a_big_workspace_lists_them_with_a_bigger_cap():
    # 1,000 objects read, a first cap of 300: a try at 300 (4 calls), reads one by one
    # until they have cost what a try at 600 costs (7 calls; TOO_MANY), again until they
    # have cost what one at 1,200 costs (13), which fits (10 calls) and serves the other 980.
    # Before, every read after the first try was a call of its own.
    service = PagedService(1000)
    listing = Listing(service.list, cap=Cap(300, 100))
    names = list(service.objects)

    assert read_all(listing, service, names) == names
    assert (service.list_calls, service.read_calls) == (4 + 7 + 10, 7 + 13)


def test_a_run_reading_a_few_objects_of_a_big_workspace_lists_no_more_than_before():
    # 10,000 objects, 5 read: the first try (4 calls) and the reads one by one, as before;
    # the reads never pay for a bigger listing.
    service = PagedService(10_000)
    listing = Listing(service.list, cap=Cap(300, 100))
    names = list(service.objects)[:5]

    assert read_all(listing, service, names) == names
    assert (service.list_calls, service.read_calls) == (4, 5)


def test_listing_again_never_costs_more_calls_than_the_reads_one_by_one_it_replaces():
    service = PagedService(10_000)
    listing = Listing(service.list, cap=Cap(300, 100, ceiling=20_000))
    names = list(service.objects)[:2000]

    assert read_all(listing, service, names) == names
    first_try = 4
    assert service.list_calls - first_try <= service.read_calls
    assert service.list_calls + service.read_calls < 2000
