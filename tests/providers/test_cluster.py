"""Cluster against the emulator, in both wire forms: check, create (and adoption after an
interrupted create), read, update in place (edit, resize, state, libraries, pin), delete."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.compute.cluster import ClusterProvider
from providers.compute.clusters_api import ClustersApi
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.jobs.job_settings import DEPLOYMENT_TAG_KEY
from tests.providers.support import assert_check_names, failures

SPARK = "15.4.x-scala2.12"
PYPI = {"pypi": {"package": "requests==2.32.3"}}
MAVEN = {"maven": {"coordinates": "org.jsoup:jsoup:1.7.2"}}


@pytest.fixture
def provider() -> ClusterProvider:
    return ClusterProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    name = f"cluster-{uuid.uuid4().hex[:10]}"
    return {
        "cluster_name": name,
        "spark_version": SPARK,
        "node_type_id": "Standard_DS3_v2",
        "num_workers": 1.0,  # as the engine hands numbers over
        "autotermination_minutes": 30,
        "custom_tags": {"team": "data"},
        "libraries": [PYPI],
        "deployment_tag": f"tests/providers/{name}",
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"spark_version": None}, "spark_version", "required"),
        ({"num_workers": None}, "num_workers", "autoscale"),
        ({"num_workers": -1}, "num_workers", "at least 0"),
        ({"autotermination_minutes": 5}, "autotermination_minutes", "between 10 and 10000"),
        ({"custom_tags": {DEPLOYMENT_TAG_KEY: "x"}}, "custom_tags", "reserved"),
        ({"state": "STOPPED"}, "state", "RUNNING"),
        ({"libraries": [{"pypi": {"package": "requests"}}]}, "libraries.0.pypi.package", "pin"),
        ({"libraries": [{}]}, "libraries.0", "library kind"),
        ({"autoscale": {"min_workers": 4, "max_workers": 2}}, "autoscale", "must not exceed"),
        ({"data_security_mode": "OPEN"}, "data_security_mode", "SINGLE_USER"),
        ({"timeout_seconds": 0}, "timeout_seconds", "greater than or equal to 1"),
        ({"colour": "blue"}, "colour", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "spark_version": UNKNOWN}) == {}
    assert failures(provider, {**props, "num_workers": None, "policy_id": "p"}) == {}


def test_create_read_delete(provider, props, client: WorkspaceClient) -> None:
    created = provider.create(props)
    cluster = ClustersApi(client).get(created.id)
    assert cluster["state"] == "RUNNING"
    assert cluster["custom_tags"] == {"team": "data", DEPLOYMENT_TAG_KEY: props["deployment_tag"]}
    assert created.outs["cluster_id"] == created.id
    assert created.outs["custom_tags"] == {"team": "data"}  # the tag is bookkeeping
    assert [s["library"] for s in ClustersApi(client).library_statuses(created.id)] == [PYPI]

    read = provider.read(created.id, created.outs)
    assert read.id == created.id
    assert not provider.diff(created.id, read.outs, props).changes  # no perpetual diff

    provider.delete(created.id, created.outs)
    assert created.id not in {c["cluster_id"] for c in ClustersApi(client).list()}
    assert provider.read(created.id, created.outs).id is None
    provider.delete(created.id, created.outs)  # already gone: still deleted


def test_create_declared_terminated_and_pinned(provider, props, client) -> None:
    created = provider.create({**props, "state": "TERMINATED", "pinned": True})
    try:
        assert ClustersApi(client).get(created.id)["state"] == "TERMINATED"
        assert ClustersApi(client).is_pinned(created.id)
        assert created.outs["state"] == "TERMINATED" and created.outs["pinned"] is True
        read = provider.read(created.id, created.outs)
        assert (read.outs["state"], read.outs["pinned"]) == ("TERMINATED", True)
    finally:
        provider.delete(created.id, created.outs)


def test_update_edits_resizes_and_converges(provider, props, created_then_deleted, client) -> None:
    id_, outs = created_then_deleted
    before = ClustersApi(client).get(id_)
    resized = {**props, "num_workers": 3}
    diff = provider.diff(id_, outs, resized)
    assert diff.changed_keys == ["num_workers"] and not diff.replaces
    assert not any("restarts" in change for change in diff.field_changes)
    outs = provider.update(id_, outs, resized).outs
    after = ClustersApi(client).get(id_)
    assert after["num_workers"] == 3 and "last_restarted_time" not in after  # a resize
    assert after["start_time"] == before["start_time"]

    edited = {**resized, "node_type_id": "Standard_DS4_v2", "libraries": [MAVEN],
              "pinned": True}
    diff = provider.diff(id_, outs, edited)
    assert set(diff.changed_keys) == {"node_type_id", "libraries", "pinned"}
    assert any("node_type_id" in c and "restarts" in c for c in diff.field_changes)
    outs = provider.update(id_, outs, edited).outs
    after = ClustersApi(client).get(id_)
    assert after["node_type_id"] == "Standard_DS4_v2" and after["state"] == "RUNNING"
    assert "last_restarted_time" in after  # an edit of a running cluster restarts it
    assert after["custom_tags"][DEPLOYMENT_TAG_KEY] == props["deployment_tag"]
    statuses = {s["status"]: s["library"] for s in ClustersApi(client).library_statuses(id_)}
    assert statuses == {"INSTALLED": MAVEN, "UNINSTALL_ON_RESTART": PYPI}
    assert ClustersApi(client).is_pinned(id_)
    assert not provider.diff(id_, provider.read(id_, outs).outs, edited).changes

    stopped = {**edited, "state": "TERMINATED", "spark_version": "14.3.x-scala2.12"}
    assert not provider.diff(id_, outs, stopped).field_changes[0].endswith("cluster)")
    outs = provider.update(id_, outs, stopped).outs
    after = ClustersApi(client).get(id_)
    assert (after["state"], after["spark_version"]) == ("TERMINATED", "14.3.x-scala2.12")


def test_refresh_shows_drift_and_update_restores(
    provider, props, created_then_deleted, client
) -> None:
    id_, outs = created_then_deleted
    props = {**props, "state": "RUNNING"}
    outs = provider.update(id_, outs, props).outs
    ClustersApi(client).stop(id_)
    ClustersApi(client).uninstall_libraries(id_, [PYPI])
    read = provider.read(id_, outs)
    assert read.outs["state"] == "TERMINATED" and read.outs["libraries"] == []
    diff = provider.diff(id_, read.outs, props)
    assert set(diff.changed_keys) == {"state", "libraries"}
    provider.update(id_, read.outs, props)
    assert ClustersApi(client).get(id_)["state"] == "RUNNING"
    assert [s["library"] for s in ClustersApi(client).library_statuses(id_)] == [PYPI]


def test_an_edit_keeps_settings_the_stack_never_declared(
    provider, props, created_then_deleted, client
):
    id_, outs = created_then_deleted
    cluster = ClustersApi(client).get(id_)
    spec = {k: cluster[k] for k in ("cluster_name", "spark_version", "node_type_id",
                                    "num_workers", "custom_tags")}
    ClustersApi(client).edit(id_, {**spec, "spark_env_vars": {"MODE": "x"}})
    provider.update(id_, outs, {**props, "node_type_id": "Standard_DS5_v2"})
    after = ClustersApi(client).get(id_)
    assert after["spark_env_vars"] == {"MODE": "x"} and after["node_type_id"] == "Standard_DS5_v2"


def test_import_records_what_the_service_shows(provider, props, created_then_deleted) -> None:
    id_, outs = created_then_deleted
    imported = provider.read(id_, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["spark_version"] == SPARK
    assert imported.outs["libraries"] == [PYPI] and imported.outs["state"] == "RUNNING"
    assert imported.outs["pinned"] is False
    assert DEPLOYMENT_TAG_KEY not in imported.outs["custom_tags"]
    assert imported.outs["deployment_tag"] == props["deployment_tag"]
    # The program's declaration after the import: no change.
    assert not provider.diff(id_, imported.outs, props, old_inputs={}).changes


def test_create_adopts_a_cluster_left_by_an_interrupted_create(provider, props, client) -> None:
    body = {k: props[k] for k in ("cluster_name", "spark_version", "node_type_id")}
    left = ClustersApi(client).create(
        {**body, "num_workers": 2, "custom_tags": {DEPLOYMENT_TAG_KEY: props["deployment_tag"]}}
    )
    created = provider.create(props)
    try:
        assert created.id == left
        tagged = [c for c in ClustersApi(client).list()
                  if (c.get("custom_tags") or {}).get(DEPLOYMENT_TAG_KEY)
                  == props["deployment_tag"]]
        assert len(tagged) == 1
        assert ClustersApi(client).get(left)["num_workers"] == 1  # made as declared
        assert [s["library"] for s in ClustersApi(client).library_statuses(left)] == [PYPI]
    finally:
        provider.delete(created.id, created.outs)


def test_an_unknown_node_type_fails_the_create_with_the_service_message(provider, props):
    with pytest.raises(Exception, match="Huge_VM"):
        provider.create({**props, "node_type_id": "Huge_VM"})


def test_summary_field_changes_in_normal_form(provider, props, created_then_deleted) -> None:
    _, outs = created_then_deleted
    assert ClusterProvider.field_changes(outs, {**props, "num_workers": 1}) == []
    assert ClusterProvider.field_changes(outs, {**props, "num_workers": 3}) == [
        ("num_workers", 1, 3)
    ]
    assert ClusterProvider.field_changes(outs, {**props, "num_workers": "x"}) is None
