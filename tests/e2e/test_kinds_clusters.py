"""Cluster and ClusterPolicy in one stack under the real engine against the emulator, in both
wire forms: preview, up, a no-op up without writes, in-place updates (a reformatted policy
definition is none; an edit of a running cluster restarts it and the preview says so),
drift found by refresh and undone by up, import by id with no diff, and a destroy that
leaves the workspace as it was. Neither kind has a replacement: the service edits every
field of both in place.

One stack per wire form walks through the steps, a test each (a class per wire form)."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest

from providers.client import NotFound, WorkspaceClient
from providers.compute.cluster_policies_api import ClusterPoliciesApi
from providers.compute.clusters_api import ClustersApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import (
    StackFactory,
    assert_no_changes,
    import_stack,
    platform_writes,
    preview_steps,
    reconfigure,
    refreshed,
    write_config,
)
from tools.drills.local_stack import connection_config, scratch_stack, write_stack_config
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

KINDS = {"e2e-small": "ClusterPolicy", "e2e-analysts": "Cluster"}
DEFINITION = {
    "node_type_id": {"type": "allowlist", "values": ["Standard_DS3_v2", "Standard_DS4_v2"]},
    "autotermination_minutes": {"type": "range", "maxValue": 60},
}
PYPI = {"pypi": {"package": "requests==2.32.3"}}


def declared() -> dict[str, list[dict[str, Any]]]:
    return {
        "clusterPolicies": [
            {"name": "e2e-small", "definition": DEFINITION, "max_clusters_per_user": 2}
        ],
        "clusters": [
            {
                "name": "e2e-analysts",
                "cluster_name": "e2e-analysts",
                "spark_version": "15.4.x-scala2.12",
                "node_type_id": "Standard_DS3_v2",
                "num_workers": 1,
                "autotermination_minutes": 30,
                "policy": "e2e-small",
                "libraries": [PYPI],
                "pinned": True,
                "state": "TERMINATED",
            }
        ],
    }


def snapshot(client: WorkspaceClient) -> dict[str, Any]:
    return {
        "clusters": sorted(c["cluster_id"] for c in ClustersApi(client).list()),
        "policies": sorted(p["policy_id"] for p in ClusterPoliciesApi(client).list()),
    }


def ops(stack: PulumiCli) -> dict[str, str]:
    return {name: step["op"] for name, step in preview_steps(stack, KINDS).items()}


@dataclasses.dataclass
class Lifecycle:
    info: EmulatorInfo
    client: WorkspaceClient
    before: dict[str, Any]
    stack: PulumiCli
    objects: dict[str, Any]

    def ids(self) -> tuple[str, str]:
        outputs = self.stack.outputs()
        return outputs["cluster_policies"]["e2e-small"], outputs["clusters"]["e2e-analysts"]


@pytest.fixture(scope="class")
def lifecycle(
    class_wire_form: str, workspace_stack: StackFactory, emulator: EmulatorInfo
) -> Lifecycle:
    client = emulator_client(emulator, class_wire_form)
    objects = declared()
    stack = workspace_stack(wire_form=class_wire_form, **objects)
    return Lifecycle(emulator, client, snapshot(client), stack, objects)


@pytest.mark.steps
class ClusterKindsLifecycle:
    wire_form: str

    def test_1_preview_lists_the_creates(self, lifecycle: Lifecycle) -> None:
        assert ops(lifecycle.stack) == {name: "create" for name in KINDS}
        assert snapshot(lifecycle.client) == lifecycle.before, "1. preview changed nothing"

    def test_2_up_makes_them_as_declared(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.up()
        client = lifecycle.client
        policy_id, cluster_id = lifecycle.ids()
        policy = ClusterPoliciesApi(client).get(policy_id)
        assert json.loads(policy["definition"]) == DEFINITION
        assert policy["max_clusters_per_user"] == 2
        cluster = ClustersApi(client).get(cluster_id)
        assert (cluster["state"], cluster["policy_id"]) == ("TERMINATED", policy_id)
        assert cluster["autotermination_minutes"] == 30
        assert ClustersApi(client).is_pinned(cluster_id)
        assert [s["library"] for s in ClustersApi(client).library_statuses(cluster_id)] == [PYPI]

    def test_3_a_second_up_changes_nothing(self, lifecycle: Lifecycle) -> None:
        assert_no_changes(lifecycle.stack, lifecycle.info, "3.")

    def test_4a_a_reformatted_definition_is_no_change(self, lifecycle: Lifecycle) -> None:
        objects = copy.deepcopy(lifecycle.objects)
        reordered = dict(reversed(list(DEFINITION.items())))
        objects["clusterPolicies"][0]["definition"] = json.dumps(reordered, indent=4)
        reconfigure(lifecycle, objects)
        assert ops(lifecycle.stack) == {}, "4a. compared as JSON, not as text"
        lifecycle.stack.preview("--expect-no-changes")

    def test_4b_updates_in_place(self, lifecycle: Lifecycle) -> None:
        objects = copy.deepcopy(lifecycle.objects)
        objects["clusterPolicies"][0]["max_clusters_per_user"] = 3
        cluster = objects["clusters"][0]
        cluster.update(state="RUNNING", autotermination_minutes=45)
        reconfigure(lifecycle, objects)
        assert ops(lifecycle.stack) == {name: "update" for name in KINDS}, "4b. preview"
        lifecycle.stack.up()
        policy_id, cluster_id = lifecycle.ids()
        assert ClusterPoliciesApi(lifecycle.client).get(policy_id)["max_clusters_per_user"] == 3
        found = ClustersApi(lifecycle.client).get(cluster_id)
        assert (found["state"], found["autotermination_minutes"]) == ("RUNNING", 45)
        assert_no_changes(lifecycle.stack, lifecycle.info, "4b.")

    def test_4c_the_preview_says_which_change_restarts_the_cluster(
        self, lifecycle: Lifecycle
    ) -> None:
        objects = copy.deepcopy(lifecycle.objects)
        objects["clusters"][0]["num_workers"] = 2  # a resize: no restart
        reconfigure(lifecycle, objects)
        preview = lifecycle.stack.preview("--diff")
        assert "restarts" not in preview.stdout + preview.stderr
        objects["clusters"][0]["node_type_id"] = "Standard_DS4_v2"  # an edit: a restart
        reconfigure(lifecycle, objects)
        preview = lifecycle.stack.preview("--diff")
        assert "which restarts it" in preview.stdout + preview.stderr, preview.stdout
        lifecycle.stack.up()
        _, cluster_id = lifecycle.ids()
        found = ClustersApi(lifecycle.client).get(cluster_id)
        assert (found["node_type_id"], found["num_workers"]) == ("Standard_DS4_v2", 2)
        assert found["state"] == "RUNNING" and "last_restarted_time" in found
        assert_no_changes(lifecycle.stack, lifecycle.info, "4c.")

    def test_5_refresh_reads_drift_and_up_restores_it(self, lifecycle: Lifecycle) -> None:
        client, stack = lifecycle.client, lifecycle.stack
        policy_id, cluster_id = lifecycle.ids()
        policy = ClusterPoliciesApi(client).get(policy_id)
        ClusterPoliciesApi(client).edit(
            policy_id, {"name": policy["name"], "definition": policy["definition"]}
        )
        ClustersApi(client).stop(cluster_id)
        ClustersApi(client).set_pinned(cluster_id, False)
        read = refreshed(stack)
        assert {n: op for n, (op, _) in read.items()} == {n: "update" for n in KINDS}
        assert "max_clusters_per_user" not in read["e2e-small"][1]
        assert read["e2e-analysts"][1]["state"] == "TERMINATED"
        assert read["e2e-analysts"][1]["pinned"] is False
        assert ops(stack) == {name: "update" for name in KINDS}, "5. preview after refresh"
        stack.up()
        assert ClusterPoliciesApi(client).get(policy_id)["max_clusters_per_user"] == 3
        assert ClustersApi(client).get(cluster_id)["state"] == "RUNNING"
        assert ClustersApi(client).is_pinned(cluster_id)
        assert_no_changes(stack, lifecycle.info, "5.")

    def test_6_destroy_leaves_the_workspace_as_before(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.destroy()
        assert snapshot(lifecycle.client) == lifecycle.before, "6. destroy"

    def test_7_import_by_id_shows_no_diff(
        self, lifecycle: Lifecycle, tmp_path_factory: pytest.TempPathFactory
    ) -> None:
        client, info = lifecycle.client, lifecycle.info
        policy_args = {"name": f"imported-policy-{self.wire_form}", "definition": DEFINITION}
        policy_id = ClusterPoliciesApi(client).create(
            {**policy_args, "definition": json.dumps(DEFINITION, indent=2)}
        )
        cluster_args = {
            "cluster_name": f"imported-{self.wire_form}",
            "spark_version": "15.4.x-scala2.12",
            "node_type_id": "Standard_DS3_v2",
            "num_workers": 1,
        }
        cluster_id = ClustersApi(client).create(cluster_args)
        stack = import_stack(tmp_path_factory.mktemp("import"), info, self.wire_form)
        imports = {
            "ClusterPolicy": {"id": policy_id, "args": policy_args},
            "Cluster": {"id": cluster_id, "args": cluster_args},
        }
        write_config(stack, {"workspace:objects": imports})
        clear_request_log(info)
        up = stack.up()
        assert "2 imported" in up.stdout, up.stdout
        assert platform_writes(info) == []
        stack.preview("--expect-no-changes")
        stack.refresh("--expect-no-changes")
        assert_no_changes(stack, info, "7.")
        stack.destroy()
        with pytest.raises(NotFound):
            ClustersApi(client).get(cluster_id)
        with pytest.raises(NotFound):
            ClusterPoliciesApi(client).get(policy_id)


GOOD_CLUSTER: dict[str, Any] = {
    "spark_version": "15.4.x-scala2.12",
    "node_type_id": "Standard_DS3_v2",
    "num_workers": 1,
}
# (list, the defect merged over a good item, the field named, a piece of the reason)
BAD_INPUTS: list[tuple[str, dict[str, Any], str, str]] = [
    ("clusters", {"spark_version": None}, "spark_version", "required"),
    ("clusters", {"num_workers": -2}, "num_workers", "at least 0"),
    ("clusters", {"autotermination_minutes": 3}, "autotermination_minutes", "10 and 10000"),
    ("clusters", {"state": "PAUSED"}, "state", "RUNNING"),
    ("clusters", {"libraries": [{"pypi": {"package": "pandas"}}]}, "libraries[0].pypi.package",
     "name==version"),
    ("clusters", {"custom_tags": {"pulumi-deployment": "x"}}, "custom_tags", "reserved"),
    ("clusterPolicies", {"definition": "{oops"}, "definition", "not valid JSON"),
    ("clusterPolicies", {"definition": "[]"}, "definition", "JSON object"),
    ("clusterPolicies", {"max_clusters_per_user": 0}, "max_clusters_per_user", "at least 1"),
    ("clusterPolicies", {"policy_family_id": "personal-vm"}, "definition", "inherits"),
    ("clusterPolicies", {"definition": None, "policy_family_definition_overrides": "{}"},
     "policy_family_definition_overrides", "policy_family_id"),
    ("clusterPolicies", {"description": ["not", "text"]}, "description", "string"),
]


def test_invalid_inputs_fail_the_preview_naming_the_field_with_no_call(
    emulator: EmulatorInfo, tmp_path_factory: pytest.TempPathFactory
) -> None:
    lists: dict[str, list[dict[str, Any]]] = {"clusters": [], "clusterPolicies": []}
    expected = []
    for key, change, field, reason in BAD_INPUTS:
        items = lists[key]
        good: dict[str, Any] = GOOD_CLUSTER if key == "clusters" else {"definition": {}}
        item = {"name": f"bad-{len(items)}", **good, **change}
        items.append({k: v for k, v in item.items() if v is not None})
        expected.append((f"workspace:{key}[{len(items) - 1}].{field}: ", reason))
    stack = scratch_stack(tmp_path_factory.mktemp("bad"), emulator, objects={})
    write_stack_config(
        stack, {**connection_config(emulator), **{f"workspace:{k}": v for k, v in lists.items()}}
    )
    clear_request_log(emulator)
    result = stack.preview(check=False)
    assert result.returncode != 0
    lines = [line.strip() for line in (result.stdout + result.stderr).splitlines()]
    for start, reason in expected:
        assert [line for line in lines if line.startswith(start) and reason in line], (
            f"no line `{start}...{reason}` in:\n" + "\n".join(lines)
        )
    assert request_log(emulator) == []


class TestClusterKindsInThePublicForm(ClusterKindsLifecycle):
    wire_form = "public"
