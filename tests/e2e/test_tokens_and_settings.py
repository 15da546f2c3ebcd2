"""Tokens, typed workspace settings and notification destinations under the real engine
against an emulator on a manual clock, in one stack (issue 44): the deployer's token with a
rotation threshold, two typed settings, and a Slack destination that a job's webhook
notification names by its item.

The steps: up, then an up that writes nothing; a setting changed in place; a setting
changed outside the stack shows in `preview --refresh` and the up puts it back; a second
stack imports the settings and the destination with no write and no change; the emulator's
clock moves until the token's lifetime runs under its threshold, and the next up rotates it
(a new token, the old one gone, its value never in the exported state); destroy, the
settings back to a new workspace's."""

from __future__ import annotations

import copy
import dataclasses
import json
import uuid
from typing import Any

import pytest

from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_fixture
from tests.e2e.conftest import (
    TYPE_PREFIX,
    PlatformApi,
    StackFactory,
    assert_no_changes,
    changed_in_preview,
    platform_writes,
    reconfigure,
)
from workspace_emulator.testing import EmulatorInfo, advance_clock, clear_request_log

pytestmark = pytest.mark.engine

# The clock moves only when the test says: the token's lifetime runs low at step 5.
emulator = emulator_fixture("class", clock="manual")

DAY = 86400
SETTINGS = "/api/2.0/settings/types"
HOOK = "https://hooks.example.com/services/T000/B000/e2e-hook-secret"
DBFS, ADMINS = "disable_legacy_dbfs", "restrict_workspace_admins"


def declared(suffix: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "tokens": [{"name": "reporting", "comment": f"reporting {suffix}",
                    "lifetime_seconds": 30 * DAY, "rotate_before_days": 7}],
        "disableLegacyDbfsSetting": [{"name": "default", "value": True}],
        "restrictWorkspaceAdminsSetting": [{"name": "default", "status": "ALLOW_ALL"}],
        "notificationDestinations": [{"name": "alerts-channel",
                                      "display_name": f"Alerts {suffix}",
                                      "config": {"slack": {"url": HOOK}}}],
        "jobs": [{"name": f"nightly-{suffix}", "tasks": [
            {"task_key": "run", "existing_cluster_id": "0101-120000-shared01",
             "notebook_task": {"notebook_path": "/Shared/nightly"}}],
            "webhook_notifications": {"on_failure": [{"id": "alerts-channel"}]}}],
    }


class Workspace(PlatformApi):
    def setting(self, type_name: str) -> dict[str, Any]:
        return dict(self.call("GET", f"{SETTINGS}/{type_name}/names/default"))

    def message(self, type_name: str, field: str) -> dict[str, Any]:
        return dict(self.setting(type_name)[field])

    def tokens(self) -> set[str]:
        return {t["token_id"] for t in self.call("GET", "/api/2.0/token/list")["token_infos"]}


@dataclasses.dataclass
class Scenario:
    info: EmulatorInfo
    suffix: str
    objects: dict[str, Any]
    stack: PulumiCli
    factory: StackFactory

    @property
    def workspace(self) -> Workspace:
        # Signed in afresh: a moved clock expires the sign-in of an earlier one.
        return Workspace(self.info)

    def ids(self) -> dict[str, str]:
        return {r["urn"].split("::")[-1]: r["id"]
                for r in self.stack.export()["deployment"]["resources"]
                if r["type"].startswith(TYPE_PREFIX)}

    def token_value(self) -> str:
        return str(self.stack.outputs(show_secrets=True)["tokens"]["reporting"]["token_value"])


