"""Query against the emulator, in both wire forms: create, read, update in place by an update
mask of the changed fields only, drift, import with no diff, delete to the trash, a text
from a file of the project known by its digest, and adopting what an interrupted create
left."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.sql.queries_api import QUERIES_PATH, QueriesApi
from providers.sql.query import QueryProvider, text_digest
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.sql_objects import make_folder, make_warehouse, patches_sent, project


@pytest.fixture
def provider() -> QueryProvider:
    return QueryProvider()


@pytest.fixture
def props(connection: dict[str, Any], client: WorkspaceClient) -> dict[str, Any]:
    return {
        "display_name": "Orders per day",
        "query_text": "SELECT day, count(*) AS n FROM orders GROUP BY day",
        "warehouse_id": make_warehouse(client),
        "parent_path": f"/Workspace{make_folder(client)}/",
        "catalog": "main",
        "schema": "sales",
        "tags": ["sales", "finance"],
        "parameters": [{"name": "day", "text_value": {"value": "monday"}}],
        CONNECTION_KEY: connection,
    }


def checked(provider: QueryProvider, props: dict[str, Any]) -> dict[str, Any]:
    result = provider.check({}, props)
    assert result.failures == []
    return result.inputs


def test_create_read_update_delete(provider, props, client, monkeypatch) -> None:
    made = provider.create(checked(provider, props))
    found = QueriesApi(client).get(made.id)
    assert found["parent_path"] == props["parent_path"].removeprefix("/Workspace").rstrip("/")
    assert (found["catalog"], found["schema"], found["tags"]) == ("main", "sales",
                                                                  ["finance", "sales"])
    assert made.outs["owner_user_name"] and "query_sha256" not in made.outs
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    # An update names only the changed fields; one left out is named to clear it.
    changed = {**props, "description": "orders by day", "catalog": "other"}
    changed.pop("tags")
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {"catalog", "description", "tags"} and not diff.replaces
    sent = patches_sent(monkeypatch)
    updated = provider.update(made.id, made.outs, changed)
    assert [body["update_mask"] for _, body in sent] == ["catalog,description,tags"]
    found = QueriesApi(client).get(made.id)
    assert (found["catalog"], found["description"], found.get("tags")) == (
        "other", "orders by day", None)
    assert not provider.diff(made.id, updated.outs, changed).changes

    # Drift: the text edited in the workspace shows on read.
    QueriesApi(client).update(made.id, ["query_text"], {"query_text": "SELECT 1"})
    drifted = provider.read(made.id, updated.outs)
    assert provider.diff(made.id, drifted.outs, changed).changed_keys == ["query_text"]

    # Another folder replaces the query.
    elsewhere = {**changed, "parent_path": make_folder(client)}
    assert provider.diff(made.id, updated.outs, elsewhere).replaces == ["parent_path"]

    provider.delete(made.id, updated.outs)
    assert QueriesApi(client).get(made.id)["lifecycle_state"] == "TRASHED"
    assert made.id not in {q["id"] for q in QueriesApi(client).list()}
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)  # in the trash already: deleted


def test_import_shows_no_diff(provider, props) -> None:
    made = provider.create(checked(provider, props))
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["query_text"] == props["query_text"]
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_text_from_a_file_is_known_by_its_digest(provider, props, client, monkeypatch,
                                                 tmp_path: Path) -> None:
    text = "SELECT count(*) AS n FROM orders\n"
    root = project(monkeypatch, tmp_path, {"queries/orders.sql": text})
    from_file = {**props, "source": "queries/orders.sql"}
    from_file.pop("query_text")
    inputs = checked(provider, from_file)
    assert inputs["query_sha256"] == text_digest(text)
    made = provider.create(inputs)
    assert QueriesApi(client).get(made.id)["query_text"] == text
    assert made.outs["query_sha256"] == text_digest(text) and "query_text" not in made.outs
    assert not provider.diff(made.id, made.outs, inputs).changes

    (root / "queries/orders.sql").write_text("SELECT 2 AS n\n")
    changed = checked(provider, from_file)
    assert provider.diff(made.id, made.outs, changed).changed_keys == ["query_sha256"]
    sent = patches_sent(monkeypatch)
    updated = provider.update(made.id, made.outs, changed)
    assert [(body["update_mask"], body["query"]["query_text"]) for _, body in sent] == [
        ("query_text", "SELECT 2 AS n\n")]
    QueriesApi(client).update(made.id, ["query_text"], {"query_text": "SELECT 3"})
    drifted = provider.read(made.id, updated.outs)
    assert provider.diff(made.id, drifted.outs, changed).changed_keys == ["query_sha256"]
    provider.delete(made.id, updated.outs)


def test_an_interrupted_create_is_adopted(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, QUERIES_PATH)
    made = provider.create(checked(provider, props))
    assert lost == [QUERIES_PATH]
    same_name = [q for q in QueriesApi(client).list()
                 if q["display_name"] == props["display_name"]
                 and q["parent_path"] == made.outs["parent_path"]]
    assert [q["id"] for q in same_name] == [made.id]
    provider.delete(made.id, made.outs)


def test_rules_name_their_paths(provider, props, monkeypatch, tmp_path: Path) -> None:
    project(monkeypatch, tmp_path, {})
    cases: dict[str, dict[str, Any]] = {
        "query_text": {"source": "missing.sql"} | {"query_text": "SELECT 1"},
        "source": {"source": "missing.sql", "query_text": None},
        "parameters[1].name": {"parameters": [{"name": "d"}, {"name": "d"}]},
        "parameters[0]": {"parameters": [{"name": "d", "text_value": {"value": "a"},
                                          "numeric_value": {"value": 1}}]},
        "parent_path": {"parent_path": "Shared/x"},
        "display_name": {"display_name": " "},
        "tags[0]": {"tags": [" "]},
        "run_as_mode": {"run_as_mode": "SOMEONE"},
        "query_sha256": {"query_sha256": "abc"},
    }
    for path, change in cases.items():
        inputs = {k: v for k, v in {**props, **change}.items() if v is not None}
        failures = provider.check({}, inputs).failures
        assert [f.property for f in failures] == [path], (path, failures)
