"""ServiceCredential under the real engine against the emulator, in the public wire form:
one stack declares a service credential, Grants on it and a CatalogBinding of it, both
naming it by its name (`securable_type: credential`). Up, then an up that changes and writes
nothing; a comment changed in place (one PATCH, no create or delete); a comment changed
outside the stack shown by `pulumi preview --refresh` and undone by the next up; destroy
(the grants and the binding first, then the credential); and a credential made outside
any stack imported by its name with no write and no diff.

One stack walks through the steps, a test each: a failure names its step, and the steps
after it do not run."""

from __future__ import annotations

import copy
import dataclasses
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import (
    TYPE_PREFIX,
    PlatformApi,
    StackFactory,
    assert_no_changes,
    import_stack,
    preview_ops,
    reconfigure,
    write_config,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

UC = "/api/2.1/unity-catalog"
CONNECTOR = (
    "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/data-platform/"
    "providers/Microsoft.Databricks/accessConnectors/uc-services-e2e"
)
HOME_WORKSPACE, OTHER_WORKSPACE = 1234567890123456, 2345678901234567
ENGINEERS, ANALYSTS = "data-engineers", "analysts"
# The item's name is the resource's and the credential's (the class has its own emulator).
NAME = "Queue-Reader"  # in mixed case, kept as given
KINDS = {NAME: "ServiceCredential", "queue-reader-grants": "Grants",
         "queue-reader-binding": "CatalogBinding"}


def declared(name: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "serviceCredentials": [{"name": name,
                                "azure_managed_identity": {"access_connector_id": CONNECTOR},
                                "comment": "reads the queues"}],
        "grants": [{"name": "queue-reader-grants", "securable_type": "credential",
                    "full_name": name, "privilege_assignments": [
                        {"principal": ENGINEERS, "privileges": ["ACCESS", "CREATE_CONNECTION"]},
                        {"principal": ANALYSTS, "privileges": ["ACCESS"]}]}],
        "catalogBindings": [{"name": "queue-reader-binding", "securable_type": "credential",
                             "securable_name": name, "bindings": [
                                 {"workspace_id": HOME_WORKSPACE},
                                 {"workspace_id": OTHER_WORKSPACE}]}],
    }


class Workspace(PlatformApi):
    def credential(self, name: str) -> dict[str, Any]:
        return self.call("GET", f"{UC}/credentials/{name}")

    def service_credentials(self) -> set[str]:
        listed = self.call("GET", f"{UC}/credentials", params={"purpose": "SERVICE"})
        return {c["name"] for c in listed.get("credentials") or []}

    def grants(self, name: str) -> dict[str, list[str]]:
        shown = self.call("GET", f"{UC}/permissions/credential/{name}")
        return {a["principal"]: sorted(a["privileges"])
                for a in shown.get("privilege_assignments") or []}

    def bindings(self, name: str) -> set[int]:
        shown = self.call("GET", f"{UC}/bindings/credential/{name}")
        return {int(b["workspace_id"]) for b in shown.get("bindings") or []}


@dataclasses.dataclass
class Scenario:
    workspace: Workspace
    name: str
    stack: PulumiCli
    objects: dict[str, Any]


@pytest.fixture(scope="class")
def scenario(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    objects = declared(NAME)
    stack = workspace_stack(wire_form="public", **objects)
    return Scenario(Workspace(emulator), NAME, stack, objects)


def refreshed_preview_ops(stack: PulumiCli) -> dict[str, str]:
    """`pulumi preview --refresh --json`: the op of each workspace resource that is not to
    stay the same, by name."""
    steps = json.loads(stack.preview("--refresh", "--json").stdout).get("steps", [])
    return {step["urn"].split("::")[-1]: step["op"] for step in steps
            if step["urn"].split("::")[-2].startswith(TYPE_PREFIX) and step["op"] != "same"}


@pytest.mark.steps
class TestServiceCredential:
    def test_1_up_makes_the_credential_its_grants_and_binding(self, scenario: Scenario) -> None:
        assert preview_ops(scenario.stack, KINDS) == dict.fromkeys(KINDS, ("create", None))
        scenario.stack.up()
        workspace, name = scenario.workspace, scenario.name
        found = workspace.credential(name)
        assert (found["name"], found["purpose"], found["comment"]) == (
            name, "SERVICE", "reads the queues"), "1. the credential"
        assert found["azure_managed_identity"]["access_connector_id"] == CONNECTOR
        assert workspace.grants(name) == {ENGINEERS: ["ACCESS", "CREATE_CONNECTION"],
                                          ANALYSTS: ["ACCESS"]}, "1. its grants"
        assert found["isolation_mode"] == "ISOLATION_MODE_ISOLATED", "1. isolated"
        assert workspace.bindings(name) == {HOME_WORKSPACE, OTHER_WORKSPACE}, "1. bindings"
        outputs = scenario.stack.export()["deployment"]["resources"]
        [credential] = [r for r in outputs if r["type"] == TYPE_PREFIX + "ServiceCredential"]
        assert credential["id"] == name
        assert credential["outputs"]["credential_id"] == found["id"]

    def test_2_a_second_up_changes_and_writes_nothing(self, scenario: Scenario) -> None:
        assert_no_changes(scenario.stack, scenario.workspace.info, "2.")

    def test_3_a_comment_changes_in_place(self, scenario: Scenario) -> None:
        objects = copy.deepcopy(scenario.objects)
        objects["serviceCredentials"][0]["comment"] = "reads and acknowledges the queues"
        reconfigure(scenario, objects)
        # (`preview --json` lists no step of a resource that stays the same.)
        assert preview_ops(scenario.stack, KINDS) == {NAME: ("update", None)}, (
            "3. preview: one update in place")
        before = scenario.workspace.credential(scenario.name)["id"]
        clear_request_log(scenario.workspace.info)
        scenario.stack.up()
        assert scenario.workspace.writes() == [
            f"PATCH {UC}/credentials/{scenario.name}"], "3. one PATCH, nothing else"
        found = scenario.workspace.credential(scenario.name)
        assert (found["id"], found["comment"]) == (before, "reads and acknowledges the queues")
        assert_no_changes(scenario.stack, scenario.workspace.info, "3.")

    def test_4_drift_shown_by_a_refreshed_preview_and_undone_by_up(
        self, scenario: Scenario
    ) -> None:
        workspace, name = scenario.workspace, scenario.name
        workspace.call("PATCH", f"{UC}/credentials/{name}", json={"comment": "by hand"})
        assert refreshed_preview_ops(scenario.stack) == {NAME: "update"}, (
            "4. the refreshed preview shows the drift")
        scenario.stack.preview("--expect-no-changes")  # without a refresh: as recorded
        scenario.stack.up("--refresh")
        assert workspace.credential(name)["comment"] == "reads and acknowledges the queues"
        assert_no_changes(scenario.stack, workspace.info, "4.")

    def test_5_destroy_takes_the_grants_and_binding_before_the_credential(
        self, scenario: Scenario
    ) -> None:
        workspace, name = scenario.workspace, scenario.name
        clear_request_log(workspace.info)
        scenario.stack.destroy()
        writes = workspace.writes()
        deleted = writes.index(f"DELETE {UC}/credentials/{name}")
        assert writes.index(f"PATCH {UC}/permissions/credential/{name}") < deleted, writes
        assert max(i for i, w in enumerate(writes)
                   if w.startswith(f"PATCH {UC}/bindings/credential/")) < deleted, writes
        assert name not in workspace.service_credentials(), "5. the credential is gone"

    def test_6_import_by_name_writes_nothing_and_shows_no_diff(
        self, scenario: Scenario, emulator: EmulatorInfo, tmp_path: Path
    ) -> None:
        workspace = scenario.workspace
        name = f"made-outside-{uuid.uuid4().hex[:6]}"
        role = {"role_arn": "arn:aws:iam::123456789012:role/uc-services"}
        workspace.call("POST", f"{UC}/credentials", json={
            "name": name, "purpose": "SERVICE", "aws_iam_role": role, "comment": "by a script"})
        stack = import_stack(tmp_path, emulator, "public")
        write_config(stack, {"workspace:objects": {"ServiceCredential": {
            "id": name, "args": {"name": name, "aws_iam_role": role, "comment": "by a script"}}}})
        clear_request_log(emulator)
        up = stack.up()
        assert "1 imported" in up.stdout, up.stdout
        assert workspace.writes() == [], "6. the import wrote to the workspace"
        stack.preview("--expect-no-changes")
        stack.refresh("--expect-no-changes")
        stack.destroy()
        assert name not in workspace.service_credentials(), "6. destroy: the credential"
