"""The account around the workspace in one stack, written in the API's own field names only,
under the real engine against the emulator (issue 44's judged scenario): a metastore made and
assigned to the workspace with its default catalog; an account group made, assigned to the
workspace and given entitlements there; a catalog and a schema in the metastore, the group
granted on the catalog and given CAN_MANAGE_RUN on a job (the jobs level that runs it); then
grants on a table a team's pipeline made in that schema.

Every name that orders here is a name the service itself uses (`metastore_id`,
`catalog_name`, `full_name`, `principal`, `group_name`): the first up goes through in one
run, each object after what it names (a grant to the group after its assignment, the
catalog after the assignment of its metastore). Then no changes, with no write; destroy
takes it all down in order."""

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
    reconfigure,
)
from workspace_emulator.testing import EmulatorInfo

pytestmark = pytest.mark.engine

ACCOUNT_ID = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"  # the emulator's initial data
WORKSPACE_ID = 1234567890123456
UC = "/api/2.1/unity-catalog"


def declared(info: EmulatorInfo, suffix: str, table: str | None = None) -> dict[str, Any]:
    group, catalog = f"analysts-{suffix}", f"sales_{suffix}"
    objects: dict[str, Any] = {
        "accountHost": info.base_url,
        "accountId": ACCOUNT_ID,
        "metastores": [{"name": f"primary-{suffix}", "region": "northeurope",
                        "storage_root": f"abfss://metastore@lake.dfs.core.windows.net/{suffix}"}],
        "metastoreAssignments": [{"name": "this-workspace", "workspace_id": WORKSPACE_ID,
                                  "metastore_id": f"primary-{suffix}",
                                  "default_catalog_name": "main"}],
        "accountGroups": [{"name": "analysts", "display_name": group}],
        "workspaceAssignments": [{"name": "analysts-in", "account_group": "analysts",
                                  "workspace_id": WORKSPACE_ID, "permission": "USER"}],
        "entitlements": [{"name": "analysts-entitlements", "account_group": "analysts",
                          "entitlements": ["workspace-access", "databricks-sql-access"]}],
        "catalogs": [{"name": catalog, "comment": "sales"}],
        # The team's pipeline writes tables into it: destroy takes them along.
        "schemas": [{"name": "raw", "catalog_name": catalog, "force_destroy": True}],
        "grants": [{"name": "sales-readers", "securable_type": "catalog", "full_name": catalog,
                    "privilege_assignments": [{"principal": group,
                                               "privileges": ["USE_CATALOG", "BROWSE"]}]}],
        "jobs": [{"name": f"refresh-{suffix}", "tasks": [{
            "task_key": "main", "notebook_task": {"notebook_path": "/Shared/refresh"}}]}],
        "jobPermissions": [{"name": "refresh-runners", "job": f"refresh-{suffix}",
                            "access_controls": [{"group_name": group,
                                                 "permission_level": "CAN_MANAGE_RUN"}]}],
    }
    if table:
        objects["grants"].append({
            "name": "orders-readers", "securable_type": "table", "full_name": table,
            "privilege_assignments": [{"principal": group, "privileges": ["SELECT"]}]})
    return objects


@dataclasses.dataclass
class Scenario:
    info: EmulatorInfo
    api: PlatformApi
    suffix: str
    objects: dict[str, Any]
    stack: PulumiCli
    factory: StackFactory

    @property
    def group(self) -> str:
        return f"analysts-{self.suffix}"

    @property
    def catalog(self) -> str:
        return f"sales_{self.suffix}"

    def grants(self, securable_type: str, full_name: str) -> dict[str, list[str]]:
        found = self.api.call("GET", f"{UC}/permissions/{securable_type}/{full_name}")
        return {a["principal"]: sorted(a["privileges"])
                for a in found.get("privilege_assignments") or []}


@pytest.fixture(scope="class")
def scenario(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    suffix = uuid.uuid4().hex[:6]
    objects = declared(emulator, suffix)
    stack = workspace_stack(wire_form="public", **objects)
    return Scenario(emulator, PlatformApi(emulator), suffix, objects, stack, workspace_stack)


@pytest.mark.steps
class TestTheAccountAroundTheWorkspace:
    def test_1_one_up_makes_everything_each_after_what_it_names_then_no_changes(
        self, scenario: Scenario
    ) -> None:
        scenario.stack.up()  # the first try: a grant before the assignment would fail it
        api, outputs = scenario.api, scenario.stack.outputs()
        metastore_id = outputs["metastores"][f"primary-{scenario.suffix}"]
        current = api.call("GET", f"{UC}/current-metastore-assignment")
        assert current["metastore_id"] == metastore_id, "1. the metastore assigned"
        assert api.call("GET", f"{UC}/catalogs/{scenario.catalog}")[
            "metastore_id"] == metastore_id, "1. the catalog made in it"
        group_id = str(outputs["account_groups"]["analysts"])
        in_workspace = api.call("GET", f"/api/2.0/preview/scim/v2/Groups/{group_id}")
        assert sorted(e["value"] for e in in_workspace.get("entitlements") or []) == [
            "databricks-sql-access", "workspace-access"], "1. entitlements in the workspace"
        assert scenario.grants("catalog", scenario.catalog) == {
            scenario.group: ["BROWSE", "USE_CATALOG"]}, "1. granted on the catalog"
        job_id = outputs["jobs"][f"refresh-{scenario.suffix}"]
        acl = api.call("GET", f"/api/2.0/permissions/jobs/{job_id}")["access_control_list"]
        assert {(a.get("group_name"), p["permission_level"]) for a in acl
                for p in a["all_permissions"] if a.get("group_name") == scenario.group} == {
            (scenario.group, "CAN_MANAGE_RUN")}, "1. may run the job"
        assert_no_changes(scenario.stack, scenario.info, "1.")

    def test_2_grants_on_a_table_the_teams_pipeline_made_go_up_then_no_changes(
        self, scenario: Scenario
    ) -> None:
        table = f"{scenario.catalog}.raw.orders"
        scenario.api.call("POST", f"{UC}/tables", json={
            "name": "orders", "catalog_name": scenario.catalog, "schema_name": "raw",
            "table_type": "EXTERNAL", "data_source_format": "DELTA",
            "storage_location": f"abfss://lake@lake.dfs.core.windows.net/{scenario.suffix}"})
        reconfigure(scenario, declared(scenario.info, scenario.suffix, table))
        scenario.stack.up()
        assert scenario.grants("table", table) == {scenario.group: ["SELECT"]}, "2."
        assert_no_changes(scenario.stack, scenario.info, "2.")

    def test_3_destroy_takes_it_all_down_in_order(self, scenario: Scenario) -> None:
        outputs = scenario.stack.outputs()
        group_id = str(outputs["account_groups"]["analysts"])
        metastore_id = outputs["metastores"][f"primary-{scenario.suffix}"]
        scenario.stack.destroy()
        api = scenario.api
        assert api.status_code(f"{UC}/catalogs/{scenario.catalog}") == 404, "3. the catalog"
        assert api.status_code(f"{UC}/tables/{scenario.catalog}.raw.orders") == 404, "3. its table"
        assert api.status_code(f"/api/2.0/accounts/{ACCOUNT_ID}/scim/v2/Groups/{group_id}"
                          ) == 404, "3. the account's group"
        assert api.status_code(f"{UC}/current-metastore-assignment") == 404, "3. unassigned"
        assert api.status_code(f"{UC}/metastores/{metastore_id}") == 404, "3. the metastore"
