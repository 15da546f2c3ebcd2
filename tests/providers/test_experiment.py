"""Experiment against the emulator, in both wire forms: create, read, rename and tags in
place, drift, import with no diff, delete to the trash, a create of a trashed experiment's
name restoring it, a new artifact location replacing it, and adopting what an interrupted
create left."""

from __future__ import annotations

from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.ml.experiment import ExperimentProvider
from providers.ml.experiments_api import EXPERIMENTS_PATH, ExperimentsApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.unity_catalog import fresh

CREATE_PATH = f"{EXPERIMENTS_PATH}/create"


@pytest.fixture
def provider() -> ExperimentProvider:
    return ExperimentProvider()


@pytest.fixture
def folder(client: WorkspaceClient) -> str:
    path = f"/Shared/{fresh('ml')}"
    client.post("/api/2.0/workspace/mkdirs", {"path": path}, idempotent=True)
    return path


@pytest.fixture
def props(connection: dict[str, Any], folder: str) -> dict[str, Any]:
    return {"name": f"{folder}/churn", "tags": {"team": "ml"}, CONNECTION_KEY: connection}


def tags_of(client: WorkspaceClient, experiment_id: str) -> dict[str, str]:
    return {t["key"]: t["value"] for t in ExperimentsApi(client).get(experiment_id)["tags"]}


def test_create_read_update_delete(provider, props, client, folder) -> None:
    made = provider.create(props)
    found = ExperimentsApi(client).get(made.id)
    assert (found["name"], found["lifecycle_stage"]) == (props["name"], "active")
    assert made.outs["experiment_id"] == made.id and made.outs["tags"] == {"team": "ml"}
    assert "artifact_location" not in made.outs  # the service's choice
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "name": f"{folder}/churn-v2", "tags": {"team": "ds", "tier": "1"}}
    diff = provider.diff(made.id, made.outs, changed)
    assert diff.changed_keys == ["name", "tags"] and not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    assert ExperimentsApi(client).get(made.id)["name"] == f"{folder}/churn-v2"
    assert tags_of(client, made.id) == {"team": "ds", "tier": "1"}
    untagged = provider.update(made.id, updated.outs, {**changed, "tags": {"tier": "1"}})
    assert tags_of(client, made.id) == {"tier": "1"}

    provider.delete(made.id, untagged.outs)
    assert ExperimentsApi(client).get(made.id)["lifecycle_stage"] == "deleted"
    assert provider.read(made.id, untagged.outs).id is None
    provider.delete(made.id, untagged.outs)


def test_tags_set_outside_the_stack_are_left_alone(provider, props, client) -> None:
    made = provider.create(props)
    ExperimentsApi(client).set_tag(made.id, "theirs", "x")
    ExperimentsApi(client).set_tag(made.id, "team", "by hand")
    read = provider.read(made.id, made.outs)
    assert read.outs["tags"] == {"team": "by hand"}
    assert provider.diff(made.id, read.outs, props).changed_keys == ["tags"]
    provider.update(made.id, read.outs, props)
    assert tags_of(client, made.id) == {"team": "ml", "theirs": "x"}
    provider.delete(made.id, made.outs)


def test_a_create_of_a_trashed_experiments_name_restores_it(provider, props, client) -> None:
    made = provider.create(props)
    provider.delete(made.id, made.outs)
    again = provider.create({**props, "tags": {"team": "ml", "round": "2"}})
    assert again.id == made.id
    assert ExperimentsApi(client).get(made.id)["lifecycle_stage"] == "active"
    assert tags_of(client, made.id) == {"team": "ml", "round": "2"}
    provider.delete(again.id, again.outs)


def test_a_trashed_experiment_of_another_location_is_not_taken(provider, props, client
                                                                ) -> None:
    located = {**props, "artifact_location": "s3://bucket/churn/"}
    made = provider.create(located)
    assert ExperimentsApi(client).get(made.id)["artifact_location"] == "s3://bucket/churn"
    moved = {**located, "artifact_location": "s3://bucket/churn2"}
    diff = provider.diff(made.id, made.outs, moved)
    assert diff.replaces == ["artifact_location"]
    provider.delete(made.id, made.outs)
    with pytest.raises(AlreadyExists, match="in the trash.*s3://bucket/churn.*declare another "
                                            "name"):
        provider.create(moved)
    assert ExperimentsApi(client).get(made.id)["lifecycle_stage"] == "deleted"


def test_drift_shows_in_refresh(provider, props, client, folder) -> None:
    made = provider.create(props)
    ExperimentsApi(client).rename(made.id, f"{folder}/by-hand")
    read = provider.read(made.id, made.outs)
    assert provider.diff(made.id, read.outs, props).changed_keys == ["name"]
    ExperimentsApi(client).delete(made.id)
    assert provider.read(made.id, made.outs).id is None


def test_import_by_id(provider, props, client) -> None:
    made = provider.create(props)
    ExperimentsApi(client).set_tag(made.id, "mlflow.note", "the service's")
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["name"] == props["name"] and imported.outs["tags"] == {"team": "ml"}
    assert imported.outs["artifact_location"].endswith(f"/{made.id}")
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_create_adopts_after_a_lost_answer(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, CREATE_PATH)
    made = provider.create(props)
    assert lost == [CREATE_PATH]
    found = ExperimentsApi(client).list(f"name LIKE '{props['name']}%'")
    assert [e["experiment_id"] for e in found] == [made.id]
    provider.delete(made.id, made.outs)


def test_create_adopts_what_an_interrupted_run_made(provider, props, client) -> None:
    made_before = ExperimentsApi(client).create(
        {"name": props["name"], "tags": [{"key": "team", "value": "ml"}]})
    made = provider.create(props)
    assert made.id == made_before
    assert len(ExperimentsApi(client).list(f"name = '{props['name']}'")) == 1
    provider.delete(made.id, made.outs)


def test_an_active_experiment_declared_otherwise_is_not_taken(provider, props, client) -> None:
    ExperimentsApi(client).create({"name": props["name"]})
    with pytest.raises(AlreadyExists, match="import it: `import: '[0-9]+'`"):
        provider.create(props)
    ExperimentsApi(client).create({"name": f"{props['name']}-located",
                                   "artifact_location": "s3://bucket/elsewhere",
                                   "tags": [{"key": "team", "value": "ml"}]})
    with pytest.raises(AlreadyExists, match="import it"):
        provider.create({**props, "name": f"{props['name']}-located"})
