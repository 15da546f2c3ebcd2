"""`databricks groups` writes: create (by flags and by JSON with members), patch of members
(add, remove) and display name, update, delete, and the service's refusals."""

from __future__ import annotations

import json

from tests.cli.cli import Cli
from tests.emulator.support import ADMINS_GROUP_ID, ANALYSTS_GROUP_ID, unique
from workspace_emulator.testing import register_application

GROUPS = "/api/2.0/preview/scim/v2/Groups"
PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"


def _patch(cli: Cli, group_id: str, *operations: dict) -> None:
    cli.ok("groups", "patch", group_id, "--json",
           json.dumps({"schemas": [PATCH_SCHEMA], "Operations": list(operations)}))


def _member_ids(cli: Cli, group_id: str) -> set[str]:
    return {m["value"] for m in cli.ok("groups", "get", group_id).get("members", [])}


def _user_id(cli: Cli, user_name: str) -> str:
    [user] = cli.ok("users", "list", "--filter", f'userName eq "{user_name}"')
    return user["id"]


def test_create_by_flags_sends_no_schemas(cli: Cli) -> None:
    name = unique("cli-group")
    created, sent = cli.sent("groups", "create", "--display-name", name)
    [request] = [x for x in sent if x.method == "POST" and x.path == GROUPS]
    assert request.body == {"displayName": name} and request.status == 201
    assert created["displayName"] == name and "members" not in created
    [listed] = cli.ok("groups", "list", "--filter", f'displayName eq "{name}"')
    assert listed["id"] == created["id"]


def test_create_by_json_with_members_and_entitlements(cli: Cli, emulator) -> None:
    alice = _user_id(cli, "alice@example.com")
    created = cli.ok("groups", "create", "--json", json.dumps({
        "displayName": unique("cli-group"), "members": [{"value": alice},
                                                        {"value": ANALYSTS_GROUP_ID}],
        "entitlements": [{"value": "workspace-access"}]}))
    assert {(m["value"], m["$ref"]) for m in created["members"]} == {
        (alice, f"Users/{alice}"), (ANALYSTS_GROUP_ID, f"Groups/{ANALYSTS_GROUP_ID}")}
    assert created["entitlements"] == [{"value": "workspace-access"}]


def test_patch_members_update_and_delete(cli: Cli, emulator) -> None:
    application = register_application(emulator, unique("cli-member"))
    principal_id = cli.ok("service-principals", "create", "--application-id",
                          application["client_id"])["id"]
    bob = _user_id(cli, "bob@example.com")
    group_id = cli.ok("groups", "create", "--display-name", unique("cli-group"))["id"]

    _patch(cli, group_id, {"op": "add", "path": "members",
                           "value": [{"value": principal_id}, {"value": bob}]})
    assert _member_ids(cli, group_id) == {principal_id, bob}
    # The principal sees the group among its own.
    assert group_id in {g["value"] for g in
                        cli.ok("service-principals", "get", principal_id)["groups"]}

    _patch(cli, group_id, {"op": "remove", "path": f'members[value eq "{bob}"]'})
    assert _member_ids(cli, group_id) == {principal_id}

    renamed = unique("cli-renamed")
    _patch(cli, group_id, {"op": "replace", "path": "displayName", "value": renamed})
    assert cli.ok("groups", "get", group_id)["displayName"] == renamed

    _, sent = cli.sent("groups", "update", group_id, "--display-name", f"{renamed}-2")
    [put] = [x for x in sent if x.method == "PUT"]
    assert "schemas" not in put.body and put.status == 200
    updated = cli.ok("groups", "get", group_id)
    assert updated["displayName"] == f"{renamed}-2" and "members" not in updated

    assert cli.ok("groups", "delete", group_id) is None
    assert cli.fails("groups", "get", group_id).status == 404
    assert cli.fails("groups", "delete", group_id).status == 404


def test_refusals(cli: Cli) -> None:
    name = unique("cli-group")
    cli.ok("groups", "create", "--display-name", name)
    duplicate = cli.fails("groups", "create", "--display-name", name)
    assert duplicate.status == 409
    assert duplicate.message == f"Group with name {name} already exists."
    unknown_member = cli.fails("groups", "create", "--json", json.dumps(
        {"displayName": unique("cli-group"), "members": [{"value": "999"}]}))
    assert unknown_member.status == 400 and "999" in unknown_member.message
    admins = cli.fails("groups", "delete", ADMINS_GROUP_ID)
    assert admins.status == 400 and "cannot be deleted" in admins.message


def test_a_group_cannot_contain_itself(cli: Cli) -> None:
    outer = cli.ok("groups", "create", "--display-name", unique("cli-outer"))["id"]
    inner = cli.ok("groups", "create", "--json", json.dumps(
        {"displayName": unique("cli-inner"), "members": [{"value": outer}]}))["id"]
    cycle = cli.fails("groups", "patch", outer, "--json", json.dumps({
        "schemas": [PATCH_SCHEMA],
        "Operations": [{"op": "add", "path": "members", "value": [{"value": inner}]}]}))
    assert cycle.status == 400
    assert _member_ids(cli, outer) == set()
