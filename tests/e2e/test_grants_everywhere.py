"""Grants on securables no kind manages, under the real engine against the emulator, in one
stack (issue 44): a table, a function and a Delta Sharing share (SELECT to a recipient),
each declared by its full name, made beforehand through the service's APIs as a team's
pipelines and SQL make them; and an authoritative Permissions on a job of the stack, which
drops an entry made outside it and says so by name.

The steps: up, then an up that writes nothing; a privilege added in place; a privilege
revoked outside and a job entry made outside show in `preview --refresh` (the Permissions'
warning naming the principal and level it drops) and the up undoes both; a second stack
imports each by its id with no write and no change; destroy revokes what the stack granted."""

from __future__ import annotations

import copy
import dataclasses
import json
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
    summary_of,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

UC = "/api/2.1/unity-catalog"
LAKE = "abfss://lake@emulated.dfs.core.windows.net"


class Workspace(PlatformApi):
    def grants(self, securable_type: str, full_name: str) -> dict[str, list[str]]:
        found = self.call("GET", f"{UC}/permissions/{securable_type}/{full_name}")
        return {a["principal"]: a["privileges"] for a in found.get("privilege_assignments", [])}

    def acl(self, job_id: str) -> dict[str | None, str]:
        """group or user -> level of a job's direct entries."""
        found = self.call("GET", f"/api/2.0/permissions/jobs/{job_id}")
        return {entry.get("group_name") or entry.get("user_name")
                or entry.get("service_principal_name"): level["permission_level"]
                for entry in found["access_control_list"]
                for level in entry["all_permissions"] if not level.get("inherited")}

    def make_securables(self, suffix: str) -> dict[str, str]:
        """What the stack grants on, made as a team's pipelines and SQL make them."""
        catalog = self.call("POST", f"{UC}/catalogs", json={"name": f"g_{suffix}"})["name"]
        schema = self.call("POST", f"{UC}/schemas",
                           json={"name": "sales", "catalog_name": catalog})["full_name"]
        table = self.call("POST", f"{UC}/tables", json={
            "name": "orders", "catalog_name": catalog, "schema_name": "sales",
            "table_type": "EXTERNAL", "data_source_format": "DELTA",
            "storage_location": f"{LAKE}/{suffix}/orders"})["full_name"]
        function = self.call("POST", f"{UC}/functions", json={"function_info": {
            "name": "net_price", "catalog_name": catalog, "schema_name": "sales",
            "data_type": "DOUBLE", "full_data_type": "DOUBLE", "routine_body": "SQL",
            "routine_definition": "price * 0.8"}})["full_name"]
        share = self.call("POST", f"{UC}/shares", json={"name": f"orders_feed_{suffix}"})["name"]
        recipient = self.call("POST", f"{UC}/recipients", json={
            "name": f"partner_{suffix}", "authentication_type": "TOKEN"})["name"]
        return {"schema": schema, "table": table, "function": function, "share": share,
                "recipient": recipient}


def declared(suffix: str, names: dict[str, str]) -> dict[str, list[dict[str, Any]]]:
    job = f"grants-job-{suffix}"
    return {
        "jobs": [{"name": job}],
        "grants": [
            {"name": "orders-readers", "securable_type": "table", "full_name": names["table"],
             "privilege_assignments": [{"principal": "analysts", "privileges": ["SELECT"]}]},
            {"name": "net-price-users", "securable_type": "function",
             "full_name": names["function"], "privilege_assignments": [
                 {"principal": "analysts", "privileges": ["EXECUTE"]}]},
            {"name": "orders-feed", "securable_type": "share", "full_name": names["share"],
             "privilege_assignments": [
                 {"principal": names["recipient"], "privileges": ["SELECT"]},
                 {"principal": "data-engineers", "privileges": ["MANAGE"]}]},
        ],
        "permissions": [{"name": "job-access", "object_type": "jobs", "object_id": job,
                         "authoritative": True, "access_controls": [
                             {"group_name": "data-engineers",
                              "permission_level": "CAN_MANAGE_RUN"}]}],
    }


@dataclasses.dataclass
class Scenario:
    info: EmulatorInfo
    workspace: Workspace
    suffix: str
    names: dict[str, str]
    objects: dict[str, Any]
    stack: PulumiCli
    factory: StackFactory

    @property
    def job_id(self) -> str:
        return str(self.stack.outputs()["jobs"][f"grants-job-{self.suffix}"])


