"""The corpus of realistic jobs (tests/fixtures/jobs/*.json, each the `settings` of a
`jobs get`) deployed by one stack under the real engine, in both wire forms: the service
then holds each job as declared (apart from what it fills in itself), a second up and a
refresh change nothing, and destroy removes them all.

The fixtures name only objects of the emulator's initial data (clusters, principals): the
service refuses a job naming others."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from providers.jobs.job_diff import canonical
from providers.jobs.jobs_api import JobsApi
from tests.conftest import emulator_client
from tests.e2e.conftest import StackFactory
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

CORPUS = sorted((Path(__file__).parent.parent / "fixtures" / "jobs").glob("*.json"))


def corpus() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in CORPUS]


@pytest.mark.parametrize("wire_form", ["public"])  # legacy: docs/testing.md, "Test legs"
def test_every_job_of_the_corpus_deploys_as_declared(
    workspace_stack: StackFactory, emulator: EmulatorInfo, wire_form: str
) -> None:
    jobs = corpus()
    assert len(jobs) == 12 and len({job["name"] for job in jobs}) == 12
    stack = workspace_stack(wire_form=wire_form, jobs=jobs)
    client = emulator_client(emulator, wire_form)

    stack.up()
    ids = stack.outputs()["jobs"]
    assert set(ids) == {job["name"] for job in jobs}
    for declared in jobs:
        live = JobsApi(client).get(int(ids[declared["name"]]))["settings"]
        assert canonical(live, declared=declared) == canonical(declared), declared["name"]

    clear_request_log(emulator)
    stack.up("--expect-no-changes")
    stack.refresh("--expect-no-changes")
    stack.preview("--expect-no-changes")
    assert [
        r for r in request_log(emulator) if r["service"] == "platform" and r["method"] != "GET"
    ] == []

    stack.destroy()
    left = {job["settings"]["name"] for job in JobsApi(client).list()}
    assert not left & set(ids)
