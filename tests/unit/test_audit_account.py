"""The account around the workspace in the audit and adopt: the account's connection made
from the stack's config as the stack program makes it, the note naming the commands that
list the account's kinds where the config lacks it, the listings of the account's
assignments of this workspace (its id from the host metadata, else the SCIM Me header) and
of the entitlements of the account groups assigned to it, the workspace's copy of an account
group left out of the Group kind and the audit, and adopt naming an adopted group's item."""

from __future__ import annotations

import dataclasses
import io

import pytest
import responses

from providers.client import WorkspaceClient
from providers.core.registry import kind_named
from providers.identity.account_api import ORG_ID_HEADER
from providers.identity.workspace_assignment import OWN_ASSIGNMENT
from stacks import adopt, adoption, audit
from stacks.audit import AuditError, WorkspaceObject, connection_of
from stacks.config import load
from tests.unit.client_support import BASE_URL, CLIENT_ID, SCIM_ME, connection
from tests.unit.test_stack_audit import values

ACCOUNT_HOST = "https://accounts.example.net"
ACCOUNT_ID = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"
WORKSPACE_ID = 1234567890123456
HOST_METADATA = f"{BASE_URL}/.well-known/databricks-config"
ASSIGNMENTS = (f"{ACCOUNT_HOST}/api/2.0/accounts/{ACCOUNT_ID}/workspaces/{WORKSPACE_ID}"
               "/permissionassignments")
GROUPS = f"{BASE_URL}/api/2.0/preview/scim/v2/Groups"


def with_account(**more: str) -> dict:
    return values(**{"workspace:clientSecret": "s", "workspace:accountHost": ACCOUNT_HOST,
                     "workspace:accountId": ACCOUNT_ID, **more})


def test_the_account_connection_is_the_one_the_stack_program_makes() -> None:
    settings = with_account(**{"workspace:wireForm": "legacy"})
    client = audit.account_client(connection_of(settings), settings, io.StringIO())
    assert client.account is not None
    made = client.account.connection
    unprefixed = {k.removeprefix("workspace:"): v for k, v in settings.items()}
    del unprefixed["clientSecret"]  # a secret of the engine's, not a plain value
    stack = dataclasses.replace(load(unprefixed), credentials={"client_secret": "s"})
    program = stack.account_auth_args()
    for field in ("base_url", "account_id", "auth_url", "tenant_id", "client_id", "resource"):
        assert getattr(made, field) == getattr(program, field), field
    assert (made.base_url, made.account_id) == (ACCOUNT_HOST, ACCOUNT_ID)
    assert made.secret_values() == ("s",)  # the workspace's sign-in
    # The workspace's wire form is its own: not the account's.
    assert client.connection.wire_form.value == "legacy"
    assert program.wire_form is None and made.wire_form.value != "legacy"


def test_without_the_account_settings_a_note_names_the_commands_that_list_its_kinds() -> None:
    for missing in ("workspace:accountHost", "workspace:accountId"):
        settings = with_account()
        del settings[missing]
        notes = io.StringIO()
        client = audit.account_client(connection_of(settings), settings, notes)
        assert client.account is None
        said = notes.getvalue()
        assert "accountGroups, workspaceAssignments" in said, said
        assert "`pulumi config set workspace:accountHost <the account host" in said, said
        assert "`pulumi config set workspace:accountId <the account's id>`" in said, said
        assert list(adoption.listed(client, kind_named("AccountGroup"))) == []
        assert list(adoption.listed(client, kind_named("WorkspaceAssignment"))) == []


def test_an_account_host_in_plain_http_is_refused_by_name() -> None:
    settings = with_account(**{"workspace:accountHost": "http://accounts.example.net",
                               "workspace:allowInsecureHttp": "false",
                               "workspace:baseUrl": "https://adb-1.example.net",
                               "workspace:authUrl": "https://login.example.net"})
    with pytest.raises(AuditError, match="workspace:accountHost"):
        audit.account_client(connection_of(settings), settings)


def reader() -> WorkspaceClient:
    client = WorkspaceClient(connection())
    client.account = WorkspaceClient(connection(base_url=ACCOUNT_HOST, account_id=ACCOUNT_ID))
    return client


ASSIGNED = {"permission_assignments": [
    {"principal": {"principal_id": 7000000000000001, "group_name": "analysts",
                   "display_name": "analysts"}, "permissions": ["USER"]},
    {"principal": {"principal_id": 6000000000000001, "user_name": "ana@example.com",
                   "display_name": "Ana"}, "permissions": ["ADMIN"]},
    {"principal": {"principal_id": 8000000000000001, "service_principal_name": CLIENT_ID,
                   "display_name": "iac"}, "permissions": ["ADMIN"]},
]}


