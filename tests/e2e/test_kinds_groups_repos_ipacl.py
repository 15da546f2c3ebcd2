"""Group, GroupMember, Repo and IpAccessList in one stack under the real engine against the
emulator, in both wire forms: preview, up, a no-op up without writes, in-place updates,
replacements, drift found by refresh and undone by up, import by id with no diff, and a
destroy that leaves the workspace as it was.

One stack per wire form walks through the steps, a test each (a class per wire form): a
failure names its step, and the steps after it do not run."""

from __future__ import annotations

import copy
import dataclasses
import json
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from providers.identity.groups_api import GroupsApi
from providers.workspace.ip_access_lists_api import IpAccessListsApi
from providers.workspace.repos_api import ReposApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import (
    TYPE_PREFIX,
    PlatformApi,
    StackFactory,
    assert_no_changes,
    import_stack,
    preview_ops,
    reconfigure,
    refreshed,
    write_config,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

SCIM = "/api/2.0/preview/scim/v2"
ALICE = "200000000000001"
BOB = "200000000000002"
PIPELINES_URL = "https://github.com/example-org/data-pipelines.git"
MODELS_URL = "https://github.com/example-org/ml-models.git"
HEADS = {
    "develop": "b2c3d4e5f60718293a4b5c6d7e8f901234567890",
    "v1.0.0": "d4e5f60718293a4b5c6d7e8f9012345678901234",
}

# Resource name -> kind, one of each.
KINDS = {
    "e2e-team": "Group",
    "bob-in-team": "GroupMember",
    "e2e-pipelines": "Repo",
    "e2e-office": "IpAccessList",
}


def declared(suffix: str) -> dict[str, list[dict[str, Any]]]:
    return {
        "groups": [
            {
                "name": "e2e-team",
                "display_name": f"e2e-team-{suffix}",
                "entitlements": ["workspace-access"],
            }
        ],
        "groupMembers": [{"name": "bob-in-team", "group": "e2e-team", "user": "bob@example.com"}],
        "repos": [
            {
                "name": "e2e-pipelines",
                "url": PIPELINES_URL,
                "provider": "gitHub",
                "path": f"/Repos/e2e/pipelines-{suffix}",
                "branch": "develop",
                "sparse_checkout": {"patterns": ["jobs"]},
            }
        ],
        "ipAccessLists": [
            {
                "name": "e2e-office",
                "label": f"e2e-office-{suffix}",
                "list_type": "ALLOW",
                "ip_addresses": ["127.0.0.1", "203.0.113.0/24"],
            }
        ],
    }


# --- the emulator, read directly ---------------------------------------------------------


class Workspace(PlatformApi):
    """Groups, repos and IP access lists, read over the platform API."""

    def groups(self) -> dict[str, dict[str, Any]]:
        """display name -> {id, entitlements, members}"""
        listed = self.call("GET", f"{SCIM}/Groups")["Resources"]
        return {
            g["displayName"]: {
                "id": g["id"],
                "entitlements": sorted(e["value"] for e in g.get("entitlements") or []),
                "members": sorted(m["value"] for m in g.get("members") or []),
            }
            for g in listed
        }

    def repos(self) -> dict[str, dict[str, Any]]:
        """path -> the repo"""
        found: dict[str, dict[str, Any]] = {}
        params: dict[str, str] = {}
        while True:
            page = self.call("GET", "/api/2.0/repos", params=params)
            found.update({r["path"]: r for r in page["repos"]})
            if not page.get("next_page_token"):
                return found
            params = {"next_page_token": page["next_page_token"]}

    def ip_lists(self) -> dict[str, dict[str, Any]]:
        """label -> the list, without its change times"""
        listed = self.call("GET", "/api/2.0/ip-access-lists").get("ip_access_lists") or []
        return {
            item["label"]: {k: v for k, v in item.items() if k not in ("updated_at", "updated_by")}
            for item in listed
        }

    def snapshot(self) -> dict[str, Any]:
        return {"groups": self.groups(), "repos": self.repos(), "ip_lists": self.ip_lists()}


# --- the engine's answers ----------------------------------------------------------------


def calls_by_area(info: EmulatorInfo) -> Counter[str]:
    """Platform calls of the request log by API area (groups, users, repos, ...)."""
    areas: Counter[str] = Counter()
    for entry in request_log(info):
        if entry["service"] != "platform":
            continue
        path = entry["path"].removeprefix(SCIM).removeprefix("/api/2.0")
        areas[path.strip("/").split("/")[0].lower()] += 1
    return areas


# --- the scenario ------------------------------------------------------------------------


@dataclasses.dataclass
class Lifecycle:
    wire_form: str
    suffix: str
    workspace: Workspace
    before: dict[str, Any]
    stack: PulumiCli
    objects: dict[str, Any]


@pytest.fixture(scope="class")
def lifecycle(
    class_wire_form: str, workspace_stack: StackFactory, emulator: EmulatorInfo
) -> Lifecycle:
    suffix = uuid.uuid4().hex[:6]
    workspace = Workspace(emulator)
    objects = declared(suffix)
    stack = workspace_stack(wire_form=class_wire_form, **objects)
    return Lifecycle(class_wire_form, suffix, workspace, workspace.snapshot(), stack, objects)


@pytest.mark.steps
class GroupsReposIpAclLifecycle:
    wire_form: str

    def test_1_preview_lists_the_creates(self, lifecycle: Lifecycle) -> None:
        assert preview_ops(lifecycle.stack, KINDS) == \
            {name: ("create", None) for name in KINDS}, "1. preview"
        assert lifecycle.workspace.snapshot() == lifecycle.before, "1. preview changed things"

    def test_2_up_makes_the_objects_as_declared(self, lifecycle: Lifecycle) -> None:
        workspace, suffix = lifecycle.workspace, lifecycle.suffix
        clear_request_log(workspace.info)
        lifecycle.stack.up()
        calls = calls_by_area(workspace.info)
        # One create call per kind, and few reads: the group's create, the membership's
        # PATCH (after one user lookup), the repo's clone, checkout and read back.
        assert calls["groups"] == 2, f"2. up: group and membership calls {calls}"
        assert calls["users"] == 1, f"2. up: one lookup of the user {calls}"
        assert calls["repos"] == 3, f"2. up: clone, checkout, get {calls}"
        assert calls["ip-access-lists"] == 1, f"2. up: one create of the list {calls}"
        group = workspace.groups()[f"e2e-team-{suffix}"]
        assert group["entitlements"] == ["workspace-access"], "2. up: group"
        assert group["members"] == [BOB], "2. up: membership"
        repo = workspace.repos()[f"/Repos/e2e/pipelines-{suffix}"]
        assert (repo["branch"], repo["sparse_checkout"]) == ("develop", {"patterns": ["jobs"]})
        ip_list = workspace.ip_lists()[f"e2e-office-{suffix}"]
        assert ip_list["ip_addresses"] == ["127.0.0.1", "203.0.113.0/24"], "2. up: list"
        assert ip_list["enabled"] is True
        sizes = {
            r["urn"].split("::")[-1]: len(json.dumps(r))
            for r in lifecycle.stack.export()["deployment"]["resources"]
            if r["type"].startswith(TYPE_PREFIX)
        }
        assert set(sizes) == set(KINDS) and max(sizes.values()) < 4096, f"state sizes {sizes}"
        print(f"calls in up ({lifecycle.wire_form}): {dict(calls)}; state bytes: {sizes}")

    def test_3_a_second_up_changes_nothing(self, lifecycle: Lifecycle) -> None:
        assert_no_changes(lifecycle.stack, lifecycle.workspace.info, "3.")

    def test_4_in_place_updates(self, lifecycle: Lifecycle) -> None:
        updated = copy.deepcopy(lifecycle.objects)
        updated["groups"][0]["entitlements"] = ["databricks-sql-access", "workspace-access"]
        repo = updated["repos"][0]
        del repo["branch"]
        repo["tag"] = "v1.0.0"
        repo["sparse_checkout"]["patterns"] = ["jobs", "lib"]
        updated["ipAccessLists"][0]["ip_addresses"] = ["127.0.0.1", "198.51.100.0/24"]
        updated["ipAccessLists"][0]["enabled"] = False
        reconfigure(lifecycle, updated)
        assert preview_ops(lifecycle.stack, KINDS) == {
            "e2e-team": ("update", None),
            "e2e-pipelines": ("update", None),
            "e2e-office": ("update", None),
        }, "4. preview: three in-place updates, the membership untouched"
        ids = self._ids(lifecycle.stack)
        clear_request_log(lifecycle.workspace.info)
        lifecycle.stack.up()
        assert self._ids(lifecycle.stack) == ids, "4. up: same objects"
        assert not [w for w in lifecycle.workspace.writes() if w.startswith(("POST", "DELETE"))
                    and "repos/" not in w], "4. up: nothing made or deleted"
        workspace, suffix = lifecycle.workspace, lifecycle.suffix
        group = workspace.groups()[f"e2e-team-{suffix}"]
        assert group["entitlements"] == ["databricks-sql-access", "workspace-access"]
        assert group["members"] == [BOB], "4. up: the group update kept its member"
        repo_now = workspace.repos()[f"/Repos/e2e/pipelines-{suffix}"]
        assert repo_now["head_commit_id"] == HEADS["v1.0.0"] and "branch" not in repo_now
        assert repo_now["sparse_checkout"] == {"patterns": ["jobs", "lib"]}
        ip_list = workspace.ip_lists()[f"e2e-office-{suffix}"]
        assert (ip_list["enabled"], ip_list["ip_addresses"]) == (
            False, ["127.0.0.1", "198.51.100.0/24"])
        assert_no_changes(lifecycle.stack, workspace.info, "4.")

    def test_5_replacements(self, lifecycle: Lifecycle) -> None:
        replaced = copy.deepcopy(lifecycle.objects)
        member = replaced["groupMembers"][0]
        del member["user"]
        member["member_id"] = ALICE
        replaced["repos"][0]["url"] = MODELS_URL
        del replaced["repos"][0]["tag"]
        replaced["repos"][0]["branch"] = "experiment"
        reconfigure(lifecycle, replaced)
        assert preview_ops(lifecycle.stack, KINDS) == {
            "bob-in-team": ("replace", ["member_id"]),
            "e2e-pipelines": ("replace", ["url"]),
        }, "5. preview: the membership and the repo are replaced"
        lifecycle.stack.up()
        workspace, suffix = lifecycle.workspace, lifecycle.suffix
        assert workspace.groups()[f"e2e-team-{suffix}"]["members"] == [ALICE], "5. up: member"
        repo = workspace.repos()[f"/Repos/e2e/pipelines-{suffix}"]
        assert (repo["url"], repo["branch"]) == (MODELS_URL, "experiment"), "5. up: repo"
        assert_no_changes(lifecycle.stack, workspace.info, "5.")

    def test_6_drift_found_by_refresh_and_undone_by_up(self, lifecycle: Lifecycle) -> None:
        workspace, suffix = lifecycle.workspace, lifecycle.suffix
        group = workspace.groups()[f"e2e-team-{suffix}"]
        patch = {"schemas": ["urn:ietf:params:scim:api:messages:2.0:PatchOp"]}
        workspace.call("PATCH", f"{SCIM}/Groups/{group['id']}", json={**patch, "Operations": [
            {"op": "replace", "path": "entitlements", "value": []},
            {"op": "remove", "path": f'members[value eq "{ALICE}"]'},
        ]})
        repo = workspace.repos()[f"/Repos/e2e/pipelines-{suffix}"]
        workspace.call("PATCH", f"/api/2.0/repos/{repo['id']}", json={"branch": "main"})
        ip_list = workspace.ip_lists()[f"e2e-office-{suffix}"]
        workspace.call("PATCH", f"/api/2.0/ip-access-lists/{ip_list['list_id']}",
                       json={"label": "renamed"})
        read = refreshed(lifecycle.stack)
        assert {name: op for name, (op, _) in read.items()} == {
            "e2e-team": "update",
            "bob-in-team": "delete",
            "e2e-pipelines": "update",
            "e2e-office": "update",
        }, "6. refresh: three read as changed, the membership as gone"
        assert read["e2e-team"][1]["entitlements"] == []
        assert read["e2e-pipelines"][1]["branch"] == "main"
        assert read["e2e-office"][1]["label"] == "renamed"
        lifecycle.stack.up()
        group = workspace.groups()[f"e2e-team-{suffix}"]
        assert group["members"] == [ALICE] and len(group["entitlements"]) == 2, "6. up"
        assert workspace.repos()[repo["path"]]["branch"] == "experiment", "6. up: branch"
        assert f"e2e-office-{suffix}" in workspace.ip_lists(), "6. up: label restored"
        assert_no_changes(lifecycle.stack, workspace.info, "6.")

    def test_7_destroy_leaves_the_workspace_as_before(self, lifecycle: Lifecycle) -> None:
        lifecycle.stack.destroy()
        assert lifecycle.workspace.snapshot() == lifecycle.before, "7. destroy"

    def test_8_import_by_id_shows_no_diff(
        self, lifecycle: Lifecycle, emulator: EmulatorInfo, tmp_path: Path
    ) -> None:
        client = emulator_client(emulator, lifecycle.wire_form)
        suffix = uuid.uuid4().hex[:6]
        group = GroupsApi(client).create({"displayName": f"imported-{suffix}"})
        GroupsApi(client).add_member(group["id"], BOB)
        path = f"/Repos/e2e/imported-{suffix}"
        repo = ReposApi(client).create(PIPELINES_URL, "gitHub", path)
        ip_list = IpAccessListsApi(client).create(f"imported-{suffix}", "BLOCK", ["192.0.2.9"])
        imports = {
            "Group": {"id": group["id"], "args": {"display_name": f"imported-{suffix}"}},
            "GroupMember": {
                "id": f"{group['id']}|{BOB}",
                "args": {"group_id": group["id"], "member_id": BOB},
            },
            "Repo": {
                "id": str(repo["id"]),
                "args": {"url": PIPELINES_URL, "provider": "gitHub", "path": path,
                         "branch": "main"},
            },
            "IpAccessList": {
                "id": ip_list["list_id"],
                "args": {"label": f"imported-{suffix}", "list_type": "BLOCK",
                         "ip_addresses": ["192.0.2.9"]},
            },
        }
        stack = import_stack(tmp_path, emulator, lifecycle.wire_form)
        write_config(stack, {"workspace:objects": imports})
        clear_request_log(emulator)
        up = stack.up()
        assert "4 imported" in up.stdout, up.stdout
        assert lifecycle.workspace.writes() == [], "8. import wrote to the workspace"
        stack.preview("--expect-no-changes")
        stack.refresh("--expect-no-changes")
        stack.destroy()
        assert f"imported-{suffix}" not in lifecycle.workspace.groups(), "8. destroy: group"
        assert path not in lifecycle.workspace.repos(), "8. destroy: repo"
        assert f"imported-{suffix}" not in lifecycle.workspace.ip_lists(), "8. destroy: list"

    @staticmethod
    def _ids(stack: PulumiCli) -> dict[str, str]:
        return {
            r["urn"].split("::")[-1]: r["id"]
            for r in stack.export()["deployment"]["resources"]
            if r["type"].startswith(TYPE_PREFIX)
        }


class TestGroupsReposIpAclInThePublicForm(GroupsReposIpAclLifecycle):
    wire_form = "public"
