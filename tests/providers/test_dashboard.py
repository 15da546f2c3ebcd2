"""Dashboard against the emulator, in both wire forms: create from a project's .lvdash.json
file (its normal-form digest in the state), held published, read, update in place (and
published again), a dashboard edited in the workspace shown as drift, import with no diff,
delete to the trash, and adopting what an interrupted create left."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.dashboards.dashboard import DashboardProvider, normal_digest
from providers.dashboards.lakeview_api import DASHBOARDS_PATH, LakeviewApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.sql_objects import make_folder, make_warehouse, project

CONTENT = {"pages": [{"name": "orders", "displayName": "Orders"}],
           "datasets": [{"name": "d", "queryLines": ["SELECT 1"]}]}
FILE = "dashboards/orders.lvdash.json"


@pytest.fixture
def provider() -> DashboardProvider:
    return DashboardProvider()


@pytest.fixture
def root(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    return project(monkeypatch, tmp_path, {FILE: json.dumps(CONTENT, indent=2)})


@pytest.fixture
def props(connection: dict[str, Any], client: WorkspaceClient, root: Path) -> dict[str, Any]:
    return {
        "display_name": "Orders",
        "source": FILE,
        "parent_path": make_folder(client),
        "warehouse_id": make_warehouse(client),
        "published": True,
        "embed_credentials": False,
        CONNECTION_KEY: connection,
    }


def checked(provider: DashboardProvider, props: dict[str, Any]) -> dict[str, Any]:
    result = provider.check({}, props)
    assert result.failures == []
    return result.inputs


def test_create_read_update_delete(provider, props, client, root) -> None:
    inputs = checked(provider, props)
    assert inputs["serialized_sha256"] == normal_digest(json.dumps(CONTENT))
    made = provider.create(inputs)
    api = LakeviewApi(client)
    found = api.get(made.id)
    assert json.loads(found["serialized_dashboard"]) == CONTENT
    assert made.outs["path"] == f"{props['parent_path']}/Orders.lvdash.json"
    assert api.get_published(made.id)["embed_credentials"] is False
    assert "serialized_dashboard" not in made.outs and "source" not in made.outs
    assert not provider.diff(made.id, made.outs, inputs).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, inputs).changes

    # A changed file: an update in place of the draft, published again.
    (root / FILE).write_text(json.dumps({**CONTENT, "pages": []}))
    changed = checked(provider, {**props, "display_name": "Orders by day"})
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {"display_name", "serialized_sha256"} and not diff.replaces
    published_before = api.get_published(made.id)["revision_create_time"]
    updated = provider.update(made.id, made.outs, changed)
    found = api.get(made.id)
    assert (found["display_name"], json.loads(found["serialized_dashboard"])["pages"]) == (
        "Orders by day", [])
    assert api.get_published(made.id)["revision_create_time"] >= published_before
    assert not provider.diff(made.id, updated.outs, changed).changes

    # Edited in the workspace, unpublished there: both show on read (no published copy, no
    # embed_credentials), and the update puts them back.
    api.update(made.id, {"serialized_dashboard": json.dumps(CONTENT)})
    api.unpublish(made.id)
    drifted = provider.read(made.id, updated.outs)
    assert set(provider.diff(made.id, drifted.outs, changed).changed_keys) == {
        "embed_credentials", "published", "serialized_sha256"}
    restored = provider.update(made.id, drifted.outs, changed)
    assert json.loads(api.get(made.id)["serialized_dashboard"])["pages"] == []
    assert api.get_published(made.id)["warehouse_id"] == props["warehouse_id"]

    # published: false unpublishes it; another folder replaces it.
    unpublished = {**changed, "published": False}
    unpublished.pop("embed_credentials")
    after = provider.update(made.id, restored.outs, unpublished)
    assert provider.read(made.id, after.outs).outs["published"] is False
    elsewhere = {**unpublished, "parent_path": make_folder(client)}
    assert provider.diff(made.id, after.outs, elsewhere).replaces == ["parent_path"]

    provider.delete(made.id, after.outs)
    assert api.get(made.id)["lifecycle_state"] == "TRASHED"
    assert provider.read(made.id, after.outs).id is None
    provider.delete(made.id, after.outs)


def test_import_shows_no_diff(provider, props) -> None:
    inputs = checked(provider, props)
    made = provider.create(inputs)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["published"] is True
    assert not provider.diff(made.id, imported.outs, inputs, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_an_interrupted_create_is_adopted(provider, props, client, monkeypatch) -> None:
    inputs = checked(provider, props)
    lost = lose_the_answer_to(monkeypatch, DASHBOARDS_PATH)
    made = provider.create(inputs)
    assert lost == [DASHBOARDS_PATH]
    assert [d["dashboard_id"] for d in LakeviewApi(client).list()
            if d["parent_path"] == props["parent_path"]] == [made.id]
    provider.delete(made.id, made.outs)


def test_another_dashboard_at_the_path_is_refused_naming_import(provider, props,
                                                                client) -> None:
    LakeviewApi(client).create({"display_name": "Orders", "parent_path": props["parent_path"]})
    with pytest.raises(AlreadyExists, match="import it"):
        provider.create(checked(provider, props))


def test_rules_name_their_paths(provider, props, root) -> None:
    (root / "bad.lvdash.json").write_text("[1, 2]")
    unpublished = {k: v for k, v in props.items() if k != "published"}
    cases = {
        "source": {**props, "source": "dashboards/orders.json"},
        "embed_credentials": unpublished,
        "warehouse_id": {k: v for k, v in props.items() if k != "warehouse_id"},
        "display_name": {**props, "display_name": ""},
        "parent_path": {**props, "parent_path": "Shared"},
    }
    for path, inputs in cases.items():
        failures = provider.check({}, inputs).failures
        assert [f.property for f in failures] == [path], (path, failures)
    for source in ("missing.lvdash.json", "bad.lvdash.json"):
        failures = provider.check({}, {**props, "source": source}).failures
        assert [f.property for f in failures] == ["source"], failures
