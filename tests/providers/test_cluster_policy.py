"""ClusterPolicy against the emulator, in both wire forms: check, create (and adoption),
read, update in place, delete; the definition compared as JSON."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.compute.cluster_policies_api import ClusterPoliciesApi
from providers.compute.cluster_policy import ClusterPolicyProvider
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from tests.providers.support import assert_check_names, failures

DEFINITION = {
    "spark_version": {"type": "fixed", "value": "15.4.x-scala2.12"},
    "node_type_id": {"type": "allowlist", "values": ["Standard_DS3_v2", "Standard_DS4_v2"]},
}


@pytest.fixture
def provider() -> ClusterPolicyProvider:
    return ClusterPolicyProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": f"policy-{uuid.uuid4().hex[:10]}",
        "definition": json.dumps(DEFINITION, indent=2),
        "max_clusters_per_user": 2.0,
        "description": "small clusters",
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"name": None}, "name", "required"),
        ({"name": " "}, "name", "1 to 100"),
        ({"name": "x" * 101}, "name", "1 to 100"),
        ({"definition": "{not json"}, "definition", "not valid JSON"),
        ({"definition": "[1, 2]"}, "definition", "JSON object"),
        ({"max_clusters_per_user": 0}, "max_clusters_per_user", "at least 1"),
        ({"policy_family_id": "personal-vm"}, "definition", "inherits"),
        ({"definition": None, "policy_family_definition_overrides": "{}"},
         "policy_family_definition_overrides", "policy_family_id"),
        ({"libraries": [{"pypi": {"package": "requests"}}]}, "libraries.0.pypi.package", "pin"),
        ({"colour": "blue"}, "colour", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "definition": DEFINITION}) == {}
    assert failures(provider, {**props, "name": UNKNOWN}) == {}


def test_create_read_delete(provider, props, client: WorkspaceClient) -> None:
    created = provider.create(props)
    policy = ClusterPoliciesApi(client).get(created.id)
    assert json.loads(policy["definition"]) == DEFINITION
    assert created.outs["policy_id"] == created.id
    read = provider.read(created.id, created.outs)
    assert read.outs["definition"] == DEFINITION and read.outs["max_clusters_per_user"] == 2
    provider.delete(created.id, created.outs)
    assert provider.read(created.id, created.outs).id is None
    provider.delete(created.id, created.outs)  # already gone: still deleted


def test_a_reformatted_definition_is_no_change(provider, props, created_then_deleted) -> None:
    id_, outs = created_then_deleted
    compact = json.dumps(dict(reversed(list(DEFINITION.items()))), separators=(",", ":"))
    assert not provider.diff(id_, outs, {**props, "definition": compact}).changes
    assert not provider.diff(id_, outs, {**props, "definition": DEFINITION}).changes
    changed = {**DEFINITION, "autotermination_minutes": {"type": "fixed", "value": 30}}
    diff = provider.diff(id_, outs, {**props, "definition": changed})
    assert diff.changed_keys == ["definition"] and not diff.replaces


def test_update_in_place_keeps_fields_never_declared(
    provider, props, created_then_deleted, client
) -> None:
    id_, outs = created_then_deleted
    policy = ClusterPoliciesApi(client).get(id_)
    ClusterPoliciesApi(client).edit(id_, {**{k: policy[k] for k in (
        "name", "definition", "max_clusters_per_user", "description")},
        "libraries": [{"pypi": {"package": "requests==2.32.3"}}]})
    changed = {**props, "name": props["name"] + "-2", "max_clusters_per_user": 5}
    changed.pop("description")
    outs = provider.update(id_, outs, changed).outs
    after = ClusterPoliciesApi(client).get(id_)
    assert (after["name"], after["max_clusters_per_user"]) == (props["name"] + "-2", 5)
    assert "description" not in after  # declared before, no longer
    assert after["libraries"] == [{"pypi": {"package": "requests==2.32.3"}}]  # never declared
    assert not provider.diff(id_, provider.read(id_, outs).outs, changed).changes


def test_family_policy_with_overrides(provider, props, client) -> None:
    family = {k: v for k, v in props.items() if k != "definition"}
    overrides = {"autotermination_minutes": {"type": "fixed", "value": 30}}
    created = provider.create({**family, "policy_family_id": "personal-vm",
                               "policy_family_definition_overrides": json.dumps(overrides)})
    try:
        merged = json.loads(ClusterPoliciesApi(client).get(created.id)["definition"])
        assert merged["autotermination_minutes"]["value"] == 30
        read = provider.read(created.id, created.outs)
        assert "definition" not in read.outs  # the family's, not declared
        more = {**overrides, "num_workers": {"type": "fixed", "value": 0}}
        provider.update(created.id, read.outs, {**family, "policy_family_id": "personal-vm",
                                                "policy_family_definition_overrides": more})
        stored = ClusterPoliciesApi(client).get(created.id)
        assert json.loads(stored["policy_family_definition_overrides"]) == more
    finally:
        provider.delete(created.id, created.outs)


def test_drift_is_read_and_restored(provider, props, created_then_deleted, client) -> None:
    id_, outs = created_then_deleted
    ClusterPoliciesApi(client).edit(id_, {"name": props["name"], "definition": "{}"})
    read = provider.read(id_, outs)
    assert read.outs["definition"] == {}
    assert set(provider.diff(id_, read.outs, props).changed_keys) == {
        "definition", "max_clusters_per_user", "description"}
    provider.update(id_, read.outs, props)
    assert json.loads(ClusterPoliciesApi(client).get(id_)["definition"]) == DEFINITION


def test_import_then_no_diff(provider, props, created_then_deleted) -> None:
    id_, _ = created_then_deleted
    imported = provider.read(id_, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["name"] == props["name"]
    assert not provider.diff(id_, imported.outs, props, old_inputs={}).changes


def test_create_adopts_the_same_policy_and_refuses_another(provider, props, client) -> None:
    body = {"name": props["name"], "definition": json.dumps(DEFINITION),
            "max_clusters_per_user": 2, "description": "small clusters"}
    left = ClusterPoliciesApi(client).create(body)
    created = provider.create(props)
    try:
        assert created.id == left
        other = {**props, "name": props["name"] + "-other"}
        ClusterPoliciesApi(client).create({**body, "name": other["name"], "definition": "{}"})
        with pytest.raises(AlreadyExists):
            provider.create(other)
    finally:
        provider.delete(created.id, created.outs)
        for policy in ClusterPoliciesApi(client).list():
            if policy["name"] == props["name"] + "-other":
                ClusterPoliciesApi(client).delete(policy["policy_id"])


def test_summary_field_changes_compare_json(provider, props, created_then_deleted) -> None:
    _, outs = created_then_deleted
    compact = json.dumps(DEFINITION, separators=(",", ":"))
    assert ClusterPolicyProvider.field_changes(outs, {**props, "definition": compact}) == []
    changed = ClusterPolicyProvider.field_changes(outs, {**props, "max_clusters_per_user": 4})
    assert changed == [("max_clusters_per_user", 2, 4)]
