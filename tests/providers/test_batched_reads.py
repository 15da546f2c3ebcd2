"""A refresh reads jobs and service principals through one list call of each kind, and still
sees what changed out of band before it: both wire forms, on a workspace of this module's
own (the emulator's request log counts the calls)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from providers.client import WireForm
from providers.client.wire import SCIM_SERVICE_PRINCIPALS
from providers.core.lifecycle import CONNECTION_KEY
from providers.identity.service_principal import ServicePrincipalProvider
from providers.jobs.job import JobProvider
from providers.jobs.jobs_api import JOBS_PATHS
from tests.conftest import emulator_fixture
from tests.providers.test_job import public_inputs, unique_name
from workspace_emulator.testing import (
    EmulatorInfo,
    auth_headers,
    clear_request_log,
    register_application,
    request_log,
)

emulator = emulator_fixture("module")
COUNT = 3


def platform_calls(emulator: EmulatorInfo) -> list[tuple[str, str]]:
    return [
        (e["method"], e["path"]) for e in request_log(emulator) if e["path"].startswith("/api/")
    ]


def out_of_band(emulator: EmulatorInfo, method: str, path: str, body: dict[str, Any]) -> None:
    """A change made by another process: not through this process's client."""
    response = requests.request(
        method, f"{emulator.base_url}{path}", json=body, headers=auth_headers(emulator), timeout=10
    )
    response.raise_for_status()


@pytest.fixture
def jobs(connection) -> Iterator[list[Any]]:
    provider = JobProvider()
    made: list[Any] = [
        provider.create({**public_inputs(unique_name()), CONNECTION_KEY: connection})
        for _ in range(COUNT)
    ]
    yield made
    for result in made:
        provider.delete(result.id, result.outs)


def test_a_refresh_of_jobs_is_one_list_call_and_sees_a_rename(emulator, connection, jobs):
    provider = JobProvider()
    renamed = jobs[-1]
    out_of_band(
        emulator,
        "POST",
        "/api/2.0/jobs/update",
        {"job_id": int(renamed.id), "new_settings": {"name": "renamed-elsewhere"}},
    )
    clear_request_log(emulator)

    reads: list[Any] = [provider.read(result.id, result.outs) for result in jobs]

    jobs_path = JOBS_PATHS[WireForm(connection["wire_form"])]
    assert platform_calls(emulator) == [("GET", f"{jobs_path}/list")]
    assert [read.outs for read in reads[:-1]] == [result.outs for result in jobs[:-1]]
    assert reads[-1].outs["name"] == "renamed-elsewhere"


def test_a_job_gone_reads_as_gone_and_a_write_of_this_process_lists_again(
    emulator, connection, jobs
):
    provider = JobProvider()
    first, gone, changed = jobs
    out_of_band(emulator, "POST", "/api/2.0/jobs/delete", {"job_id": int(gone.id)})
    provider.read(first.id, first.outs)  # the listing is taken

    assert provider.read(gone.id, gone.outs).id is None
    # A write of this process after the listing: the next read lists again and sees it.
    new_name = f"{changed.outs['name']}-2"
    provider.update(
        changed.id,
        changed.outs,
        {**public_inputs(new_name), CONNECTION_KEY: connection},
        old_inputs={**public_inputs(changed.outs["name"]), CONNECTION_KEY: connection},
    )
    clear_request_log(emulator)
    reread: Any = provider.read(changed.id, changed.outs)
    assert reread.outs["name"] == new_name
    jobs_path = JOBS_PATHS[WireForm(connection["wire_form"])]
    assert platform_calls(emulator) == [("GET", f"{jobs_path}/list")]
    jobs.remove(gone)


def test_a_refresh_of_principals_is_one_list_call_and_sees_a_rename(emulator, connection):
    provider = ServicePrincipalProvider()
    made: list[Any] = []
    for index in range(COUNT):
        application = register_application(emulator, f"batched-{index}")
        props = {
            "application_id": application["client_id"],
            "display_name": f"batched {index}",
            CONNECTION_KEY: connection,
        }
        made.append(provider.create(props))
    try:
        out_of_band(
            emulator,
            "PATCH",
            f"{SCIM_SERVICE_PRINCIPALS}/{made[0].id}",
            {
                "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
                "Operations": [{"op": "replace", "path": "displayName", "value": "elsewhere"}],
            },
        )
        clear_request_log(emulator)

        reads: list[Any] = [provider.read(result.id, result.outs) for result in made]

        assert platform_calls(emulator) == [("GET", SCIM_SERVICE_PRINCIPALS)]
        assert reads[0].outs["display_name"] == "elsewhere"
        assert [read.outs for read in reads[1:]] == [result.outs for result in made[1:]]
    finally:
        for result in made:
            provider.delete(result.id, result.outs)
