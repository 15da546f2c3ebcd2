"""App against an emulator on a manual clock whose apps take 10 s per compute move and per
deployment (the provider's waits move that clock), in both wire forms: validation by field,
the lifecycle (create deployed from a folder and running, settings in place, a redeploy on
a new deployment_trigger, held stopped and started again), a failed deployment failing with
the service's message, drift shown by refresh, import by name, adoption after a lost
answer, a name taken."""

from __future__ import annotations

import uuid
from typing import Any

import pulumi
import pytest

from providers.applications.app import AppProvider, AppStateError
from providers.applications.apps_api import APPS_PATH, AppsApi
from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from tests.conftest import emulator_fixture
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import (
    assert_check_names,
    failures,
    import_notebook,
    waits_move_the_emulator_clock,
)
from workspace_emulator.testing import EmulatorInfo

emulator = emulator_fixture("module", clock="manual", transition_seconds=10)


@pytest.fixture(autouse=True)
def waits_on_the_emulator_clock(monkeypatch: pytest.MonkeyPatch, emulator: EmulatorInfo) -> None:
    waits_move_the_emulator_clock(monkeypatch, emulator)


@pytest.fixture
def provider() -> AppProvider:
    return AppProvider()


@pytest.fixture
def source(client: WorkspaceClient) -> str:
    """A workspace folder holding an app's code."""
    folder = f"/Shared/apps/{uuid.uuid4().hex[:8]}"
    import_notebook(client, f"{folder}/app")
    return folder


@pytest.fixture
def props(connection: dict[str, Any], source: str) -> dict[str, Any]:
    return {
        "name": f"orders-{uuid.uuid4().hex[:8]}",
        "description": "order lookups",
        "resources": [
            {"name": "warehouse", "sql_warehouse": {"id": "abc123", "permission": "CAN_USE"}},
            {"name": "api-key", "secret": {"scope": "apps", "key": "api",
                                           "permission": "READ"}},
        ],
        "user_api_scopes": ["sql", "files.files"],
        "source_code_path": source,
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"name": "Orders_App"}, "name", "lower-case letters, digits and '-'"),
        ({"compute_size": "SMALL"}, "compute_size", "'MEDIUM', 'LARGE' or 'XLARGE'"),
        ({"resources": [{"name": "w"}]}, "resources[0]", "give exactly one of"),
        ({"resources": [{"name": "w", "job": {"id": 1, "permission": "CAN_VIEW"},
                         "sql_warehouse": {"id": "a", "permission": "CAN_USE"}}]},
         "resources[0]", "gives sql_warehouse, job"),
        ({"resources": [{"name": "w", "job": {"id": 1, "permission": "CAN_USE"}}]},
         "resources.0.job.permission", "'CAN_VIEW'"),
        ({"resources": [{"name": "v", "uc_securable": {
            "securable_full_name": "main.raw.files", "securable_type": "VOLUME",
            "permission": "SELECT"}}]},
         "resources[0].uc_securable.permission", "a VOLUME takes READ_VOLUME or WRITE_VOLUME"),
        ({"resources": [{"name": "w", "job": {"id": 1, "permission": "CAN_VIEW"}},
                        {"name": "w", "job": {"id": 2, "permission": "CAN_VIEW"}}]},
         "resources", "names 'w' twice"),
        ({"source_code_path": None, "deployment_trigger": "v2"}, "deployment_trigger",
         "give source_code_path too"),
        ({"state": "TERMINATED"}, "state", "'RUNNING' or 'STOPPED'"),
        ({"timeout_seconds": 0}, "timeout_seconds", "greater than or equal to 1"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "source_code_path": UNKNOWN}) == {}