@pytest.mark.parametrize("metadata", [
    {"json": {"workspace_id": str(WORKSPACE_ID)}},
    {"status": 404, "json": {"error_code": "ENDPOINT_NOT_FOUND", "message": "no"}},
    {"json": {"oidc_endpoint": f"{BASE_URL}/oidc"}},
], ids=["host-metadata", "no-host-metadata", "metadata-without-workspace-id"])
def test_the_assignments_of_this_workspace_are_listed_the_stacks_own_left_out(
    mocked: responses.RequestsMock, metadata: dict
) -> None:
    mocked.get(HOST_METADATA, **metadata)
    # Who the stack signs in as, and (where the metadata says nothing) the workspace's id.
    mocked.get(SCIM_ME, json={"id": "4000000000000001", "applicationId": CLIENT_ID},
               headers={ORG_ID_HEADER: str(WORKSPACE_ID)})
    mocked.get(ASSIGNMENTS, json=ASSIGNED)
    found = list(adoption.listed(reader(), kind_named("WorkspaceAssignment")))
    assert found == [
        adoption.Listed(f"{WORKSPACE_ID}|7000000000000001", "analysts", None),
        adoption.Listed(f"{WORKSPACE_ID}|6000000000000001", "ana@example.com", None),
        adoption.Listed(f"{WORKSPACE_ID}|8000000000000001", CLIENT_ID, OWN_ASSIGNMENT),
    ]


WORKSPACE_GROUPS = {"totalResults": 4, "Resources": [
    {"id": "5", "displayName": "users", "meta": {"resourceType": "WorkspaceGroup"}},
    {"id": "6", "displayName": "team", "meta": {"resourceType": "WorkspaceGroup"},
     "entitlements": [{"value": "workspace-access"}]},
    {"id": "7000000000000001", "displayName": "analysts", "meta": {"resourceType": "Group"},
     "entitlements": [{"value": "databricks-sql-access"}]},
    {"id": "7000000000000002", "displayName": "viewers", "meta": {"resourceType": "Group"}},
]}


def test_an_assigned_account_group_is_audited_as_the_accounts_not_a_workspace_group(
    mocked: responses.RequestsMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    every = audit.audited_kinds()
    monkeypatch.setattr(audit, "audited_kinds",
                        lambda: {k: every[k] for k in ("group", "entitlements")})
    mocked.get(GROUPS, json=WORKSPACE_GROUPS)
    found = list(audit.workspace_objects(WorkspaceClient(connection())))
    # The account groups are not workspace groups; the entitlements of the one that holds
    # any are the account group's Entitlements (a local group's are its Group item's).
    assert found == [WorkspaceObject("group", "6", "team"),
                     WorkspaceObject("entitlements", "groups/7000000000000001", "analysts")]
    groups = {f.import_id: f.left_out
              for f in adoption.listed(WorkspaceClient(connection()), kind_named("Group"))}
    assert groups["6"] is None
    for account_group in ("7000000000000001", "7000000000000002"):
        assert "accountGroups, workspaceAssignments and entitlements" in (
            groups[account_group] or "")


def candidate(kind_name: str, item: dict, computed: dict) -> adoption.Candidate:
    kind = kind_named(kind_name)
    references = adoption.references_of(kind, item) | adoption.stood_for(kind, item, computed)
    return adoption.Candidate(kind, "id", "name", item, None, references)


@pytest.mark.parametrize("adopted_too", [True, False])
def test_adopt_names_the_account_groups_item_where_it_adopts_the_group_too(
    adopted_too: bool
) -> None:
    known = adopt.Known(by_id={"accountGroups": {"7000000000000001": "analysts"}}
                        if adopted_too else {})
    assignment = candidate(
        "WorkspaceAssignment", {"workspace_id": WORKSPACE_ID, "group_name": "analysts"},
        {"assigned_principal_id": "7000000000000001"})
    entitlements = candidate(
        "Entitlements", {"group_id": "7000000000000001", "entitlements": ["workspace-access"]},
        {})
    made = [adopt.with_references(c.kind, c, known) for c in (assignment, entitlements)]
    if adopted_too:
        assert made == [{"workspace_id": WORKSPACE_ID, "account_group": "analysts"},
                        {"account_group": "analysts", "entitlements": ["workspace-access"]}]
    else:
        assert made == [{"workspace_id": WORKSPACE_ID, "group_name": "analysts"},
                        {"group_id": "7000000000000001", "entitlements": ["workspace-access"]}]
