"""SqlWarehouse against an emulator on a manual clock whose warehouses take 10 s per
transition (the provider's waits move that clock), in both wire forms: validation by field,
the lifecycle (create held stopped, edits in place, a restart named by the preview, start
and stop), what the service fills in is no change, drift (an auto stop) shown by refresh,
import by id, adoption after a lost answer."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.sql.sql_warehouse import SqlWarehouseProvider, WarehouseStateError
from providers.sql.sql_warehouses_api import SqlWarehousesApi
from tests.conftest import emulator_fixture
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import (
    assert_check_names,
    failures,
    waits_move_the_emulator_clock,
)
from workspace_emulator.testing import EmulatorInfo, advance_clock

emulator = emulator_fixture("module", clock="manual", transition_seconds=10)


@pytest.fixture(autouse=True)
def waits_on_the_emulator_clock(monkeypatch: pytest.MonkeyPatch, emulator: EmulatorInfo) -> None:
    waits_move_the_emulator_clock(monkeypatch, emulator)


@pytest.fixture
def provider() -> SqlWarehouseProvider:
    return SqlWarehouseProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": f"warehouse-{uuid.uuid4().hex[:8]}",
        "cluster_size": "2X-Small",
        "max_num_clusters": 2,
        "auto_stop_mins": 0,
        "tags": {"custom_tags": [{"key": "team", "value": "bi"},
                                 {"key": "cost", "value": "42"}]},
        "state": "STOPPED",
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"name": " "}, "name", "must not be empty"),
        ({"cluster_size": "Tiny"}, "cluster_size", "'2X-Small'"),
        ({"cluster_size": None}, "cluster_size", "Field required"),
        ({"auto_stop_mins": 5}, "auto_stop_mins", "at least 10 minutes"),
        ({"min_num_clusters": 0}, "min_num_clusters", "greater than or equal to 1"),
        ({"max_num_clusters": 41}, "max_num_clusters", "less than or equal to 40"),
        ({"min_num_clusters": 3}, "min_num_clusters", "more than max_num_clusters 2"),
        ({"enable_serverless_compute": True}, "warehouse_type", "PRO"),
        ({"warehouse_type": "SERVERLESS"}, "warehouse_type", "'PRO' or 'CLASSIC'"),
        ({"channel": {"name": "CHANNEL_NAME_CUSTOM"}}, "channel.dbsql_version", "required"),
        ({"channel": {"dbsql_version": "2024.1"}}, "channel.name", "CHANNEL_NAME_CUSTOM"),
        ({"spot_instance_policy": "CHEAP"}, "spot_instance_policy", "'COST_OPTIMIZED'"),
        ({"tags": {"custom_tags": [{"key": "a"}, {"key": "a"}]}}, "tags", "'a' twice"),
        ({"state": "TERMINATED"}, "state", "'RUNNING' or 'STOPPED'"),
        ({"timeout_seconds": 0}, "timeout_seconds", "greater than or equal to 1"),
        ({"size": "S"}, "size", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "state": UNKNOWN}) == {}


def test_lifecycle(provider, props, client: WorkspaceClient) -> None:
    made = provider.create(props)
    warehouse = SqlWarehousesApi(client).get(made.id)
    assert warehouse["state"] == "STOPPED" and made.outs["state"] == "STOPPED"
    assert made.outs["jdbc_url"] == warehouse["jdbc_url"]
    assert made.outs["odbc_params"]["path"] == f"/sql/1.0/warehouses/{made.id}"
    assert "enable_photon" not in made.outs  # the service's, not declared
    # Tags in another order are no change.
    reordered = {**props, "tags": {"custom_tags": list(reversed(props["tags"]["custom_tags"]))}}
    assert not provider.diff(made.id, made.outs, reordered).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    running = {**props, "state": "RUNNING"}
    started = provider.update(made.id, made.outs, running)
    assert SqlWarehousesApi(client).get(made.id)["state"] == "RUNNING"
    assert started.outs["current_state"] == "RUNNING"

    bigger = {**running, "cluster_size": "Small", "auto_stop_mins": 30}
    diff = provider.diff(made.id, started.outs, bigger)
    assert set(diff.changed_keys) == {"cluster_size", "auto_stop_mins"} and not diff.replaces
    assert any("restarts the running warehouse" in line for line in diff.field_changes)
    updated = provider.update(made.id, started.outs, bigger)
    warehouse = SqlWarehousesApi(client).get(made.id)
    assert (warehouse["cluster_size"], warehouse["auto_stop_mins"], warehouse["state"]) == (
        "Small", 30, "RUNNING")

    stopped = provider.update(made.id, updated.outs, {**bigger, "state": "STOPPED"})
    assert SqlWarehousesApi(client).get(made.id)["state"] == "STOPPED"

    provider.delete(made.id, stopped.outs)
    assert provider.read(made.id, stopped.outs).id is None
    provider.delete(made.id, stopped.outs)


def test_an_auto_stop_shows_in_refresh(provider, props, client, emulator) -> None:
    running = {**props, "state": "RUNNING", "auto_stop_mins": 10}
    made = provider.create(running)
    advance_clock(emulator, 11 * 60)
    read = provider.read(made.id, made.outs)
    assert read.outs["state"] == "STOPPED"
    assert provider.diff(made.id, read.outs, running).changed_keys == ["state"]
    provider.update(made.id, read.outs, running)
    assert SqlWarehousesApi(client).get(made.id)["state"] == "RUNNING"
    provider.delete(made.id, made.outs)


def test_import_by_warehouse_id(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["name"] == props["name"] and imported.outs["state"] == "STOPPED"
    assert imported.outs["enable_photon"] is True  # the service's, recorded
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_a_lost_answer_adopts_the_warehouse(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, "/api/2.0/sql/warehouses")
    made = provider.create(props)
    assert lost == ["/api/2.0/sql/warehouses"]
    assert [w["id"] for w in SqlWarehousesApi(client).list() if w["name"] == props["name"]] == [
        made.id]
    provider.delete(made.id, made.outs)


def test_a_name_taken_by_another_warehouse_is_refused(provider, props, client) -> None:
    other = SqlWarehousesApi(client).create({"name": props["name"], "cluster_size": "Large"})
    with pytest.raises(AlreadyExists, match="name: another SQL warehouse"):
        provider.create(props)
    SqlWarehousesApi(client).delete(other)


def test_a_start_that_outlasts_timeout_seconds_says_what_to_do(provider, props) -> None:
    made = provider.create(props)
    with pytest.raises(WarehouseStateError, match="within 1 s.*raise timeout_seconds"):
        provider.update(made.id, made.outs, {**props, "state": "RUNNING", "timeout_seconds": 1})
    provider.delete(made.id, made.outs)
