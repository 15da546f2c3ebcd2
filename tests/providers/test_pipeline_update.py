"""PipelineUpdate against an emulator on a manual clock whose updates take 10 s (the
provider's waits move that clock): an update waited for to COMPLETED with its selection,
a FAILED one failing with the service's error event, one started after the update already
running, and a new update only for new inputs."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.pipelines.pipeline_update import PipelineUpdateFailed, PipelineUpdateProvider
from providers.pipelines.pipelines_api import PipelinesApi
from tests.conftest import emulator_fixture
from tests.providers.support import import_notebook, waits_move_the_emulator_clock
from workspace_emulator.testing import EmulatorInfo

emulator = emulator_fixture("module", clock="manual", transition_seconds=10)


@pytest.fixture(autouse=True)
def waits_on_the_emulator_clock(monkeypatch: pytest.MonkeyPatch, emulator: EmulatorInfo) -> None:
    waits_move_the_emulator_clock(monkeypatch, emulator)


@pytest.fixture
def provider() -> PipelineUpdateProvider:
    return PipelineUpdateProvider()


@pytest.fixture
def notebook(client: WorkspaceClient) -> str:
    path = f"/Shared/pipelines/{uuid.uuid4().hex[:8]}/ingest"
    import_notebook(client, path, "CREATE OR REFRESH MATERIALIZED VIEW orders AS SELECT 1\n")
    return path


def make_pipeline(client: WorkspaceClient, notebook: str) -> str:
    return PipelinesApi(client).create({
        "name": f"updated-{uuid.uuid4().hex[:10]}",
        "target": "sales",
        "libraries": [{"notebook": {"path": notebook}}],
    })


@pytest.fixture
def pipeline_id(client: WorkspaceClient, notebook: str) -> str:
    return make_pipeline(client, notebook)


@pytest.fixture
def props(connection: dict[str, Any], pipeline_id: str) -> dict[str, Any]:
    return {
        "pipeline_id": pipeline_id,
        "refresh_selection": ["orders"],
        "trigger": "v1",
        "deployment_tag": "tests/providers/pipeline-update",
        CONNECTION_KEY: connection,
    }


def test_an_update_is_started_and_waited_for_to_the_end(provider, props, client) -> None:
    created = provider.create(props)
    assert created.outs["state"] == "COMPLETED"
    assert created.outs["update_id"] == created.id
    update = PipelinesApi(client).get_update(props["pipeline_id"], created.id)
    assert update["state"] == "COMPLETED"
    assert update["refresh_selection"] == ["orders"]
    assert update.get("full_refresh") is False

    read = provider.read(created.id, created.outs)
    assert read.id == created.id and read.outs["state"] == "COMPLETED"
    assert not provider.diff(created.id, read.outs, props).changes
    provider.delete(created.id, created.outs)  # leaves the update in the history
    assert PipelinesApi(client).get_update(props["pipeline_id"], created.id)["state"] == (
        "COMPLETED"
    )


def test_a_failed_update_fails_with_the_services_error_event(provider, props, client) -> None:
    missing = make_pipeline(client, "/Shared/pipelines/nowhere/ingest")
    with pytest.raises(PipelineUpdateFailed) as failed:
        provider.create({**props, "pipeline_id": missing})
    message = str(failed.value)
    assert f"of pipeline {missing} ended FAILED" in message
    assert "Unable to load the notebook '/Shared/pipelines/nowhere/ingest'" in message
    assert "Change `trigger` to start a new update" in message


def test_an_update_already_running_is_waited_out_first(provider, props, client) -> None:
    running = PipelinesApi(client).start_update(props["pipeline_id"], full_refresh=True)
    created = provider.create(props)
    assert created.id != running
    states = {u["update_id"]: u["state"]
              for u in PipelinesApi(client).list_updates(props["pipeline_id"])}
    assert states == {running: "COMPLETED", created.id: "COMPLETED"}


def test_a_new_update_only_for_new_inputs(provider, props) -> None:
    created = provider.create(props)
    longer = {**props, "timeout_seconds": 7200}
    diff = provider.diff(created.id, created.outs, longer)
    assert diff.changed_keys == ["timeout_seconds"] and not diff.replaces
    for change in ({"trigger": "v2"}, {"full_refresh": True, "refresh_selection": None},
                   {"validate_only": True}):
        news = {k: v for k, v in {**props, **change}.items() if v is not None}
        assert provider.diff(created.id, created.outs, news).replaces


def test_an_update_of_a_deleted_pipeline_reads_as_gone(provider, props, client) -> None:
    created = provider.create(props)
    PipelinesApi(client).delete(props["pipeline_id"])
    assert provider.read(created.id, created.outs).id is None
