"""`databricks permissions` (get, get-permission-levels, update, set) on clusters, cluster
policies, repos, notebooks, directories, SQL warehouses and pipelines, the per-area
shortcuts (`clusters get-permissions`, `repos set-permissions`, ...), and the refusals."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.cli.cli import Cli
from tests.emulator.support import unique
from workspace_emulator.testing import register_application

CLUSTER = "0101-120000-shared01"
POLICY = "E0631F5C0D000001"
REPO = "3000000000000001"
NOTEBOOK = "1710000000000001"
DIRECTORY = "1710000000000002"
WAREHOUSE = "5a1e2b3c4d5e6f70"
PIPELINE = "8f3c2a10-1b2c-4d5e-8f90-0a1b2c3d4e5f"
WORKSPACE_OBJECT_LEVELS = ["CAN_READ", "CAN_RUN", "CAN_EDIT", "CAN_MANAGE"]


def _acl(*entries: dict) -> str:
    return json.dumps({"access_control_list": list(entries)})


def _direct(answer: dict) -> dict[str, str]:
    """Principal -> level of the grants made on the object itself (not inherited)."""
    found = {}
    for entry in answer.get("access_control_list", []):
        principal = (entry.get("user_name") or entry.get("group_name")
                     or entry.get("service_principal_name"))
        for level in entry["all_permissions"]:
            if not level["inherited"]:
                found[principal] = level["permission_level"]
    return found


def _admins_inherit_manage(answer: dict, root: str) -> bool:
    [admins] = [e for e in answer["access_control_list"] if e.get("group_name") == "admins"]
    return admins["all_permissions"] == [{"inherited": True, "inherited_from_object": [root],
                                          "permission_level": "CAN_MANAGE"}]


@pytest.mark.parametrize(("object_type", "object_id", "noun", "levels"), [
    ("clusters", CLUSTER, "cluster", ["CAN_ATTACH_TO", "CAN_RESTART", "CAN_MANAGE"]),
    ("cluster-policies", POLICY, "cluster-policy", ["CAN_USE"]),
    ("repos", REPO, "repo", WORKSPACE_OBJECT_LEVELS),
    ("notebooks", NOTEBOOK, "notebook", WORKSPACE_OBJECT_LEVELS),
    ("directories", DIRECTORY, "directory", WORKSPACE_OBJECT_LEVELS),
])
def test_get_levels_update_set(cli: Cli, object_type: str, object_id: str, noun: str,
                               levels: list[str]) -> None:
    got = cli.ok("permissions", "get", object_type, object_id)
    assert got["object_id"] == f"/{object_type}/{object_id}" and got["object_type"] == noun
    assert _admins_inherit_manage(got, f"/{object_type}/")
    offered = cli.ok("permissions", "get-permission-levels", object_type, object_id)
    assert [p["permission_level"] for p in offered["permission_levels"]] == levels

    lowest, highest = levels[0], levels[-1]
    updated = cli.ok("permissions", "update", object_type, object_id, "--json", _acl(
        {"group_name": "analysts", "permission_level": lowest}))
    assert _direct(updated) == {"analysts": lowest}
    merged = cli.ok("permissions", "update", object_type, object_id, "--json", _acl(
        {"user_name": "bob@example.com", "permission_level": highest}))
    assert _direct(merged) == {"analysts": lowest, "bob@example.com": highest}
    assert _direct(cli.ok("permissions", "get", object_type, object_id)) == _direct(merged)

    replaced = cli.ok("permissions", "set", object_type, object_id, "--json", _acl(
        {"group_name": "data-engineers", "permission_level": highest}))
    assert _direct(replaced) == {"data-engineers": highest}
    emptied = cli.ok("permissions", "set", object_type, object_id, "--json", _acl())
    assert _direct(emptied) == {} and _admins_inherit_manage(emptied, f"/{object_type}/")


def test_owners_of_warehouses_and_pipelines(cli: Cli, emulator) -> None:
    owner = {emulator.client_id: "IS_OWNER"}
    assert _direct(cli.ok("permissions", "get", "warehouses", WAREHOUSE)) == owner
    # A set without an owner keeps the current one.
    kept = cli.ok("permissions", "set", "warehouses", WAREHOUSE, "--json", _acl(
        {"group_name": "users", "permission_level": "CAN_USE"}))
    assert _direct(kept) == {**owner, "users": "CAN_USE"}
    assert kept["object_id"] == f"/sql/warehouses/{WAREHOUSE}"
    moved = cli.ok("permissions", "set", "pipelines", PIPELINE, "--json", _acl(
        {"user_name": "bob@example.com", "permission_level": "IS_OWNER"}))
    assert _direct(moved) == {"bob@example.com": "IS_OWNER"}


def test_the_areas_own_permission_commands(cli: Cli) -> None:
    cli.ok("clusters", "set-permissions", CLUSTER, "--json", _acl(
        {"group_name": "analysts", "permission_level": "CAN_RESTART"}))
    assert _direct(cli.ok("clusters", "get-permissions", CLUSTER)) == {
        "analysts": "CAN_RESTART"}
    cli.ok("clusters", "update-permissions", CLUSTER, "--json", _acl(
        {"group_name": "users", "permission_level": "CAN_ATTACH_TO"}))
    assert _direct(cli.ok("permissions", "get", "clusters", CLUSTER)) == {
        "analysts": "CAN_RESTART", "users": "CAN_ATTACH_TO"}

    policy = cli.ok("cluster-policies", "create", "--name", unique("cli-policy"),
                    "--definition", "{}")["policy_id"]
    cli.ok("cluster-policies", "set-permissions", policy, "--json", _acl(
        {"group_name": "analysts", "permission_level": "CAN_USE"}))
    assert _direct(cli.ok("cluster-policies", "get-permissions", policy)) == {
        "analysts": "CAN_USE"}

    cli.ok("repos", "set-permissions", REPO, "--json", _acl(
        {"group_name": "analysts", "permission_level": "CAN_READ"}))
    assert _direct(cli.ok("repos", "get-permissions", REPO)) == {"analysts": "CAN_READ"}
    levels = cli.ok("repos", "get-permission-levels", REPO)["permission_levels"]
    assert [p["permission_level"] for p in levels] == WORKSPACE_OBJECT_LEVELS

    cli.ok("workspace", "set-permissions", "notebooks", NOTEBOOK, "--json", _acl(
        {"group_name": "users", "permission_level": "CAN_RUN"}))
    assert _direct(cli.ok("workspace", "get-permissions", "notebooks", NOTEBOOK)) == {
        "users": "CAN_RUN"}


def test_refusals(cli: Cli) -> None:
    wrong_level = cli.fails("permissions", "update", "notebooks", NOTEBOOK, "--json", _acl(
        {"group_name": "users", "permission_level": "CAN_ATTACH_TO"}))
    assert wrong_level.status == 400 and "permission_level" in wrong_level.message
    no_owner_level = cli.fails("permissions", "set", "clusters", CLUSTER, "--json", _acl(
        {"group_name": "users", "permission_level": "IS_OWNER"}))
    assert no_owner_level.status == 400
    unknown_user = cli.fails("permissions", "update", "clusters", CLUSTER, "--json", _acl(
        {"user_name": "nobody@example.com", "permission_level": "CAN_RESTART"}))
    assert unknown_user.status == 400
    assert unknown_user.message == "Principal: user_name=nobody@example.com does not exist"
    missing = cli.fails("permissions", "get", "notebooks", "999")
    assert missing.status == 404
    missing_cluster = cli.fails("permissions", "get", "clusters", "0000-000000-nothing0")
    assert missing_cluster.status == 404


def test_changing_needs_can_manage(cli: Cli, cli_as: Callable[[dict[str, str]], Cli],
                                   emulator) -> None:
    application = register_application(emulator, unique("cli-perms"))
    cli.ok("service-principals", "create", "--application-id", application["client_id"])
    other = cli_as(application)
    grant = _acl({"group_name": "users", "permission_level": "CAN_READ"})
    refused = other.fails("permissions", "update", "directories", DIRECTORY, "--json", grant)
    assert refused.status == 403
    cli.ok("permissions", "update", "directories", DIRECTORY, "--json", _acl(
        {"service_principal_name": application["client_id"],
         "permission_level": "CAN_MANAGE"}))
    allowed = other.ok("permissions", "update", "directories", DIRECTORY, "--json", grant)
    assert _direct(allowed)["users"] == "CAN_READ"
