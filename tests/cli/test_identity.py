"""Signing in, `databricks current-user`, `service-principals`, `groups` and `users`."""

from __future__ import annotations

import json

from tests.cli.cli import Cli
from tests.emulator.support import ANALYSTS_GROUP_ID, DATA_ENGINEERS_GROUP_ID, SP_SCHEMA, unique
from workspace_emulator.testing import register_application

SERVICE_PRINCIPALS = "/api/2.0/preview/scim/v2/ServicePrincipals"
PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"


# --- signing in ------------------------------------------------------------------------------

def test_me_of_the_service_principal_signed_in(cli: Cli, emulator) -> None:
    me = cli.ok("current-user", "me")
    assert me["userName"] == emulator.client_id
    assert me["displayName"] == "iac-bootstrap"


def test_a_profile_of_the_config_file(cli: Cli, emulator) -> None:
    config = cli.home / "profiles.cfg"
    config.write_text(f"[emulator]\nhost = {emulator.base_url}\n"
                      f"token = {cli.env['DATABRICKS_TOKEN']}\n")
    by_profile = cli.with_env(DATABRICKS_HOST=None, DATABRICKS_TOKEN=None,
                              DATABRICKS_CONFIG_FILE=str(config))
    assert by_profile.ok("current-user", "me", "--profile", "emulator")["userName"] == \
        emulator.client_id


def test_a_wrong_token_is_refused(cli: Cli) -> None:
    failure = cli.with_env(DATABRICKS_TOKEN="not-a-token").fails("current-user", "me")
    assert failure.status == 401


# --- service principals ---------------------------------------------------------------------

def test_create_by_flags_sends_no_schemas(cli: Cli, emulator) -> None:
    application = register_application(emulator, unique("cli-flags"))
    created, sent = cli.sent("service-principals", "create", "--application-id",
                             application["client_id"], "--display-name", "by flags")
    [request] = [x for x in sent if x.method == "POST" and x.path == SERVICE_PRINCIPALS]
    assert request.body == {"applicationId": application["client_id"],
                            "displayName": "by flags"}
    assert request.status == 201
    assert created["applicationId"] == application["client_id"]
    assert created["displayName"] == "by flags" and created["active"] is True


def test_create_by_json_with_groups_and_entitlements(cli: Cli, emulator) -> None:
    application = register_application(emulator, unique("cli-json"))
    created = cli.ok("service-principals", "create", "--json", json.dumps({
        "schemas": [SP_SCHEMA], "applicationId": application["client_id"],
        "displayName": "by json", "groups": [{"value": ANALYSTS_GROUP_ID}],
        "entitlements": [{"value": "workspace-access"}]}))
    assert [g["value"] for g in created["groups"]] == [ANALYSTS_GROUP_ID]
    assert created["entitlements"] == [{"value": "workspace-access"}]


def test_create_refusals(cli: Cli, emulator) -> None:
    unregistered = cli.fails("service-principals", "create", "--application-id",
                             "00000000-0000-0000-0000-000000000000")
    assert unregistered.status == 400
    assert "identity provider" in unregistered.message
    application = register_application(emulator)
    cli.ok("service-principals", "create", "--application-id", application["client_id"])
    again = cli.fails("service-principals", "create", "--application-id",
                      application["client_id"])
    assert again.status == 409


def test_get_list_with_filter_patch_update_delete(cli: Cli, emulator) -> None:
    application = register_application(emulator, unique("cli-life"))
    app_id = application["client_id"]
    principal_id = cli.ok("service-principals", "create", "--application-id", app_id,
                          "--display-name", "life")["id"]
    assert cli.ok("service-principals", "get", principal_id)["applicationId"] == app_id

    by_app = cli.ok("service-principals", "list", "--filter", f'applicationId eq "{app_id}"')
    assert [p["id"] for p in by_app] == [principal_id]
    by_name = cli.ok("service-principals", "list", "--filter", 'displayName eq "LIFE"')
    assert [p["id"] for p in by_name] == [principal_id]
    everyone = cli.ok("service-principals", "list")
    assert {emulator.client_id, app_id} <= {p["applicationId"] for p in everyone}

    cli.ok("service-principals", "patch", principal_id, "--json", json.dumps({
        "schemas": [PATCH_SCHEMA], "Operations": [
            {"op": "add", "path": "groups", "value": [{"value": DATA_ENGINEERS_GROUP_ID}]},
            {"op": "replace", "path": "displayName", "value": "patched"}]}))
    patched = cli.ok("service-principals", "get", principal_id)
    assert patched["displayName"] == "patched"
    assert [g["value"] for g in patched["groups"]] == [DATA_ENGINEERS_GROUP_ID]

    _, sent = cli.sent("service-principals", "update", principal_id,
                       "--display-name", "updated", "--application-id", app_id)
    [put] = [x for x in sent if x.method == "PUT"]
    assert "schemas" not in put.body and put.status == 200
    cli.ok("service-principals", "update", principal_id, "--json", json.dumps(
        {"applicationId": app_id, "displayName": "updated by json", "active": False}))
    updated = cli.ok("service-principals", "get", principal_id)
    assert updated["displayName"] == "updated by json" and updated["active"] is False

    assert cli.ok("service-principals", "delete", principal_id) is None
    gone = cli.fails("service-principals", "get", principal_id)
    assert gone.status == 404
    assert cli.ok("service-principals", "list", "--filter",
                  f'applicationId eq "{app_id}"') in (None, [])


# --- groups and users (read) -----------------------------------------------------------------

def test_groups_list_filter_and_get(cli: Cli) -> None:
    names = {g["displayName"] for g in cli.ok("groups", "list")}
    assert {"admins", "users", "data-engineers", "analysts"} <= names
    [analysts] = cli.ok("groups", "list", "--filter", 'displayName eq "analysts"')
    assert analysts["id"] == ANALYSTS_GROUP_ID
    assert cli.ok("groups", "get", ANALYSTS_GROUP_ID)["displayName"] == "analysts"
    assert cli.fails("groups", "get", "199999999999999").status == 404


def test_users_list_filter_and_get(cli: Cli) -> None:
    users = {u["userName"]: u for u in cli.ok("users", "list")}
    assert {"alice@example.com", "bob@example.com"} <= set(users)
    [bob] = cli.ok("users", "list", "--filter", 'userName eq "bob@example.com"')
    assert bob["displayName"] == "Bob Analyst"
    alice = cli.ok("users", "get", users["alice@example.com"]["id"])
    assert alice["userName"] == "alice@example.com"
    assert {g["display"] for g in alice["groups"]} == {"admins", "data-engineers"}
