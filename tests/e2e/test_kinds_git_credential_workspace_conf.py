"""GitCredential and WorkspaceConf in one stack under the real engine, with an IP access
list holding loopback: preview, up, a no-op up without writes, in-place updates (a token
rotation, a setting), drift found by refresh and undone by up, a destroy that gives the
settings back their values before, and import by id with no diff. The tie between the
kinds: a call from an address outside the allow list is refused only once the stack has
switched `enableIpAccessLists` on (the emulator judges the X-Forwarded-For address here),
and served again after the destroy. The token is in plain text nowhere in the state.

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
import requests

from providers.workspace.git_credentials_api import GitCredentialsApi
from providers.workspace.workspace_conf_api import WorkspaceConfApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client, emulator_fixture
from tests.e2e.conftest import (
    TYPE_PREFIX,
    PlatformApi,
    StackFactory,
    assert_no_changes,
    import_stack,
    preview_steps,
    reconfigure,
    refreshed,
    write_config,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

# The emulator judges IP access lists by the X-Forwarded-For address: calls can come from
# outside the allow list (the engine's own come from loopback, with no such header).
emulator = emulator_fixture("class", trust_forwarded_for=True)

OUTSIDER = "192.0.2.200"
TOKENS = ("ghp_" + "1" * 36, "ghp_" + "2" * 36)  # made up: the first, then the rotated one
KINDS = {"e2e-github": "GitCredential", "e2e-loopback": "IpAccessList",
         "e2e-settings": "WorkspaceConf"}
SETTINGS = ("enableIpAccessLists", "maxTokenLifetimeDays", "enableWebTerminal")


def declared(suffix: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "gitCredentials": [{"name": "e2e-github", "git_provider": "gitHub",
                            "git_username": "deploy-bot", "personal_access_token": TOKENS[0]}],
        "ipAccessLists": [{"name": "e2e-loopback", "label": f"loopback-{suffix}",
                           "list_type": "ALLOW", "ip_addresses": ["127.0.0.1"]}],
        "workspaceConf": [{"name": "e2e-settings", "settings": {
            "enableIpAccessLists": "true", "maxTokenLifetimeDays": "90"}}],
    }


class Workspace(PlatformApi):
    def credentials(self) -> list[dict[str, Any]]:
        return self.call("GET", "/api/2.0/git-credentials").get("credentials") or []

    def settings(self) -> dict[str, Any]:
        return self.call("GET", "/api/2.0/workspace-conf", params={"keys": ",".join(SETTINGS)})

    def outsider_served(self) -> bool:
        """Whether a call from an address in no allow list is served."""
        response = requests.get(f"{self.info.base_url}/api/2.0/clusters/list", timeout=10,
                                headers={**self.headers, "X-Forwarded-For": OUTSIDER})
        assert response.status_code in (200, 403), response.text
        return response.status_code == 200

    def snapshot(self) -> dict[str, Any]:
        return {"credentials": self.credentials(), "settings": self.settings()}


@dataclasses.dataclass
class Lifecycle:
    workspace: Workspace
    before: dict[str, Any]
    stack: PulumiCli
    objects: dict[str, Any]


@pytest.fixture(scope="class")
def lifecycle(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Lifecycle:
    workspace = Workspace(emulator)
    objects = declared(uuid.uuid4().hex[:6])
    stack = workspace_stack(wire_form="public", **objects)
    return Lifecycle(workspace, workspace.snapshot(), stack, objects)


def ops(stack: PulumiCli) -> dict[str, str]:
    return {name: step["op"] for name, step in preview_steps(stack, KINDS).items()}


def ids(stack: PulumiCli) -> dict[str, str]:
    return {r["urn"].split("::")[-1]: r["id"] for r in stack.export()["deployment"]["resources"]
            if r["type"].startswith(TYPE_PREFIX)}


@pytest.mark.steps
class TestGitCredentialWorkspaceConfLifecycle:
    def test_1_preview_lists_the_creates(self, lifecycle: Lifecycle) -> None:
        assert ops(lifecycle.stack) == dict.fromkeys(KINDS, "create"), "1. preview"
        assert lifecycle.workspace.snapshot() == lifecycle.before, "1. preview changed things"
        assert lifecycle.workspace.outsider_served(), "1. lists alone change nothing"

    def test_2_up_switches_the_lists_on(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.up()
        workspace = lifecycle.workspace
        [credential] = workspace.credentials()
        assert (credential["git_provider"], credential["git_username"]) == (
            "gitHub", "deploy-bot"), "2. up: credential"
        assert workspace.settings() == {"enableIpAccessLists": "true",
                                        "maxTokenLifetimeDays": "90",
                                        "enableWebTerminal": "false"}, "2. up: settings"
        assert not workspace.outsider_served(), "2. up: an outsider is refused now"
        exported = json.dumps(lifecycle.stack.export())
        assert TOKENS[0] not in exported, "2. the token in plain text in the state"

    def test_3_a_second_up_changes_nothing(self, lifecycle: Lifecycle) -> None:
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "3.")

    def test_4_rotation_and_settings_in_place(self, lifecycle: Lifecycle) -> None:
        updated = copy.deepcopy(lifecycle.objects)
        updated["gitCredentials"][0]["personal_access_token"] = TOKENS[1]
        updated["workspaceConf"][0]["settings"]["maxTokenLifetimeDays"] = "30"
        reconfigure(lifecycle, updated)
        assert ops(lifecycle.stack) == {"e2e-github": "update", "e2e-settings": "update"}, (
            "4. preview: two in-place updates")
        before = ids(lifecycle.stack)
        clear_request_log(lifecycle.workspace.info)
        lifecycle.stack.up()
        assert ids(lifecycle.stack) == before, "4. up: same objects"
        writes = lifecycle.workspace.writes()
        assert not [w for w in writes if w.startswith(("POST", "DELETE"))], writes
        assert lifecycle.workspace.settings()["maxTokenLifetimeDays"] == "30"
        assert TOKENS[1] not in json.dumps(lifecycle.stack.export()), "4. token in the state"
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "4.")

    def test_5_drift_found_by_refresh_and_undone_by_up(self, lifecycle: Lifecycle) -> None:
        workspace = lifecycle.workspace
        [credential] = workspace.credentials()
        workspace.call("PATCH", f"/api/2.0/git-credentials/{credential['credential_id']}",
                       json={"git_provider": "gitHub", "git_username": "someone"})
        workspace.call("PATCH", "/api/2.0/workspace-conf", json={"maxTokenLifetimeDays": "60"})
        read = refreshed(lifecycle.stack)
        assert {name: op for name, (op, _) in read.items()} == {
            "e2e-github": "update", "e2e-loopback": "same", "e2e-settings": "update"}, "5."
        assert read["e2e-github"][1]["git_username"] == "someone"
        assert read["e2e-settings"][1]["settings"]["maxTokenLifetimeDays"] == "60"
        lifecycle.stack.up()
        assert workspace.credentials()[0]["git_username"] == "deploy-bot", "5. up: user"
        assert workspace.settings()["maxTokenLifetimeDays"] == "30", "5. up: setting"
        assert_no_changes(lifecycle.stack, workspace.info, "5.")

    def test_6_destroy_gives_the_settings_back(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.destroy()
        assert lifecycle.workspace.snapshot() == lifecycle.before, "6. destroy"
        assert lifecycle.workspace.outsider_served(), "6. destroy: the lists are off again"

    def test_7_import_by_id_shows_no_diff(
        self, lifecycle: Lifecycle, emulator: EmulatorInfo, tmp_path: Path
    ) -> None:
        client = emulator_client(emulator, "public")
        made = GitCredentialsApi(client).create({"git_provider": "gitLab", "git_username": "bot",
                                              "personal_access_token": TOKENS[0]})
        WorkspaceConfApi(client).set({"enableWebTerminal": "true"})
        imports = {
            "GitCredential": {"id": str(made["credential_id"]), "args": {
                "git_provider": "gitLab", "git_username": "bot",
                "personal_access_token": TOKENS[0]}},
            "WorkspaceConf": {"id": "enableWebTerminal",
                              "args": {"settings": {"enableWebTerminal": "true"}}},
        }
        stack = import_stack(tmp_path, emulator, "public")
        write_config(stack, {"workspace:objects": imports})
        clear_request_log(emulator)
        up = stack.up()
        assert "2 imported" in up.stdout, up.stdout
        assert lifecycle.workspace.writes() == [], "7. import wrote to the workspace"
        stack.preview("--expect-no-changes")
        stack.refresh("--expect-no-changes")
        stack.destroy()
        assert lifecycle.workspace.credentials() == [], "7. destroy: credential"
        # The settings an import found are the ones a destroy leaves.
        assert lifecycle.workspace.settings()["enableWebTerminal"] == "true", "7. destroy"
        WorkspaceConfApi(client).set({"enableWebTerminal": "false"})