@pytest.fixture(scope="class")
def scenario(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    suffix = uuid.uuid4().hex[:6]
    objects = declared(suffix)
    stack = workspace_stack(wire_form="public", **objects)
    return Scenario(emulator, suffix, objects, stack, workspace_stack)


@pytest.mark.steps
class TestTokensSettingsAndDestinations:
    def test_1_up_makes_each_object_as_declared_then_writes_nothing(
        self, scenario: Scenario
    ) -> None:
        scenario.stack.up()
        ids, workspace = scenario.ids(), scenario.workspace
        assert ids["reporting"] in workspace.tokens(), "1. the token"
        assert workspace.message(DBFS, DBFS) == {"value": True}, "1. DBFS setting"
        assert workspace.message(ADMINS, ADMINS) == {"status": "ALLOW_ALL"}, "1. admins"
        destination = workspace.call(
            "GET", f"/api/2.0/notification-destinations/{ids['alerts-channel']}")
        assert destination["config"]["slack"]["url_set"] is True, "1. the destination"
        job = workspace.call("GET", "/api/2.2/jobs/get",
                             params={"job_id": ids[f"nightly-{scenario.suffix}"]})["settings"]
        assert job["webhook_notifications"] == {"on_failure": [{"id": ids["alerts-channel"]}]}
        exported = json.dumps(scenario.stack.export())
        assert scenario.token_value() not in exported, "1. the token's value in the state"
        assert "e2e-hook-secret" not in exported, "1. the hook's URL in the state"
        assert_no_changes(scenario.stack, scenario.info, "1.")

    def test_2_a_setting_changes_in_place(self, scenario: Scenario) -> None:
        objects = copy.deepcopy(scenario.objects)
        objects["restrictWorkspaceAdminsSetting"][0]["status"] = "RESTRICT_TOKENS_AND_JOB_RUN_AS"
        reconfigure(scenario, objects)
        assert changed_in_preview(scenario.stack) == {"default": "update"}, "2. in place"
        clear_request_log(scenario.info)
        scenario.stack.up()
        assert platform_writes(scenario.info) == [
            f"PATCH {SETTINGS}/{ADMINS}/names/default"], "2. one write"
        assert scenario.workspace.message(ADMINS, ADMINS) == {
            "status": "RESTRICT_TOKENS_AND_JOB_RUN_AS"}, "2. the setting"
        assert_no_changes(scenario.stack, scenario.info, "2.")

    def test_3_a_setting_changed_outside_shows_in_a_refreshed_preview_and_is_put_back(
        self, scenario: Scenario
    ) -> None:
        workspace = scenario.workspace
        etag = workspace.setting(DBFS)["etag"]
        workspace.call("PATCH", f"{SETTINGS}/{DBFS}/names/default", json={
            "allow_missing": True, "field_mask": f"{DBFS}.value",
            "setting": {"etag": etag, DBFS: {"value": False}}})
        assert changed_in_preview(scenario.stack) == {}, "3. unrefreshed: the record's view"
        assert changed_in_preview(scenario.stack, "--refresh") == {"default": "update"}, "3."
        scenario.stack.up("--refresh")
        assert scenario.workspace.message(DBFS, DBFS) == {"value": True}, "3. put back"
        assert_no_changes(scenario.stack, scenario.info, "3.")

    def test_4_a_second_stack_imports_the_settings_and_destination_with_no_change(
        self, scenario: Scenario
    ) -> None:
        ids = scenario.ids()
        imported = {
            "disableLegacyDbfsSetting": [{**scenario.objects["disableLegacyDbfsSetting"][0],
                                          "import": DBFS}],
            "restrictWorkspaceAdminsSetting": [
                {**scenario.objects["restrictWorkspaceAdminsSetting"][0], "import": ADMINS}],
            "notificationDestinations": [{**scenario.objects["notificationDestinations"][0],
                                          "import": ids["alerts-channel"]}],
        }
        importer = scenario.factory(wire_form="public", **imported)
        clear_request_log(scenario.info)
        up = importer.up()
        assert "3 imported" in up.stdout, up.stdout
        assert platform_writes(scenario.info) == [], "4. the import wrote to the workspace"
        assert_no_changes(importer, scenario.info, "4. after the import")

    def test_5_the_token_rotates_once_its_lifetime_runs_under_the_threshold(
        self, scenario: Scenario
    ) -> None:
        old_id, old_value = scenario.ids()["reporting"], scenario.token_value()
        advance_clock(scenario.info, 22 * DAY)  # 8 days left of 30: above the 7
        assert_no_changes(scenario.stack, scenario.info, "5. above the threshold")
        advance_clock(scenario.info, 2 * DAY)  # 6 days left
        assert changed_in_preview(scenario.stack) == {"reporting": "replace"}, "5. planned"
        scenario.stack.up()
        new_id, new_value = scenario.ids()["reporting"], scenario.token_value()
        tokens = scenario.workspace.tokens()
        assert new_id != old_id and new_id in tokens, "5. a new token"
        assert old_id not in tokens, "5. the old one deleted"
        assert new_value != old_value, "5. a new value"
        exported = json.dumps(scenario.stack.export())
        assert new_value not in exported and old_value not in exported, "5. value in state"
        assert_no_changes(scenario.stack, scenario.info, "5. after the rotation")

    def test_6_destroy_removes_each_object_and_gives_the_settings_defaults_back(
        self, scenario: Scenario
    ) -> None:
        ids = scenario.ids()
        scenario.stack.destroy()
        workspace = scenario.workspace
        assert ids["reporting"] not in workspace.tokens(), "6. the token"
        assert workspace.message(DBFS, DBFS) == {"value": False}, "6. DBFS default"
        assert workspace.message(ADMINS, ADMINS) == {"status": "ALLOW_ALL"}, "6. default"
        response = workspace.call("GET", "/api/2.0/notification-destinations")
        assert ids["alerts-channel"] not in {d["id"] for d in response.get("results") or []}
