"""The account around the workspace under the real engine against the emulator, in one stack
with an account connection (the emulator's URL as the account host, its account id): an
account group created, assigned to the workspace and given entitlements there.

The steps: up, then an up that writes nothing; an entitlement added in place; one removed
outside the stack shows in `preview --refresh` and the up gives it back; a second stack
imports the three objects by their ids with no write and no change after; destroy removes
the assignment (the group leaves the workspace) and the group (it leaves the account)."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import (
    PlatformApi,
    StackFactory,
    assert_no_changes,
    changed_in_preview,
    platform_writes,
    reconfigure,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

ACCOUNT_ID = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"  # the emulator's initial data
WORKSPACE_ID = 1234567890123456
SCIM_GROUPS = "/api/2.0/preview/scim/v2/Groups"
ACCOUNT_GROUPS = f"/api/2.0/accounts/{ACCOUNT_ID}/scim/v2/Groups"


def declared(info: EmulatorInfo, group: str, entitlements: list[str]) -> dict[str, Any]:
    return {
        "accountHost": info.base_url,
        "accountId": ACCOUNT_ID,
        "accountGroups": [{"name": "analysts", "display_name": group}],
        "workspaceAssignments": [{"name": "analysts-in", "account_group": "analysts",
                                  "workspace_id": WORKSPACE_ID, "permission": "USER"}],
        "entitlements": [{"name": "analysts-entitlements", "account_group": "analysts",
                          "entitlements": entitlements}],
    }


@dataclasses.dataclass
class Scenario:
    info: EmulatorInfo
    api: PlatformApi
    group: str
    objects: dict[str, Any]
    stack: PulumiCli
    factory: StackFactory

    def group_id(self) -> str:
        return str(self.stack.outputs()["account_groups"]["analysts"])

    def workspace_entitlements(self) -> list[str]:
        found = self.api.call("GET", f"{SCIM_GROUPS}/{self.group_id()}")
        return sorted(e["value"] for e in found.get("entitlements") or [])


@pytest.fixture(scope="class")
def scenario(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    group = f"analysts-{uuid.uuid4().hex[:6]}"
    objects = declared(emulator, group, ["workspace-access"])
    stack = workspace_stack(wire_form="public", **objects)
    return Scenario(emulator, PlatformApi(emulator), group, objects, stack, workspace_stack)


@pytest.mark.steps
class TestAccountIdentityInOneStack:
    def test_1_up_makes_the_group_assigns_it_and_gives_it_entitlements(
        self, scenario: Scenario
    ) -> None:
        scenario.stack.up()
        group_id = scenario.group_id()
        account = scenario.api.call("GET", f"{ACCOUNT_GROUPS}/{group_id}")
        assert account["displayName"] == scenario.group, "1. the account's group"
        assigned = scenario.api.call(
            "GET", f"/api/2.0/accounts/{ACCOUNT_ID}/workspaces/{WORKSPACE_ID}"
                   "/permissionassignments")["permission_assignments"]
        assert {str(a["principal"]["principal_id"]): a["permissions"] for a in assigned}[
            group_id] == ["USER"], "1. assigned as USER"
        local = scenario.api.call("GET", f"{SCIM_GROUPS}/{group_id}")
        assert local["displayName"] == scenario.group, "1. in the workspace, under its id"
        assert scenario.workspace_entitlements() == ["workspace-access"], "1. entitlements"
        assert_no_changes(scenario.stack, scenario.info, "1.")

    def test_2_an_entitlement_is_added_in_place(self, scenario: Scenario) -> None:
        objects = declared(scenario.info, scenario.group,
                           ["workspace-access", "databricks-sql-access"])
        reconfigure(scenario, objects)
        assert changed_in_preview(scenario.stack) == {"analysts-entitlements": "update"}, "2."
        scenario.stack.up()
        assert scenario.workspace_entitlements() == [
            "databricks-sql-access", "workspace-access"], "2. added"
        assert_no_changes(scenario.stack, scenario.info, "2.")

    def test_3_an_entitlement_removed_outside_shows_in_a_refreshed_preview_and_comes_back(
        self, scenario: Scenario
    ) -> None:
        scenario.api.call("PATCH", f"{SCIM_GROUPS}/{scenario.group_id()}", json={
            "schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
            "Operations": [{"op": "remove",
                            "path": 'entitlements[value eq "databricks-sql-access"]'}]})
        assert changed_in_preview(scenario.stack) == {}, "3. unrefreshed: the record's view"
        assert changed_in_preview(scenario.stack, "--refresh") == {
            "analysts-entitlements": "update"}, "3. refreshed"
        scenario.stack.up("--refresh")
        assert scenario.workspace_entitlements() == [
            "databricks-sql-access", "workspace-access"], "3. given back"
        assert_no_changes(scenario.stack, scenario.info, "3.")

    def test_4_a_second_stack_imports_each_by_id_with_no_write_and_no_change(
        self, scenario: Scenario
    ) -> None:
        group_id = scenario.group_id()
        objects = scenario.objects
        imported = {
            **objects,
            "accountGroups": [{**objects["accountGroups"][0], "import": group_id}],
            "workspaceAssignments": [{"name": "analysts-in", "group_name": scenario.group,
                                      "workspace_id": WORKSPACE_ID, "permission": "USER",
                                      "import": f"{WORKSPACE_ID}|{group_id}"}],
            "entitlements": [{**objects["entitlements"][0], "import": f"groups/{group_id}"}],
        }
        importer = scenario.factory(wire_form="public", **imported)
        clear_request_log(scenario.info)
        up = importer.up()
        assert "3 imported" in up.stdout, up.stdout
        assert platform_writes(scenario.info) == [], "4. the import wrote to the workspace"
        assert_no_changes(importer, scenario.info, "4. after the import")

    def test_5_destroy_unassigns_and_removes_the_group(self, scenario: Scenario) -> None:
        group_id = scenario.group_id()
        scenario.stack.destroy()
        listed = scenario.api.call("GET", SCIM_GROUPS, params={
            "filter": f'displayName eq "{scenario.group}"'})
        assert listed["Resources"] == [], "5. gone from the workspace"
        found = scenario.api.call("GET", ACCOUNT_GROUPS, params={
            "filter": f'displayName eq "{scenario.group}"'})
        assert found["Resources"] == [], f"5. gone from the account ({group_id})"
