"""`databricks secrets` (scopes), `ip-access-lists`, `repos`, `workspace get-status`,
`catalogs` and `workspace-bindings` (the legacy catalog API and the securable one)."""

from __future__ import annotations

import json

from tests.cli.cli import Cli
from tests.emulator.support import OTHER_WORKSPACE_IDS, unique

OFFICE_LIST = "4ad2f1c7-0000-4000-8000-000000000001"
PIPELINES_REPO = "3000000000000001"
PIPELINES_PATH = "/Repos/iac/data-pipelines"


# --- secret scopes ---------------------------------------------------------------------------

def test_secret_scopes_create_list_delete(cli: Cli) -> None:
    scope = unique("cli-scope")
    assert cli.ok("secrets", "create-scope", scope) is None
    listed = {s["name"]: s for s in cli.ok("secrets", "list-scopes")}
    assert listed[scope]["backend_type"] == "DATABRICKS"
    again = cli.fails("secrets", "create-scope", scope)
    assert (again.status, again.message) == (400, f"Scope {scope} already exists!")
    assert cli.ok("secrets", "delete-scope", scope) is None
    assert scope not in {s["name"] for s in cli.ok("secrets", "list-scopes")}
    gone = cli.fails("secrets", "delete-scope", scope)
    assert (gone.status, gone.message) == (404, f"Scope {scope} does not exist!")


def test_secret_scope_with_an_initial_manage_principal(cli: Cli) -> None:
    scope = unique("cli-scope")
    cli.ok("secrets", "create-scope", scope, "--initial-manage-principal", "users")
    assert scope in {s["name"] for s in cli.ok("secrets", "list-scopes")}
    cli.ok("secrets", "delete-scope", scope)


# --- IP access lists -------------------------------------------------------------------------

def test_ip_access_lists_list_and_get(cli: Cli) -> None:
    lists = {item["list_id"]: item for item in cli.ok("ip-access-lists", "list")}
    assert lists[OFFICE_LIST]["label"] == "office-network"
    got = cli.ok("ip-access-lists", "get", OFFICE_LIST)["ip_access_list"]
    assert got["ip_addresses"] == ["203.0.113.0/24", "198.51.100.7"]
    assert got["list_type"] == "ALLOW" and got["enabled"] is True


# --- repos -----------------------------------------------------------------------------------

def test_repos_list_every_page_and_by_prefix(cli: Cli) -> None:
    paths = [r["path"] for r in cli.ok("repos", "list")]
    assert paths == ["/Repos/analytics/dashboards", PIPELINES_PATH, "/Repos/iac/ml-models"]
    under_iac = cli.ok("repos", "list", "--path-prefix", "/Repos/iac")
    assert [r["path"] for r in under_iac] == [PIPELINES_PATH, "/Repos/iac/ml-models"]


def test_repos_get_by_id_and_by_path(cli: Cli) -> None:
    by_id = cli.ok("repos", "get", PIPELINES_REPO)
    assert by_id["path"] == PIPELINES_PATH and by_id["branch"] == "main"
    by_path, sent = cli.sent("repos", "get", PIPELINES_PATH)
    assert by_path == by_id
    assert [x.path for x in sent][-2:] == [
        f"/api/2.0/workspace/get-status?path={PIPELINES_PATH}",
        f"/api/2.0/repos/{PIPELINES_REPO}"]


def test_workspace_get_status(cli: Cli) -> None:
    repo = cli.ok("workspace", "get-status", PIPELINES_PATH)
    assert repo["object_type"] == "REPO" and str(repo["object_id"]) == PIPELINES_REPO
    assert cli.ok("workspace", "get-status", "/Repos/iac")["object_type"] == "DIRECTORY"
    missing = cli.fails("workspace", "get-status", "/Shared/nothing")
    assert (missing.status, missing.message) == (404, "Path (/Shared/nothing) doesn't exist.")