@pytest.fixture(scope="class")
def scenario(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    suffix = uuid.uuid4().hex[:6]
    workspace = Workspace(emulator)
    names = workspace.make_securables(suffix)
    objects = declared(suffix, names)
    stack = workspace_stack(wire_form="public", **objects)
    return Scenario(emulator, workspace, suffix, names, objects, stack, workspace_stack)


def preview_warnings(stack: PulumiCli, *flags: str) -> tuple[str, str]:
    """The warnings of `pulumi preview --json`, and the pull-request summary of it."""
    preview = stack.preview("--json", *flags).stdout
    document = json.loads(preview)
    warnings = "\n".join(d.get("message", "") for d in document.get("diagnostics", [])
                         if d.get("severity") == "warning")
    return warnings, summary_of(preview)


@pytest.mark.steps
class TestGrantsEverywhere:
    def test_1_up_grants_on_each_securable_and_sets_the_job_list_then_writes_nothing(
        self, scenario: Scenario
    ) -> None:
        scenario.stack.up()
        workspace, names = scenario.workspace, scenario.names
        assert workspace.grants("table", names["table"]) == {"analysts": ["SELECT"]}, "1."
        assert workspace.grants("function", names["function"]) == {
            "analysts": ["EXECUTE"]}, "1. the function"
        assert workspace.grants("share", names["share"]) == {
            names["recipient"]: ["SELECT"], "data-engineers": ["MANAGE"]}, "1. the share"
        assert workspace.acl(scenario.job_id).get("data-engineers") == "CAN_MANAGE_RUN", "1."
        assert_no_changes(scenario.stack, scenario.info, "1.")

    def test_2_a_privilege_added_changes_in_place(self, scenario: Scenario) -> None:
        objects = copy.deepcopy(scenario.objects)
        objects["grants"][0]["privilege_assignments"][0]["privileges"].append("MODIFY")
        reconfigure(scenario, objects)
        assert changed_in_preview(scenario.stack) == {"orders-readers": "update"}, "2."
        clear_request_log(scenario.info)
        scenario.stack.up()
        assert platform_writes(scenario.info) == [
            f"PATCH {UC}/permissions/table/{scenario.names['table']}"], "2. one PATCH"
        assert scenario.workspace.grants("table", scenario.names["table"]) == {
            "analysts": ["MODIFY", "SELECT"]}, "2."
        assert_no_changes(scenario.stack, scenario.info, "2.")

    def test_3_changes_made_outside_show_in_a_refreshed_preview_and_are_undone(
        self, scenario: Scenario
    ) -> None:
        workspace, table, job_id = scenario.workspace, scenario.names["table"], scenario.job_id
        workspace.call("PATCH", f"{UC}/permissions/table/{table}", json={"changes": [
            {"principal": "analysts", "remove": ["SELECT"]}]})
        workspace.call("PATCH", f"/api/2.0/permissions/jobs/{job_id}", json={
            "access_control_list": [{"group_name": "analysts", "permission_level": "CAN_VIEW"}]})
        assert changed_in_preview(scenario.stack) == {}, "3. unrefreshed: the record's view"
        assert changed_in_preview(scenario.stack, "--refresh") == {
            "orders-readers": "update", "job-access": "update"}, "3. both drifts"
        warnings, summary = preview_warnings(scenario.stack, "--refresh")
        lost = (f"permissions on jobs/{job_id} are authoritative: group_name 'analysts' "
                "loses CAN_VIEW (not declared in access_controls)")
        assert lost in warnings, warnings
        assert lost.replace("_", "\\_") in summary, f"3. the summary carries it:\n{summary}"
        assert ('| `job-access` | Permissions | `access_controls[group_name analysts]`: '
                'removed (was `"CAN_VIEW"`) |') in summary, summary
        scenario.stack.up("--refresh")
        assert workspace.grants("table", table) == {"analysts": ["MODIFY", "SELECT"]}, "3."
        acl = workspace.acl(job_id)
        assert "analysts" not in acl and acl["data-engineers"] == "CAN_MANAGE_RUN", acl
        assert_no_changes(scenario.stack, scenario.info, "3.")

    def test_4_a_second_stack_imports_each_with_no_write_and_no_change(
        self, scenario: Scenario
    ) -> None:
        imported = copy.deepcopy(scenario.objects)
        del imported["jobs"]
        for item in imported["grants"]:
            item["import"] = f"{item['securable_type']}/{item['full_name']}"
        [access] = imported["permissions"]
        access.update(object_id=scenario.job_id, **{"import": f"jobs/{scenario.job_id}"})
        importer = scenario.factory(wire_form="public", **imported)
        clear_request_log(scenario.info)
        up = importer.up()
        assert "4 imported" in up.stdout, up.stdout
        assert platform_writes(scenario.info) == [], "4. the import wrote to the workspace"
        assert_no_changes(importer, scenario.info, "4. after the import")

    def test_5_destroy_revokes_what_the_stack_granted(self, scenario: Scenario) -> None:
        workspace, names = scenario.workspace, scenario.names
        scenario.stack.destroy()
        for securable_type in ("table", "function", "share"):
            assert workspace.grants(securable_type, names[securable_type]) == {}, securable_type
        assert workspace.call("GET", f"{UC}/tables/{names['table']}/exists") == {
            "table_exists": True}, "5. the table is not the stack's"
