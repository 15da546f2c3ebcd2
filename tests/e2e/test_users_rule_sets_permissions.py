"""User, AccessControlRuleSet and Permissions at full reach (token usage, a notebook by its
workspace path) in one stack under the real engine against the emulator, in the public wire
form: up, a no-op up without writes, in-place updates and a replacement, drift found by
refresh and undone by up, destroy, and import by id with no diff.

One stack walks through the steps, a test each: a failure names its step, and the steps
after it do not run."""

from __future__ import annotations

import base64
import copy
import dataclasses
import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import (
    PlatformApi,
    StackFactory,
    assert_no_changes,
    import_stack,
    preview_ops,
    reconfigure,
    refreshed,
    write_config,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

SCIM = "/api/2.0/preview/scim/v2"
RULE_SETS = "/api/2.0/preview/accounts/access-control/rule-sets"
ACCOUNT = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"  # the emulator's account (initial data)
RUNNER_APP = "a4caea01-07ec-4cf9-8861-e326be8a1c8f"  # a registered application
RULE_SET = f"accounts/{ACCOUNT}/servicePrincipals/{RUNNER_APP}/ruleSets/default"
USER_ROLE = "roles/servicePrincipal.user"
MANAGER_ROLE = "roles/servicePrincipal.manager"
PATCH_OP = ["urn:ietf:params:scim:api:messages:2.0:PatchOp"]

KINDS = {
    "e2e-user": "User",
    "e2e-runner": "ServicePrincipal",
    "e2e-runner-roles": "AccessControlRuleSet",
    "e2e-token-usage": "Permissions",
    "e2e-notebook-runners": "Permissions",
}


def declared(suffix: str, notebook: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "users": [{
            "name": "e2e-user", "user_name": f"e2e-{suffix}@example.com",
            "display_name": "E2E User", "entitlements": ["workspace-access"],
        }],
        "servicePrincipals": [{"name": "e2e-runner", "application_id": RUNNER_APP}],
        "accessControlRuleSets": [{
            "name": "e2e-runner-roles", "account_id": ACCOUNT, "service_principal": "e2e-runner",
            "grant_rules": [{"role": USER_ROLE, "principals": ["groups/data-engineers"]}],
        }],
        "permissions": [
            {"name": "e2e-token-usage", "authorization": "tokens",
             "access_controls": [{"group_name": "analysts", "permission_level": "CAN_USE"}]},
            {"name": "e2e-notebook-runners", "notebook_path": notebook,
             "access_controls": [{"group_name": "analysts", "permission_level": "CAN_RUN"}]},
        ],
    }


class Workspace(PlatformApi):
    def user(self, user_name: str) -> dict[str, Any] | None:
        listed = self.call("GET", f"{SCIM}/Users",
                           params={"filter": f'userName eq "{user_name}"'})["Resources"]
        return listed[0] if listed else None

    def rules(self) -> list[dict[str, Any]]:
        return self.call("GET", RULE_SETS, params={"name": RULE_SET, "etag": ""}).get(
            "grant_rules") or []

    def levels(self, path: str) -> dict[str, str]:
        """group or user -> its direct level on the object at a permissions path"""
        answer = self.call("GET", f"/api/2.0/permissions/{path}")
        return {
            e.get("group_name") or e.get("user_name") or e["service_principal_name"]: p[
                "permission_level"]
            for e in answer.get("access_control_list") or []
            for p in e.get("all_permissions") or [] if not p.get("inherited")
        }

    def notebook_id(self, path: str) -> str:
        return str(self.call("GET", "/api/2.0/workspace/get-status",
                             params={"path": path})["object_id"])

    def put_notebook(self, path: str) -> None:
        self.call("POST", "/api/2.0/workspace/mkdirs", json={"path": path.rsplit("/", 1)[0]})
        self.call("POST", "/api/2.0/workspace/import", json={
            "path": path, "format": "SOURCE", "language": "PYTHON", "overwrite": True,
            "content": base64.b64encode(b"print('demo')\n").decode()})


def preview_with_warnings(stack: PulumiCli) -> tuple[dict[str, str], str]:
    """One `pulumi preview --json`: the op of each resource of KINDS by name, and the
    warnings (the provider host sends the engine a kind's as a warning of its resource)."""
    document = json.loads(stack.preview("--json").stdout)
    steps = {
        step["urn"].split("::")[-1]: step["op"]
        for step in document.get("steps", [])
        if step["urn"].split("::")[-1] in KINDS
    }
    warnings = "\n".join(
        d.get("message", "") for d in document.get("diagnostics", [])
        if d.get("severity") == "warning"
    )
    return steps, warnings


@dataclasses.dataclass
class Lifecycle:
    suffix: str
    notebook: str
    workspace: Workspace
    stack: PulumiCli
    objects: dict[str, Any]


@pytest.fixture(scope="class")
def lifecycle(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Lifecycle:
    suffix = uuid.uuid4().hex[:6]
    workspace = Workspace(emulator)
    notebook = f"/Workspace/Shared/e2e-{suffix}/ingest"
    workspace.put_notebook(notebook)
    objects = declared(suffix, notebook)
    stack = workspace_stack(wire_form="public", **objects)
    return Lifecycle(suffix, notebook, workspace, stack, objects)


@pytest.mark.steps
class TestUsersRuleSetsPermissions:
    def test_1_up_makes_them_as_declared(self, lifecycle: Lifecycle, emulator: EmulatorInfo
                                         ) -> None:
        steps, warnings = preview_with_warnings(lifecycle.stack)
        assert steps == {name: "create" for name in KINDS}, "1. preview"
        # The principal is made in the same up: its rule set will hold its creator's (the
        # deployer's) manager rule, which the declared rules replace; the preview says so.
        assert (f"servicePrincipals/{emulator.client_id} ({MANAGER_ROLE}) lose(s) the role"
                in warnings), warnings
        lifecycle.stack.up()
        workspace = lifecycle.workspace
        user = workspace.user(f"e2e-{lifecycle.suffix}@example.com")
        assert user and user["displayName"] == "E2E User", "1. up: user"
        assert workspace.rules() == [
            {"role": USER_ROLE, "principals": ["groups/data-engineers"]}], "1. up: rule set"
        assert workspace.levels("authorization/tokens") == {"analysts": "CAN_USE"}
        notebook = f"notebooks/{workspace.notebook_id(lifecycle.notebook)}"
        assert workspace.levels(notebook) == {"analysts": "CAN_RUN"}, "1. up: by path"

    def test_2_a_second_up_changes_nothing(self, lifecycle: Lifecycle) -> None:
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "2.")

    def test_3_in_place_updates_and_a_replacement(self, lifecycle: Lifecycle) -> None:
        updated = copy.deepcopy(lifecycle.objects)
        updated["users"][0]["entitlements"] = ["databricks-sql-access", "workspace-access"]
        updated["accessControlRuleSets"][0]["grant_rules"][0]["principals"] = [
            "groups/analysts"]
        updated["permissions"][0]["access_controls"][0]["group_name"] = "data-engineers"
        updated["users"][0]["user_name"] = f"e2e-{lifecycle.suffix}-b@example.com"
        reconfigure(lifecycle, updated)
        assert preview_ops(lifecycle.stack, KINDS) == {
            "e2e-user": ("replace", ["user_name"]),
            "e2e-runner-roles": ("update", None),
            "e2e-token-usage": ("update", None),
        }, "3. preview"
        lifecycle.stack.up()
        workspace = lifecycle.workspace
        assert workspace.user(f"e2e-{lifecycle.suffix}@example.com") is None, "3. old user"
        assert workspace.user(f"e2e-{lifecycle.suffix}-b@example.com"), "3. new user"
        assert workspace.rules()[0]["principals"] == ["groups/analysts"], "3. rule set"
        assert workspace.levels("authorization/tokens") == {"data-engineers": "CAN_USE"}
        assert_no_changes(lifecycle.stack, workspace.info, "3.")

    def test_4_drift_found_by_refresh_and_undone_by_up(self, lifecycle: Lifecycle) -> None:
        workspace = lifecycle.workspace
        user = workspace.user(f"e2e-{lifecycle.suffix}-b@example.com")
        assert user
        workspace.call("PATCH", f"{SCIM}/Users/{user['id']}", json={
            "schemas": PATCH_OP,
            "Operations": [{"op": "replace", "path": "active", "value": False}]})
        etag = workspace.call("GET", RULE_SETS, params={"name": RULE_SET, "etag": ""})["etag"]
        workspace.call("PUT", RULE_SETS, json={
            "name": RULE_SET, "rule_set": {"name": RULE_SET, "grant_rules": [], "etag": etag}})
        notebook = f"notebooks/{workspace.notebook_id(lifecycle.notebook)}"
        workspace.call("PUT", f"/api/2.0/permissions/{notebook}",
                       json={"access_control_list": []})
        read = refreshed(lifecycle.stack)
        assert {name: op for name, (op, _) in read.items() if op != "same"} == {
            "e2e-user": "update", "e2e-runner-roles": "update",
            "e2e-notebook-runners": "update"}, "4. refresh"
        assert read["e2e-user"][1]["active"] is False
        assert read["e2e-runner-roles"][1]["grant_rules"] == []
        lifecycle.stack.up()  # the rule set's recorded etag is the refresh's: no conflict
        assert workspace.user(user["userName"])["active"] is True, "4. up: user"  # type: ignore[index]
        assert workspace.rules()[0]["principals"] == ["groups/analysts"], "4. up: roles"
        assert workspace.levels(notebook) == {"analysts": "CAN_RUN"}, "4. up: notebook"
        assert_no_changes(lifecycle.stack, workspace.info, "4.")

    def test_5_destroy(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.destroy()
        workspace = lifecycle.workspace
        assert workspace.user(f"e2e-{lifecycle.suffix}-b@example.com") is None, "5. user"
        assert workspace.levels("authorization/tokens") == {}, "5. token usage"
        notebook = f"notebooks/{workspace.notebook_id(lifecycle.notebook)}"
        assert workspace.levels(notebook) == {}, "5. notebook"

    def test_6_import_by_id_shows_no_diff(
        self, lifecycle: Lifecycle, emulator: EmulatorInfo, tmp_path: Path
    ) -> None:
        workspace = lifecycle.workspace
        user_name = f"imported-{lifecycle.suffix}@example.com"
        user = workspace.call("POST", f"{SCIM}/Users", json={"userName": user_name})
        workspace.call("POST", f"{SCIM}/ServicePrincipals", json={"applicationId": RUNNER_APP})
        # The principal's creator holds its manager role, as on the service.
        assert workspace.rules() == [{"role": MANAGER_ROLE, "principals": [
            f"servicePrincipals/{emulator.client_id}"]}], "6. the creator's rule"
        etag = workspace.call("GET", RULE_SETS, params={"name": RULE_SET, "etag": ""})["etag"]
        rules = [{"role": USER_ROLE, "principals": ["groups/admins"]}]
        workspace.call("PUT", RULE_SETS, json={
            "name": RULE_SET, "rule_set": {"name": RULE_SET, "grant_rules": rules, "etag": etag}})
        workspace.call("PATCH", "/api/2.0/permissions/authorization/passwords", json={
            "access_control_list": [{"group_name": "analysts", "permission_level": "CAN_USE"}]})
        imports = {
            "User": {"id": user["id"], "args": {"user_name": user_name}},
            "AccessControlRuleSet": {"id": RULE_SET,
                                     "args": {"rule_set_name": RULE_SET, "grant_rules": rules}},
            "Permissions": {"id": "authorization/passwords", "args": {
                "authorization": "passwords",
                "access_controls": [{"group_name": "analysts", "permission_level": "CAN_USE"}]}},
        }
        stack = import_stack(tmp_path, emulator, "public")
        write_config(stack, {"workspace:objects": imports})
        clear_request_log(emulator)
        up = stack.up()
        assert "3 imported" in up.stdout, up.stdout
        assert workspace.writes() == [], "6. import wrote to the workspace"
        stack.preview("--expect-no-changes")
        stack.refresh("--expect-no-changes")
        stack.destroy()
        assert workspace.user(user_name) is None, "6. destroy: user"
        assert workspace.rules() == [], "6. destroy: rule set emptied"
        assert workspace.levels("authorization/passwords") == {}, "6. destroy: passwords"
        principal = workspace.call("GET", f"{SCIM}/ServicePrincipals", params={
            "filter": f'applicationId eq "{RUNNER_APP}"'})["Resources"][0]
        workspace.call("DELETE", f"{SCIM}/ServicePrincipals/{principal['id']}")
