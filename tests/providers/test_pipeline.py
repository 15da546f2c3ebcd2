"""Pipeline against the emulator (the pipelines API is one in both wire forms; both are run):
check, create (and adoption after an interrupted create), read without a perpetual diff,
drift, an update that keeps what the stack never declared, import with no diff, delete."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.client import WorkspaceClient, WorkspaceError
from providers.core.create_or_adopt import DEPLOYMENT_TAG_KEY
from providers.core.lifecycle import CONNECTION_KEY
from providers.pipelines.pipeline import PipelineProvider
from providers.pipelines.pipelines_api import PipelinesApi
from tests.providers.support import failures


@pytest.fixture
def provider() -> PipelineProvider:
    return PipelineProvider()


@pytest.fixture
def name() -> str:
    return f"pipeline-{uuid.uuid4().hex[:10]}"


@pytest.fixture
def props(connection: dict[str, Any], name: str) -> dict[str, Any]:
    return {
        "name": name,
        "target": "sales",
        "libraries": [
            {"notebook": {"path": "/Shared/etl/ingest"}},
            {"file": {"path": "/Shared/etl/clean.py"}},
        ],
        "clusters": [{"label": "default", "num_workers": 1.0}],  # as the engine hands it over
        "configuration": {"source": "/Volumes/main/raw/sales"},
        "channel": "preview",
        "deployment_tag": f"tests/providers/{name}",
        CONNECTION_KEY: connection,
    }


def spec_of(client: WorkspaceClient, pipeline_id: str) -> dict[str, Any]:
    return PipelinesApi(client).get(pipeline_id)["spec"]


def user_props(props: dict[str, Any]) -> dict[str, Any]:
    """The declaration of `props`: what the engine hands a diff as the old inputs."""
    return {k: v for k, v in props.items() if k != CONNECTION_KEY}


def test_check_names_the_bad_field_before_any_call(provider, props) -> None:
    assert failures(provider, props) == {}
    bad = {**props, "catalog": "main", "storage": "dbfs:/x",
           "clusters": [{"label": "default"}, {}]}
    assert set(failures(provider, bad)) == {"storage", "clusters.1.label"}
    assert "give each label once" in failures(provider, bad)["clusters.1.label"]


def test_create_read_delete(provider, props, client: WorkspaceClient) -> None:
    created = provider.create(props)
    spec = spec_of(client, created.id)
    assert spec["name"] == props["name"] and spec["channel"] == "PREVIEW"
    assert spec["tags"] == {DEPLOYMENT_TAG_KEY: props["deployment_tag"]}
    assert spec["storage"] == f"dbfs:/pipelines/{created.id}"  # the service's own
    assert created.outs["pipeline_id"] == created.id
    assert created.outs["current_state"] == "IDLE"
    assert "tags" not in created.outs  # the tag is bookkeeping

    read = provider.read(created.id, created.outs)
    assert read.id == created.id
    assert read.outs == created.outs  # what a create records is what a read shows
    assert not provider.diff(created.id, read.outs, props, old_inputs=user_props(props)).changes

    provider.delete(created.id, created.outs)
    assert created.id not in {p["pipeline_id"] for p in PipelinesApi(client).list()}
    assert provider.read(created.id, created.outs).id is None
    provider.delete(created.id, created.outs)  # already gone: still deleted


def test_an_update_keeps_what_the_stack_never_declared(provider, props, client) -> None:
    created = provider.create(props)
    try:
        # Made outside the stack: a notification (never declared) and a key inside the
        # declared configuration.
        pipeline = PipelinesApi(client).get(created.id)
        outside = {
            **pipeline["spec"],
            "notifications": [{"alerts": ["on-update-failure"],
                               "email_recipients": ["ops@example.com"]}],
            "configuration": {**props["configuration"], "debug": "true"},
        }
        PipelinesApi(client).edit(created.id, outside)

        read = provider.read(created.id, created.outs)
        assert "notifications" not in read.outs
        changed = {**props, "libraries": [{"notebook": {"path": "/Shared/etl/ingest"}}]}
        diff = provider.diff(created.id, read.outs, changed, old_inputs=user_props(props))
        assert diff.changed_keys == ["configuration", "libraries"] and not diff.replaces
        assert "configuration.debug: 'true' → (removed)" in diff.field_changes

        updated = provider.update(created.id, read.outs, changed, old_inputs=user_props(props))
        spec = spec_of(client, created.id)
        assert spec["notifications"] == outside["notifications"]  # kept
        assert spec["configuration"] == props["configuration"]  # the stack's whole
        assert spec["libraries"] == [{"notebook": {"path": "/Shared/etl/ingest"}}]
        assert spec["tags"] == {DEPLOYMENT_TAG_KEY: props["deployment_tag"]}
        again = provider.read(created.id, updated.outs)
        assert not provider.diff(created.id, again.outs, changed, old_inputs=changed).changes
    finally:
        provider.delete(created.id, created.outs)


def test_a_setting_no_longer_declared_is_cleared(provider, props, client) -> None:
    declared = {**props, "development": True, "photon": True}
    created = provider.create(declared)
    try:
        left_out = {k: v for k, v in declared.items() if k != "development"}
        diff = provider.diff(created.id, created.outs, left_out, old_inputs=user_props(declared))
        assert diff.changed_keys == ["development"]
        assert diff.field_changes == ["development: True → (removed)"]
        updated = provider.update(created.id, created.outs, left_out,
                                  old_inputs=user_props(declared))
        spec = spec_of(client, created.id)
        assert "development" not in spec and spec["photon"] is True
        read = provider.read(created.id, updated.outs)
        assert not provider.diff(created.id, read.outs, left_out,
                                 old_inputs=user_props(left_out)).changes
    finally:
        provider.delete(created.id, created.outs)


def test_drift_shows_on_read(provider, props, client) -> None:
    created = provider.create(props)
    try:
        spec = spec_of(client, created.id)
        PipelinesApi(client).edit(created.id, {**spec, "channel": "CURRENT",
                                               "clusters": [{"num_workers": 3}]})
        read = provider.read(created.id, created.outs)
        assert "channel" not in read.outs  # CURRENT is the service's default
        assert read.outs["clusters"] == [{"num_workers": 3}]
        diff = provider.diff(created.id, read.outs, props, old_inputs=user_props(props))
        assert diff.changed_keys == ["channel", "clusters"]
        assert "clusters: [{'num_workers': 3}] → [{'num_workers': 1}]" in diff.field_changes
    finally:
        provider.delete(created.id, created.outs)


def test_an_interrupted_create_is_adopted_not_made_twice(provider, props, client) -> None:
    # What an earlier create of this resource left: made, tagged, its answer lost.
    left = PipelinesApi(client).create({
        "name": props["name"], "target": "old",
        "tags": {DEPLOYMENT_TAG_KEY: props["deployment_tag"]},
    })
    created = provider.create(props)
    try:
        assert created.id == left
        named = PipelinesApi(client).named(props["name"])
        assert [p["pipeline_id"] for p in named] == [left]
        spec = spec_of(client, left)
        assert spec["target"] == "sales" and spec["channel"] == "PREVIEW"  # as declared
    finally:
        provider.delete(created.id, created.outs)


def test_a_create_whose_answer_is_lost_is_found_by_its_tag(
    provider, props, client, monkeypatch: pytest.MonkeyPatch
) -> None:
    create = PipelinesApi.create
    made: list[str] = []

    def made_then_answer_lost(self: PipelinesApi, settings: Any) -> str:
        made.append(create(self, settings))
        raise WorkspaceError(status=500, code="INTERNAL_ERROR", message="lost",
                             method="POST", path="/api/2.0/pipelines")

    monkeypatch.setattr(PipelinesApi, "create", made_then_answer_lost)
    created = provider.create(props)
    try:
        assert made == [created.id]  # one pipeline, found by its tag: no second create
        assert [p["pipeline_id"] for p in PipelinesApi(client).named(props["name"])] == made
    finally:
        provider.delete(created.id, created.outs)


def test_a_name_taken_by_a_pipeline_not_the_stacks_is_refused(provider, props, client) -> None:
    other = PipelinesApi(client).create({"name": props["name"], "target": "theirs"})
    try:
        with pytest.raises(WorkspaceError) as refused:
            provider.create(props)
        assert refused.value.status == 409
        assert spec_of(client, other)["target"] == "theirs"  # theirs, untouched
    finally:
        PipelinesApi(client).delete(other)


def test_import_by_id_then_the_declaration_shows_no_change(provider, props, client) -> None:
    made = PipelinesApi(client).create({
        "name": props["name"], "target": "sales", "channel": "CURRENT",
        "libraries": [{"notebook": {"path": "/Shared/etl/ingest"}}],
        "clusters": [{"label": "default", "num_workers": 2}],
    })
    try:
        imported = provider.read(made, {CONNECTION_KEY: props[CONNECTION_KEY]})
        assert imported.outs["name"] == props["name"]
        assert imported.outs["deployment_tag"] is None
        declared = {
            "name": props["name"], "target": "sales",
            "libraries": [{"notebook": {"path": "/Shared/etl/ingest"}}],
            "clusters": [{"num_workers": 2}],
            "deployment_tag": props["deployment_tag"],
            CONNECTION_KEY: props[CONNECTION_KEY],
        }
        diff = provider.diff(made, imported.outs, declared, old_inputs={})
        assert not diff.changes, diff.changed_keys
        # The import's first update changes what is declared, and never tags it.
        changed = {**declared, "configuration": {"k": "v"}}
        provider.update(made, imported.outs, changed, old_inputs={})
        spec = spec_of(client, made)
        assert spec["configuration"] == {"k": "v"} and "tags" not in spec
    finally:
        PipelinesApi(client).delete(made)


def test_an_edit_sent_again_after_its_answer_was_lost_converges(
    provider, props, client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The HTTP layer repeats a PUT whose answer was lost; the repeat meets the service's
    conflict on `expected_last_modified`, its own edit's doing: the update succeeds."""
    created = provider.create(props)
    try:
        real_put = WorkspaceClient.put
        sent: list[str] = []

        def put_twice(self: WorkspaceClient, path: str, body: Any = None, **kwargs: Any) -> Any:
            sent.append(path)
            real_put(self, path, body, **kwargs)  # landed; its answer lost
            return real_put(self, path, body, **kwargs)

        monkeypatch.setattr(WorkspaceClient, "put", put_twice)
        changed = {**props, "configuration": {"source": "/Volumes/main/raw/other"}}
        provider.update(created.id, created.outs, changed, old_inputs=user_props(props))
        assert len(sent) == 1
        assert spec_of(client, created.id)["configuration"] == {
            "source": "/Volumes/main/raw/other"}
    finally:
        monkeypatch.undo()
        provider.delete(created.id, created.outs)


def test_an_edit_made_between_the_read_and_the_write_is_not_overwritten(
    provider, props, client, monkeypatch: pytest.MonkeyPatch
) -> None:
    created = provider.create(props)
    try:
        api_get = PipelinesApi.get

        def get_then_someone_edits(self: PipelinesApi, pipeline_id: str) -> dict[str, Any]:
            pipeline = api_get(self, pipeline_id)
            monkeypatch.setattr(PipelinesApi, "get", api_get)
            PipelinesApi(client).edit(pipeline_id, {**pipeline["spec"], "photon": True})
            return pipeline

        monkeypatch.setattr(PipelinesApi, "get", get_then_someone_edits)
        changed = {**props, "configuration": {"source": "/Volumes/main/raw/other"}}
        with pytest.raises(WorkspaceError) as refused:
            provider.update(created.id, created.outs, changed, old_inputs=user_props(props))
        assert refused.value.status == 409
        assert spec_of(client, created.id)["photon"] is True
    finally:
        provider.delete(created.id, created.outs)
