"""Alert against the emulator, in both wire forms: create on a query, read, update in place
by an update mask of the changed fields only, drift, import with no diff, delete to the
trash, the owner kept when left out, and adopting what an interrupted create left."""

from __future__ import annotations

from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.sql.alert import AlertProvider
from providers.sql.alerts_api import ALERTS_PATH, AlertsApi
from providers.sql.queries_api import QueriesApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.sql_objects import make_folder, make_warehouse, patches_sent


def condition(op: str = "LESS_THAN", threshold: float | None = 10) -> dict[str, Any]:
    made: dict[str, Any] = {"op": op, "operand": {"column": {"name": "n"}}}
    if threshold is not None:
        made["threshold"] = {"value": {"double_value": threshold}}
    return made


@pytest.fixture
def provider() -> AlertProvider:
    return AlertProvider()


@pytest.fixture
def props(connection: dict[str, Any], client: WorkspaceClient) -> dict[str, Any]:
    folder = make_folder(client)
    query = QueriesApi(client).create({"display_name": "orders", "query_text": "SELECT 1 n",
                                       "warehouse_id": make_warehouse(client),
                                       "parent_path": folder})
    return {
        "display_name": "Too few orders",
        "query_id": query["id"],
        "condition": condition(),
        "custom_subject": "few orders",
        "notify_on_ok": True,
        "seconds_to_retrigger": 600,
        "parent_path": folder,
        CONNECTION_KEY: connection,
    }


def test_create_read_update_delete(provider, props, client, monkeypatch) -> None:
    assert provider.check({}, props).failures == []
    made = provider.create(props)
    found = AlertsApi(client).get(made.id)
    assert (found["query_id"], found["condition"], found["state"]) == (
        props["query_id"], condition(), "UNKNOWN")
    assert made.outs["state"] == "UNKNOWN"
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "condition": condition("IS_NULL", None), "seconds_to_retrigger": 60}
    changed.pop("custom_subject")
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {"condition", "custom_subject", "seconds_to_retrigger"}
    sent = patches_sent(monkeypatch)
    updated = provider.update(made.id, made.outs, changed)
    assert [body["update_mask"] for _, body in sent] == [
        "condition,custom_subject,seconds_to_retrigger"]
    found = AlertsApi(client).get(made.id)
    assert (found["condition"], found.get("custom_subject"), found["notify_on_ok"]) == (
        condition("IS_NULL", None), None, True)
    assert not provider.diff(made.id, updated.outs, changed).changes

    # Drift: the threshold changed in the workspace shows on read.
    AlertsApi(client).update(made.id, ["notify_on_ok"], {"notify_on_ok": False})
    drifted = provider.read(made.id, updated.outs)
    assert provider.diff(made.id, drifted.outs, changed).changed_keys == ["notify_on_ok"]

    provider.delete(made.id, updated.outs)
    assert AlertsApi(client).get(made.id)["lifecycle_state"] == "TRASHED"
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)


def test_owner_set_after_the_create_and_kept_when_left_out(provider, props, client) -> None:
    owned = {**props, "owner_user_name": "analyst@example.com"}
    made = provider.create(owned)
    assert AlertsApi(client).get(made.id)["owner_user_name"] == "analyst@example.com"
    assert not provider.diff(made.id, made.outs, owned).changes
    assert not provider.diff(made.id, made.outs, props).changes  # left out: kept
    updated = provider.update(made.id, made.outs, {**props, "custom_body": "look"})
    assert AlertsApi(client).get(made.id)["owner_user_name"] == "analyst@example.com"
    provider.delete(made.id, updated.outs)


def test_import_shows_no_diff(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["condition"] == condition()
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_an_interrupted_create_is_adopted(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, ALERTS_PATH)
    made = provider.create(props)
    assert lost == [ALERTS_PATH]
    assert [a["id"] for a in AlertsApi(client).list()
            if a["query_id"] == props["query_id"]] == [made.id]
    provider.delete(made.id, made.outs)


def test_rules_name_their_paths(provider, props) -> None:
    cases: dict[str, dict[str, Any]] = {
        "condition.threshold": {"condition": condition(threshold=None)},
        "condition.threshold.value": {"condition": {**condition(), "threshold": {"value": {
            "double_value": 1, "string_value": "1"}}}},
        "condition.operand.column.name": {"condition": {**condition(),
                                                        "operand": {"column": {}}}},
        "condition.op": {"condition": {**condition(), "op": "ABOUT"}},
        "query_id": {"query_id": " "},
        "seconds_to_retrigger": {"seconds_to_retrigger": -5},
        "parent_path": {"parent_path": "relative/folder"},
    }
    for path, change in cases.items():
        failures = provider.check({}, {**props, **change}).failures
        assert [f.property for f in failures] == [path], (path, failures)
    is_null = {**props, "condition": {**condition("IS_NULL", None),
                                      "threshold": {"value": {"bool_value": True}}}}
    assert [f.property for f in provider.check({}, is_null).failures] == [
        "condition.threshold"]
