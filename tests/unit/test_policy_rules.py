"""The emulator's cluster-policy rules
(workspace_emulator/platform/areas/compute/cluster_policies/policy_rules.py), one rule
type at a time, and the paths into nested fields and maps."""

from __future__ import annotations

import pytest

from workspace_emulator.platform.areas.compute.cluster_policies.policy_rules import (
    ABSENT,
    value_at,
    violation,
    violations,
)

SPEC = {
    "node_type_id": "Standard_DS3_v2",
    "autoscale": {"min_workers": 1, "max_workers": 4},
    "spark_conf": {"spark.databricks.cluster.profile": "serverless"},
    "custom_tags": {"team": "data"},
}


def test_paths_reach_nested_fields_and_map_keys_with_dots() -> None:
    assert value_at(SPEC, "autoscale.max_workers") == 4
    assert value_at(SPEC, "spark_conf.spark.databricks.cluster.profile") == "serverless"
    assert value_at(SPEC, "custom_tags.team") == "data"
    assert value_at(SPEC, "custom_tags.owner") is ABSENT
    assert value_at(SPEC, "autoscale.min_workers.x") is ABSENT
    assert value_at(SPEC, "num_workers") is ABSENT


@pytest.mark.parametrize(("rule", "value", "broken"), [
    ({"type": "fixed", "value": 30}, 30, False),
    ({"type": "fixed", "value": 30}, 31, True),
    ({"type": "fixed", "value": 30}, ABSENT, False),  # the service sets it
    ({"type": "forbidden"}, ABSENT, False),
    ({"type": "forbidden"}, "pool-1", True),
    ({"type": "allowlist", "values": ["a", "b"]}, "b", False),
    ({"type": "allowlist", "values": ["a", "b"]}, "c", True),
    ({"type": "blocklist", "values": ["a"]}, "a", True),
    ({"type": "blocklist", "values": ["a"]}, "z", False),
    ({"type": "regex", "pattern": "15\\.[0-9]+\\.x-.*"}, "15.4.x-scala2.12", False),
    ({"type": "regex", "pattern": "15\\.[0-9]+\\.x"}, "15.4.x-scala2.12", True),  # whole value
    ({"type": "range", "minValue": 10, "maxValue": 60}, 10, False),
    ({"type": "range", "minValue": 10, "maxValue": 60}, 61, True),
    ({"type": "range", "minValue": 10}, 9, True),
    ({"type": "range", "maxValue": 60}, "sixty", True),
    ({"type": "range", "maxValue": 60}, ABSENT, True),  # required
    ({"type": "range", "maxValue": 60, "defaultValue": 30}, ABSENT, False),
    ({"type": "unlimited", "isOptional": True}, ABSENT, False),
    ({"type": "unlimited"}, ABSENT, True),
    ({"type": "unlimited"}, 12345, False),
])
def test_each_rule_type(rule: dict, value: object, broken: bool) -> None:
    assert (violation("attribute", rule, value) is not None) is broken


def test_violations_name_each_path_and_skip_what_is_not_checked() -> None:
    definition = {
        "node_type_id": {"type": "allowlist", "values": ["Standard_DS4_v2"]},
        "autoscale.max_workers": {"type": "range", "maxValue": 2},
        "custom_tags.team": {"type": "fixed", "value": "data"},
        "dbus_per_hour": {"type": "range", "maxValue": 1},
        "init_scripts.*.workspace.destination": {"type": "forbidden"},
    }
    assert violations(definition, SPEC) == [
        "node_type_id: the value must be one of ['Standard_DS4_v2'] (is 'Standard_DS3_v2')",
        "autoscale.max_workers: the value must be at most 2 (is 4)",
    ]
