"""A pipeline's normal form and the body of its edit (providers/pipelines/pipeline_form.py,
pipeline.py), without a service: what the service fills in is no change, what the stack
declares is compared whole, and an edit keeps what the stack never declared."""

from __future__ import annotations

from typing import Any

from providers.core.lifecycle import CONNECTION_KEY
from providers.pipelines.pipeline import PipelineProvider, edit_body, field_lines
from providers.pipelines.pipeline_form import canonical, settings_of
from providers.pipelines.pipeline_model import PipelineModel

CONNECTION = {"host": "https://workspace.example"}
DECLARED: dict[str, Any] = {
    "name": "sales",
    "catalog": "main",
    "schema": "sales",
    "libraries": [{"notebook": {"path": "/Shared/b"}}, {"notebook": {"path": "/Shared/a"}}],
    "clusters": [
        {"label": "maintenance", "num_workers": 1.0},
        {"autoscale": {"min_workers": 1, "max_workers": 3}},
    ],
    "configuration": {"source": "/Volumes/main/raw/sales"},
}
TAG = "project/dev/sales"


def answered(**spec_changes: Any) -> dict[str, Any]:
    """The pipeline as the service's `get` answers DECLARED made: its defaults filled in."""
    spec = {
        "id": "p-1",
        "name": "sales",
        "catalog": "main",
        "schema": "sales",
        "channel": "CURRENT",
        "edition": "ADVANCED",
        "development": False,
        "continuous": False,
        "photon": False,
        "libraries": [{"notebook": {"path": "/Shared/a"}}, {"notebook": {"path": "/Shared/b"}}],
        "clusters": [
            {"label": "default", "node_type_id": "Standard_DS3_v2",
             "autoscale": {"min_workers": 1, "max_workers": 3, "mode": "LEGACY"}},
            {"label": "maintenance", "num_workers": 1, "node_type_id": "Standard_DS3_v2"},
        ],
        "configuration": {"source": "/Volumes/main/raw/sales"},
        "tags": {"pulumi-deployment": TAG},
        **spec_changes,
    }
    return {
        "pipeline_id": "p-1",
        "spec": spec,
        "run_as": {"user_name": "creator@example.com"},
        "creator_user_name": "creator@example.com",
        "state": "IDLE",
        "last_modified": 1700000000000,
    }


def recorded_after_read(pipeline: dict[str, Any]) -> dict[str, Any]:
    """What a refresh records of `pipeline` for a resource declared as DECLARED."""
    provider = PipelineProvider()
    declared = provider.spec(PipelineModel.model_validate(DECLARED))
    observed = canonical(settings_of(pipeline), declared=declared)
    return {
        **provider._recorded_shape(declared, observed),
        "pipeline_id": "p-1",
        "deployment_tag": TAG,
        CONNECTION_KEY: CONNECTION,
    }


def test_the_services_defaults_and_fillings_are_no_change() -> None:
    olds = recorded_after_read(answered())
    diff = PipelineProvider().diff("p-1", olds, {**DECLARED, CONNECTION_KEY: CONNECTION},
                                   old_inputs=DECLARED)
    assert not diff.changes, diff.changed_keys


def test_an_import_records_everything_and_the_declaration_is_still_no_change() -> None:
    provider = PipelineProvider()
    imported = {**canonical(settings_of(answered())), "pipeline_id": "p-1",
                CONNECTION_KEY: CONNECTION}
    assert imported["run_as"] == {"user_name": "creator@example.com"}
    assert imported["clusters"][0]["node_type_id"] == "Standard_DS3_v2"
    diff = provider.diff("p-1", imported, {**DECLARED, CONNECTION_KEY: CONNECTION},
                         old_inputs={})
    assert not diff.changes, diff.changed_keys


def test_a_key_added_inside_a_declared_setting_is_the_change_that_removes_it() -> None:
    added = {"source": "/Volumes/main/raw/sales", "debug": "true"}
    olds = recorded_after_read(answered(configuration=added))
    diff = PipelineProvider().diff("p-1", olds, {**DECLARED, CONNECTION_KEY: CONNECTION},
                                   old_inputs=DECLARED)
    assert diff.changed_keys == ["configuration"] and not diff.replaces
    assert diff.field_changes == ["configuration.debug: 'true' → (removed)"]


def test_a_changed_declared_value_and_a_channel_change_are_named() -> None:
    olds = recorded_after_read(answered())
    news = {**DECLARED, "channel": "preview", "libraries": [{"notebook": {"path": "/Shared/a"}}],
            CONNECTION_KEY: CONNECTION}
    diff = PipelineProvider().diff("p-1", olds, news, old_inputs=DECLARED)
    assert diff.changed_keys == ["channel", "libraries"]
    assert "channel: (absent) → 'PREVIEW'" in diff.field_changes


def test_the_edit_keeps_what_the_stack_never_declared_and_drops_what_it_no_longer_does() -> None:
    current = settings_of(answered(
        notifications=[{"alerts": ["on-update-failure"], "email_recipients": ["ops@x.com"]}],
        development=True,
    ))
    declared = {"name": "sales", "catalog": "main", "schema": "sales",
                "libraries": [{"notebook": {"path": "/Shared/a"}}]}
    body = edit_body(current, declared, set(canonical(DECLARED)), TAG)
    # Declared: as declared; made outside the stack: kept; declared before, not now: gone.
    assert body["libraries"] == [{"notebook": {"path": "/Shared/a"}}]
    assert body["notifications"][0]["email_recipients"] == ["ops@x.com"]
    assert body["development"] is True
    assert "clusters" not in body and "configuration" not in body
    assert body["tags"] == {"pulumi-deployment": TAG}
    assert "id" not in body  # the service's own
    # An edit replaces run_as too: the one `get` shows is sent back as it is.
    assert body["run_as"] == {"user_name": "creator@example.com"}


def test_an_imported_pipeline_is_never_tagged_and_declared_tags_replace_the_services() -> None:
    current = settings_of(answered(tags={"owner": "ops"}))
    untagged = edit_body(current, {"name": "sales"}, set(), None)
    assert untagged["tags"] == {"owner": "ops"}
    tagged = edit_body(current, {"name": "sales", "tags": {"team": "data"}}, {"tags"}, TAG)
    assert tagged["tags"] == {"team": "data", "pulumi-deployment": TAG}


def test_field_lines_name_each_leaf() -> None:
    assert field_lines("tags", {"a": "1", "b": "2"}, {"a": "1", "c": "3"}) == [
        "tags.b: '2' → (removed)",
        "tags.c: (absent) → '3'",
    ]


def test_the_pull_request_summary_gets_the_changes_of_the_normal_form() -> None:
    olds = recorded_after_read(answered(configuration={"source": "/Volumes/other"}))
    news = {**DECLARED, "clusters": [{"label": "maintenance", "num_workers": 1},
                                     {"label": "default",
                                      "autoscale": {"min_workers": 1, "max_workers": 3}}]}
    # Reordered clusters and a filled-in label are no change; the drifted configuration is.
    assert PipelineProvider.field_changes(olds, news) == [
        ("configuration", {"source": "/Volumes/other"}, {"source": "/Volumes/main/raw/sales"}),
    ]
    assert PipelineProvider.field_changes(olds, {**news, "channel": "beta"}) is None
