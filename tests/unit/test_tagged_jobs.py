"""TaggedJobs: which job an interrupted create left, found for every create of a
deployment at the fewest list calls the workspace's size allows."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest

from providers.jobs.job import SEARCHES_BEFORE_WALK, WALK_PAGES, TaggedJobs
from providers.jobs.job_settings import DEPLOYMENT_TAG_KEY
from tests.unit.client_support import FakeClock, connection

# The fake client stands for the areas (tests/fake_areas.py).
pytestmark = pytest.mark.usefixtures("fake_areas")

PAGE = 3  # jobs per page of the fake service


@dataclass
class FakeJobs:
    """The jobs area: a workspace's jobs and what was asked of it."""

    jobs: list[dict[str, Any]] = field(default_factory=list)
    pages_listed: int = 0
    searches: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, tag: str | None) -> int:
        job_id = 100 + len(self.jobs)
        tags = {DEPLOYMENT_TAG_KEY: tag} if tag else {}
        self.jobs.append({"job_id": job_id, "settings": {"name": name, "tags": tags}})
        return job_id

    def list_pages(self, pages: int) -> tuple[list[dict[str, Any]], bool]:
        shown = self.jobs[: pages * PAGE]
        with self._lock:
            self.pages_listed += max(1, -(-len(shown) // PAGE))
        return shown, len(self.jobs) > len(shown)

    def list(self, name: str) -> list[dict[str, Any]]:
        with self._lock:
            self.searches += 1
        return [job for job in self.jobs if job["settings"]["name"] == name]

    @property
    def calls(self) -> int:
        return self.pages_listed + self.searches


@dataclass
class FakeClient:
    jobs: FakeJobs
    connection: Any = field(default_factory=connection)


def workspace_with(others: int) -> FakeClient:
    jobs = FakeJobs()
    for i in range(others):
        jobs.add(f"other-{i}", f"p/other/{i}")
    return FakeClient(jobs)


def find_for(tagged: TaggedJobs, client: FakeClient, i: int) -> int | None:
    return tagged.find(client, f"job-{i}", f"p/s/job-{i}")  # type: ignore[arg-type]


def test_a_workspace_of_one_page_is_listed_once_for_every_create():
    client = workspace_with(PAGE - 1)
    left_over = client.jobs.add("job-7", "p/s/job-7")
    tagged = TaggedJobs()
    found = [find_for(tagged, client, i) for i in range(10)]
    assert found == [None] * 7 + [left_over, None, None]
    assert (client.jobs.pages_listed, client.jobs.searches) == (1, 0)


def test_a_few_creates_in_a_big_workspace_search_by_name():
    client = workspace_with(5 * PAGE)
    left_over = client.jobs.add("job-2", "p/s/job-2")  # listed last: beyond the first page
    tagged = TaggedJobs()
    found = [find_for(tagged, client, i) for i in range(SEARCHES_BEFORE_WALK)]
    assert found == [None, None, left_over, None][:SEARCHES_BEFORE_WALK]
    assert (client.jobs.pages_listed, client.jobs.searches) == (1, SEARCHES_BEFORE_WALK)


def test_many_creates_in_a_big_workspace_list_it_whole_once():
    pages = 5
    client = workspace_with(pages * PAGE - 1)
    left_over = client.jobs.add("job-40", "p/s/job-40")
    tagged = TaggedJobs()
    creates = 60
    found = [find_for(tagged, client, i) for i in range(creates)]
    assert found == [left_over if i == 40 else None for i in range(creates)]
    assert client.jobs.searches == SEARCHES_BEFORE_WALK
    assert client.jobs.pages_listed == 1 + 2 * pages  # the first page; the walk, twice
    assert client.jobs.calls / creates < 0.3


def test_a_job_made_while_the_workspace_was_listed_whole_is_still_known():
    client = workspace_with(3 * PAGE)
    tagged = TaggedJobs()
    for i in range(SEARCHES_BEFORE_WALK):
        assert find_for(tagged, client, i) is None
    # Made after the first page was listed, and not yet shown by the whole listing that
    # the next create takes.
    tagged.made(client, "p/s/job-0", 7)  # type: ignore[arg-type]
    assert find_for(tagged, client, 99) is None
    assert client.jobs.pages_listed == 1 + 2 * 3
    assert tagged.find(client, "job-0", "p/s/job-0") == 7  # type: ignore[arg-type]


def test_a_workspace_bigger_than_the_walk_goes_on_searching_by_name():
    client = workspace_with((WALK_PAGES + 2) * PAGE)
    tagged = TaggedJobs()
    creates = 30
    for i in range(creates):
        assert find_for(tagged, client, i) is None
    assert client.jobs.pages_listed == 1 + WALK_PAGES  # one whole listing, not one per create
    assert client.jobs.searches == creates


def test_a_walk_that_a_deletion_may_have_cut_short_is_not_trusted():
    client = workspace_with(3 * PAGE)
    jobs = client.jobs.jobs
    hidden = jobs[PAGE]  # the second page's first job: the left-over job-9's create seeks
    hidden["settings"].update(name="job-9", tags={DEPLOYMENT_TAG_KEY: "p/s/job-9"})
    deleted = jobs[0]
    walks = iter(
        [
            # The first walk read the first page; then `deleted` went, the second page
            # began one job later, and `hidden` was on neither.
            ([job for job in jobs if job is not hidden], False),
            ([job for job in jobs if job is not deleted], False),
        ]
    )
    first_page = client.jobs.list_pages
    client.jobs.list_pages = lambda pages: (  # type: ignore[method-assign]
        first_page(pages) if pages == 1 else next(walks)
    )
    tagged = TaggedJobs()
    for i in range(SEARCHES_BEFORE_WALK):
        assert find_for(tagged, client, i) is None
    # Not trusted: job-9's create searches by name, and adopts its left-over.
    assert find_for(tagged, client, 9) == hidden["job_id"]
    assert client.jobs.searches == SEARCHES_BEFORE_WALK + 1


def test_a_job_deleted_while_the_workspace_was_listed_is_not_adopted():
    client = workspace_with(PAGE - 2)
    deleted = client.jobs.add("job-5", "p/s/job-5")
    tagged = TaggedJobs()
    listed = client.jobs.list_pages

    def list_during_a_delete(pages: int) -> tuple[list[dict[str, Any]], bool]:
        shown = listed(pages)  # read before the delete: it still shows the job
        tagged.gone(client, deleted)  # type: ignore[arg-type]
        client.jobs.jobs.remove(next(j for j in client.jobs.jobs if j["job_id"] == deleted))
        return shown

    client.jobs.list_pages = list_during_a_delete  # type: ignore[method-assign]
    assert find_for(tagged, client, 0) is None
    # Adopting it would reset a job that is gone (404): job-5's create makes a new one.
    assert find_for(tagged, client, 5) is None
    assert client.jobs.pages_listed == 1


def test_a_listing_too_old_is_not_used():
    clock = FakeClock()
    client = workspace_with(1)
    tagged = TaggedJobs(max_age_seconds=60, clock=clock)
    assert find_for(tagged, client, 0) is None
    left_over = client.jobs.add("job-1", "p/s/job-1")  # by a process the cache knows nothing of
    clock.sleep(61)
    assert find_for(tagged, client, 1) == left_over
    assert client.jobs.pages_listed == 2


def test_concurrent_creates_wait_for_one_listing():
    client = workspace_with(PAGE - 1)
    tagged = TaggedJobs()
    with ThreadPoolExecutor(8) as pool:
        found = list(pool.map(lambda i: find_for(tagged, client, i), range(40)))
    assert found == [None] * 40
    assert client.jobs.calls == 1
