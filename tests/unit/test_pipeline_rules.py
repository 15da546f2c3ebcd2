"""A pipeline's settings judged offline (providers/pipelines/pipeline_model.py and
pipeline_rules.py): every rule, each problem named by its path, before any call."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from providers.client.sdk_services import service
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.pipelines.pipeline import PipelineProvider
from providers.pipelines.pipeline_model import PipelineModel
from providers.pipelines.pipeline_update import PipelineUpdateProvider

CONNECTION = {"host": "https://workspace.example"}
VALID: dict[str, Any] = {
    "name": "sales",
    "catalog": "main",
    "schema": "sales",
    "libraries": [
        {"notebook": {"path": "/Shared/etl/ingest"}},
        {"file": {"path": "/Shared/etl/clean.py"}},
        {"glob": {"include": "/Shared/etl/transformations/**"}},
        {"whl": "/Volumes/main/libs/wheels/etl-1.0-py3-none-any.whl"},
        {"jar": "s3://bucket/etl.jar"},
        {"maven": {"coordinates": "org.jsoup:jsoup:1.7.2"}},
    ],
    "clusters": [
        {
            "label": "default",
            "autoscale": {"min_workers": 1.0, "max_workers": 4, "mode": "ENHANCED"},
        },
        {"label": "maintenance", "num_workers": 1},
    ],
    "configuration": {"source": "/Volumes/main/raw/sales"},
    "channel": "current",
    "edition": "pro",
    "notifications": [{"alerts": ["on-update-failure"], "email_recipients": ["ops@example.com"]}],
    "tags": {"team": "data"},
    "run_as": {"service_principal_name": "9f0c1d2e-0000-4000-8000-000000000001"},
    "restart_window": {"start_hour": 3},
}


def failures(props: dict[str, Any], provider: Any = None) -> dict[str, str]:
    provider = provider or PipelineProvider()
    check = provider.check({}, {**props, CONNECTION_KEY: CONNECTION})
    return {f.property: f.reason for f in check.failures}


def changed(change: dict[str, Any]) -> dict[str, Any]:
    """VALID with `change` applied; a None in it leaves that setting out."""
    return {k: v for k, v in {**VALID, **change}.items() if v is not None}


def test_a_valid_pipeline_passes_and_unknowns_are_not_judged() -> None:
    assert failures(VALID) == {}
    assert failures({**VALID, "catalog": UNKNOWN, "schema": None}) == {}


def test_every_field_of_the_create_body_is_accepted() -> None:
    create = service("pipelines").PipelinesAPI.create
    arguments = set(inspect.signature(create).parameters) - {"self", "dry_run", "id"}
    assert arguments == set(PipelineModel.model_fields) - {"deployment_tag"}


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        ({"name": None}, "name", "required"),
        ({"colour": "blue"}, "colour", "Extra inputs"),
        ({"channel": "beta"}, "channel", "give one of CURRENT, PREVIEW"),
        ({"edition": "gold"}, "edition", "give one of CORE, PRO, ADVANCED"),
        ({"tags": {"pulumi-deployment": "x"}}, "tags", "reserved"),
        ({"tags": {f"t{i}": "v" for i in range(25)}}, "tags", "at most 24 tags"),
        ({"libraries": [{"notebook": {"path": 3}}]}, "libraries.0.notebook.path", "string"),
        ({"clusters": [{"autoscale": {"min_workers": 1}}]}, "clusters.0.autoscale.max_workers",
         "required"),
        ({"clusters": [{"autoscale": {"min_workers": 1, "max_workers": 2, "mode": "FAST"}}]},
         "clusters.0.autoscale.mode", "ENHANCED"),
    ],
)
def test_the_model_names_the_bad_field(change, path, reason) -> None:
    found = failures(changed(change))
    assert path in found, found
    assert reason in found[path]


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        # Where the tables go.
        ({"target": "sales_v1"}, "target", "give schema or target, not both"),
        ({"schema": None}, "catalog", "give schema too"),
        ({"storage": "dbfs:/pipelines/sales"}, "storage", "leave storage out"),
        ({"catalog": None, "schema": None, "serverless": True, "clusters": None}, "serverless",
         "publishes to Unity Catalog"),
        ({"ingestion_definition": {"connection_name": "crm"}}, "libraries",
         "ingestion pipeline"),
        ({"ingestion_definition": {"connection_name": "crm"}, "libraries": None}, "schema",
         "ingestion pipeline"),
        # Libraries.
        ({"libraries": [{}]}, "libraries.0", "exactly one library form"),
        ({"libraries": [{"notebook": {"path": "/a"}, "whl": "/b.whl"}]}, "libraries.0",
         "got notebook, whl"),
        ({"libraries": [{"notebook": {"path": "etl/ingest"}}]}, "libraries.0.notebook.path",
         "absolute workspace path"),
        ({"libraries": [{"file": {}}]}, "libraries.0.file.path", "required"),
        ({"libraries": [{"glob": {"include": "transformations/**"}}]},
         "libraries.0.glob.include", "absolute"),
        ({"libraries": [{"whl": "etl.whl"}]}, "libraries.0.whl", "or a URI, got"),
        ({"libraries": [{"jar": "etl.jar"}]}, "libraries.0.jar", "or a URI, got"),
        ({"libraries": [{"maven": {"coordinates": "org.jsoup:jsoup"}}]},
         "libraries.0.maven.coordinates", "group:artifact:version"),
        # Clusters.
        ({"clusters": [{"label": "main"}]}, "clusters.0.label", "unknown cluster label 'main'"),
        ({"clusters": [{"num_workers": 1}, {"label": "default"}]}, "clusters.1.label",
         "give each label once"),
        ({"clusters": [{"autoscale": {"min_workers": 5, "max_workers": 2}}]},
         "clusters.0.autoscale", "must be greater than min_workers"),
        ({"clusters": [{"autoscale": {"min_workers": 2, "max_workers": 2}}]},
         "clusters.0.autoscale", "must be greater than min_workers"),
        ({"clusters": [{"autoscale": {"min_workers": 0, "max_workers": 2}}]},
         "clusters.0.autoscale.min_workers", "1 or more"),
        ({"clusters": [{"num_workers": 2, "autoscale": {"min_workers": 1, "max_workers": 2}}]},
         "clusters.0.num_workers", "not both"),
        ({"schema": "main.sales"}, "schema", "without periods"),
        ({"schema": None, "target": "a/b"}, "target", "without periods"),
        ({"clusters": [{"label": "maintenance",
                        "autoscale": {"min_workers": 1, "max_workers": 2, "mode": "ENHANCED"}}]},
         "clusters.0.autoscale.mode", "LEGACY"),
        ({"serverless": True, "clusters": [{"label": "default", "node_type_id": "i3.xlarge"}]},
         "clusters.0.node_type_id", "serverless"),
        ({"serverless": True}, "clusters.0.autoscale", "serverless"),
        ({"serverless": True}, "clusters.1.num_workers", "serverless"),
        # The rest.
        ({"notifications": [{"alerts": ["on-update-failure", "on-fire"]}]},
         "notifications.0.alerts.1", "unknown alert 'on-fire'"),
        ({"run_as": {"user_name": "a@example.com", "service_principal_name": "b"}}, "run_as",
         "exactly one"),
        ({"run_as": {}}, "run_as", "exactly one"),
        ({"restart_window": {"start_hour": 24}}, "restart_window.start_hour", "0 to 23"),
    ],
)
def test_each_rule_names_its_path(change, path, reason) -> None:
    found = failures(changed(change))
    assert path in found, found
    assert reason in found[path]


def test_serverless_with_only_labels_and_settings_passes() -> None:
    serverless = changed(
        {"serverless": True, "clusters": [{"label": "default", "spark_conf": {"a": "b"}}]}
    )
    assert failures(serverless) == {}


def test_channel_and_edition_are_kept_in_the_services_spelling() -> None:
    settings = PipelineModel.model_validate(VALID).settings()
    assert (settings["channel"], settings["edition"]) == ("CURRENT", "PRO")


# --- PipelineUpdate ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        ({"pipeline_id": None}, "pipeline_id", "required"),
        ({"full_refresh": True, "refresh_selection": ["orders"]}, "(inputs)",
         "give it or a selection"),
        ({"refresh_selection": ["orders"], "full_refresh_selection": ["orders", "items"]},
         "(inputs)", "orders: in refresh_selection and full_refresh_selection"),
        ({"timeout_seconds": 0}, "timeout_seconds", "greater than or equal to 1"),
        ({"wait": True}, "wait", "Extra inputs"),
    ],
)
def test_an_update_names_the_bad_field(change, path, reason) -> None:
    props = {k: v for k, v in {"pipeline_id": "p-1", **change}.items() if v is not None}
    found = failures(props, PipelineUpdateProvider())
    assert path in found, found
    assert reason in found[path]


def test_an_update_trigger_given_as_a_number_is_text() -> None:
    assert failures({"pipeline_id": "p-1", "trigger": 3.0}, PipelineUpdateProvider()) == {}
    spec = PipelineUpdateProvider().spec(
        PipelineUpdateProvider.args_model.model_validate({"pipeline_id": "p", "trigger": 3.0})
    )
    assert spec == {"pipeline_id": "p", "trigger": "3"}