def test_lifecycle(provider, props, client: WorkspaceClient, source, monkeypatch) -> None:
    reported: list[str] = []
    monkeypatch.setattr(pulumi.log, "info", lambda message, *a, **k: reported.append(message))
    made = provider.create(props)
    assert made.id == props["name"]
    app = AppsApi(client).get(made.id)
    assert (app["compute_status"]["state"], app["app_status"]["state"]) == ("ACTIVE", "RUNNING")
    assert app["active_deployment"]["source_code_path"] == source
    assert any("deployment of" in line and "SUCCEEDED" in line for line in reported), reported
    assert (made.outs["app_state"], made.outs["url"]) == ("RUNNING", app["url"])
    first = made.outs["deployment_id"]
    # Resources and scopes in another order are no change; nor is the service's size.
    reordered = {**props, "resources": props["resources"][::-1],
                 "user_api_scopes": props["user_api_scopes"][::-1]}
    assert not provider.diff(made.id, made.outs, reordered).changes
    read = provider.read(made.id, made.outs)
    assert "compute_size" not in read.outs
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "description": "orders", "compute_size": "LARGE",
               "resources": props["resources"][:1], "deployment_trigger": "v2"}
    diff = provider.diff(made.id, made.outs, changed)
    assert diff.changed_keys == ["compute_size", "deployment_trigger", "description",
                                 "resources"] and not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    app = AppsApi(client).get(made.id)
    assert (app["description"], app["compute_size"]) == ("orders", "LARGE")
    assert [r["name"] for r in app["resources"]] == ["warehouse"]
    assert updated.outs["deployment_id"] not in (None, first)  # deployed again

    stopped = provider.update(made.id, updated.outs, {**changed, "state": "STOPPED"})
    assert AppsApi(client).get(made.id)["compute_status"]["state"] == "STOPPED"
    assert stopped.outs["deployment_id"] == updated.outs["deployment_id"]  # not redeployed
    started = provider.update(made.id, stopped.outs, {**changed, "state": "RUNNING"})
    assert AppsApi(client).get(made.id)["compute_status"]["state"] == "ACTIVE"

    assert provider.diff(made.id, started.outs, {**changed, "name": "orders-v2"}).replaces == [
        "name"]
    provider.delete(made.id, started.outs)
    assert provider.read(made.id, started.outs).id is None
    provider.delete(made.id, started.outs)


def test_a_deployment_that_fails_fails_with_its_message(provider, props) -> None:
    missing = {**props, "source_code_path": "/Shared/apps/nowhere"}
    with pytest.raises(AppStateError, match="ended FAILED: Source code path "
                                            "/Shared/apps/nowhere does not exist"):
        provider.create(missing)


def test_created_stopped_without_code(provider, props, client) -> None:
    idle = {key: value for key, value in props.items() if key != "source_code_path"}
    made = provider.create({**idle, "state": "STOPPED"})
    app = AppsApi(client).get(made.id)
    assert app["compute_status"]["state"] == "STOPPED" and "active_deployment" not in app
    assert made.outs["state"] == "STOPPED"
    provider.delete(made.id, made.outs)


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create({**props, "state": "RUNNING"})
    AppsApi(client).update(made.id, {"description": "edited in the UI"})
    AppsApi(client).stop(made.id)
    read = provider.read(made.id, made.outs)
    assert (read.outs["description"], read.outs["state"]) == ("edited in the UI", "STOPPED")
    assert provider.diff(made.id, read.outs, {**props, "state": "RUNNING"}).changed_keys == [
        "description", "state"]
    provider.delete(made.id, made.outs)


def test_import_by_name(provider, props, source) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert (imported.outs["source_code_path"], imported.outs["state"]) == (source, "RUNNING")
    assert imported.outs["compute_size"] == "MEDIUM"  # the service's, recorded
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_a_lost_answer_adopts_the_app(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, APPS_PATH)
    made = provider.create(props)
    assert lost == [APPS_PATH]
    assert [a["name"] for a in AppsApi(client).list()].count(props["name"]) == 1
    assert made.outs["app_state"] == "RUNNING"
    provider.delete(made.id, made.outs)


def test_a_deployment_whose_answer_is_lost_is_waited_for_not_made_twice(
    provider, props, client, monkeypatch
) -> None:
    deployments = f"{APPS_PATH}/{props['name']}/deployments"
    lost = lose_the_answer_to(monkeypatch, deployments)
    made = provider.create(props)
    assert lost == [deployments]
    listed = client.get(deployments).get("app_deployments") or []
    assert len(listed) == 1, listed
    assert made.outs["app_state"] == "RUNNING"
    provider.delete(made.id, made.outs)


def test_a_name_taken_by_another_app_is_refused(provider, props, client) -> None:
    AppsApi(client).create({"name": props["name"], "description": "someone else's"})
    with pytest.raises(AlreadyExists, match="name: another app"):
        provider.create(props)
    AppsApi(client).delete(props["name"])