def test_repos_get_by_path_refusals(cli: Cli) -> None:
    folder = cli.fails("repos", "get", "/Repos/iac")  # the CLI's own check of object_type
    assert folder.message == 'object at path "/Repos/iac" is not a repo'
    missing = cli.fails("repos", "get", "/Repos/iac/nothing")
    assert missing.status == 404
    assert missing.message == \
        "failed to look up repo by path: Path (/Repos/iac/nothing) doesn't exist."


def test_repos_update_branch_and_tag(cli: Cli) -> None:
    assert cli.ok("repos", "update", PIPELINES_PATH, "--branch", "develop") is None
    develop = cli.ok("repos", "get", PIPELINES_REPO)
    assert develop["branch"] == "develop"
    assert develop["head_commit_id"] == "b2c3d4e5f60718293a4b5c6d7e8f901234567890"
    cli.ok("repos", "update", PIPELINES_REPO, "--tag", "v1.0.0")
    tagged = cli.ok("repos", "get", PIPELINES_REPO)
    assert tagged["head_commit_id"] == "d4e5f60718293a4b5c6d7e8f9012345678901234"
    unknown = cli.fails("repos", "update", PIPELINES_REPO, "--branch", "no-such-branch")
    assert unknown.status == 400 and "does not exist on the remote" in unknown.message
    cli.ok("repos", "update", PIPELINES_REPO, "--branch", "main")
    assert cli.ok("repos", "get", PIPELINES_REPO)["branch"] == "main"


# --- catalogs and workspace bindings ---------------------------------------------------------

def test_catalogs_list_get_update(cli: Cli) -> None:
    assert {"main", "sandbox", "finance"} <= {c["name"] for c in cli.ok("catalogs", "list")}
    sandbox = cli.ok("catalogs", "get", "sandbox")
    assert sandbox["owner"] == "data-engineers" and sandbox["isolation_mode"] == "OPEN"
    updated = cli.ok("catalogs", "update", "sandbox", "--comment", "from the cli",
                     "--isolation-mode", "ISOLATED")
    assert updated["comment"] == "from the cli" and updated["isolation_mode"] == "ISOLATED"
    missing = cli.fails("catalogs", "get", "no_such_catalog")
    assert missing.status == 404


def test_workspace_bindings_legacy_api(cli: Cli) -> None:
    first, second = OTHER_WORKSPACE_IDS[:2]
    assert cli.ok("workspace-bindings", "get", "finance").get("workspaces", []) == []
    assigned = cli.ok("workspace-bindings", "update", "finance", "--json",
                      json.dumps({"assign_workspaces": [first, second]}))
    assert sorted(assigned["workspaces"]) == [first, second]
    left = cli.ok("workspace-bindings", "update", "finance", "--json",
                  json.dumps({"unassign_workspaces": [first]}))
    assert left["workspaces"] == [second]
    assert cli.ok("workspace-bindings", "get", "finance")["workspaces"] == [second]


def test_workspace_bindings_securable_api(cli: Cli) -> None:
    first, second, third = OTHER_WORKSPACE_IDS
    cli.ok("workspace-bindings", "update-bindings", "catalog", "main", "--json", json.dumps({
        "add": [{"workspace_id": first, "binding_type": "BINDING_TYPE_READ_WRITE"},
                {"workspace_id": second, "binding_type": "BINDING_TYPE_READ_ONLY"}]}))
    bindings = cli.ok("workspace-bindings", "get-bindings", "catalog", "main")
    assert {b["workspace_id"]: b["binding_type"] for b in bindings} == {
        first: "BINDING_TYPE_READ_WRITE", second: "BINDING_TYPE_READ_ONLY"}
    changed = cli.ok("workspace-bindings", "update-bindings", "catalog", "main", "--json",
                     json.dumps({"add": [{"workspace_id": third}],
                                 "remove": [{"workspace_id": first}]}))
    assert sorted(b["workspace_id"] for b in changed["bindings"]) == [second, third]
    # Both APIs show the same bindings.
    assert sorted(cli.ok("workspace-bindings", "get", "main")["workspaces"]) == [second, third]
    unknown = cli.fails("workspace-bindings", "update-bindings", "catalog", "main", "--json",
                        json.dumps({"add": [{"workspace_id": 1}]}))
    assert unknown.status == 400
