"""The account API on the emulator's host, driven by the official SDK's AccountClient:
account groups, users and service principals, the workspace's permission assignments, and
the principals they make visible in the workspace's SCIM."""

from __future__ import annotations

import pytest
import requests
from databricks.sdk import AccountClient, WorkspaceClient
from databricks.sdk.errors import NotFound, ResourceConflict
from databricks.sdk.service import iam

from tests.emulator.support import ACCOUNT_ID, ADMINS_GROUP_ID, WORKSPACE_ID, unique
from workspace_emulator.testing import fetch_token

USER = iam.WorkspacePermission.USER
ADMIN = iam.WorkspacePermission.ADMIN


@pytest.fixture(scope="module")
def token(emulator) -> str:
    return fetch_token(emulator)


@pytest.fixture(scope="module")
def account(emulator, token) -> AccountClient:
    return AccountClient(host=emulator.base_url, account_id=ACCOUNT_ID, token=token)


@pytest.fixture(scope="module")
def sdk(emulator, token) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=token)


def test_host_metadata_names_the_account_and_the_workspace(emulator):
    meta = requests.get(f"{emulator.base_url}/.well-known/databricks-config", timeout=10).json()
    assert (meta["account_id"], meta["workspace_id"]) == (ACCOUNT_ID, str(WORKSPACE_ID))


def test_the_workspace_id_is_in_the_org_id_header_of_scim_me(emulator, token):
    """The official SDK's get_workspace_id with no workspace id in its config (none from the
    host metadata either) reads the `X-Databricks-Org-Id` header of SCIM Me."""
    sdk = WorkspaceClient(host=emulator.base_url, token=token)
    sdk.config.workspace_id = ""  # as if the host metadata had given none
    assert sdk.get_workspace_id() == WORKSPACE_ID


def test_an_assigned_account_group_is_a_group_a_local_one_a_workspace_group(account, sdk):
    """The workspace's SCIM tells an account group assigned to it (identity federation)
    from one of its own by `meta.resourceType`, as the service does, in a list and a get."""
    assigned = account.groups.create(display_name=unique("acct-federated"))
    account.workspace_assignment.update(WORKSPACE_ID, int(assigned.id), permissions=[USER])
    local = sdk.groups.create(display_name=unique("ws-local"))
    try:
        kinds = {g.id: g.meta.resource_type for g in sdk.groups.list(attributes="id,meta")
                 if g.id in (assigned.id, local.id)}
        assert kinds == {assigned.id: "Group", local.id: "WorkspaceGroup"}
        assert sdk.groups.get(assigned.id).meta.resource_type == "Group"
        assert sdk.groups.get(local.id).meta.resource_type == "WorkspaceGroup"
        # Its entitlements changed in the workspace: still the account's group.
        sdk.groups.patch(assigned.id, operations=[iam.Patch(
            op=iam.PatchOp.ADD, path="entitlements", value=[{"value": "workspace-access"}])])
        assert sdk.groups.get(assigned.id).meta.resource_type == "Group"
    finally:
        sdk.groups.delete(local.id)
        account.workspace_assignment.delete(WORKSPACE_ID, int(assigned.id))
        account.groups.delete(assigned.id)


def test_account_groups_crud(account):
    name = unique("acct-group")
    user = account.users.create(user_name=f"{unique('u')}@example.com")
    group = account.groups.create(display_name=name, members=[iam.ComplexValue(value=user.id)])
    assert account.groups.get(group.id).display_name == name
    assert [m.value for m in account.groups.get(group.id).members] == [user.id]
    assert [g.id for g in account.groups.list(filter=f'displayName eq "{name}"')] == [group.id]
    with pytest.raises(ResourceConflict):
        account.groups.create(display_name=name)
    account.groups.patch(group.id, operations=[iam.Patch(
        op=iam.PatchOp.REMOVE, path=f'members[value eq "{user.id}"]')])
    assert not account.groups.get(group.id).members
    account.groups.delete(group.id)
    with pytest.raises(NotFound):
        account.groups.get(group.id)
    account.users.delete(user.id)


def test_a_path_naming_another_account_is_not_found(emulator, token):
    other = AccountClient(host=emulator.base_url, account_id="11111111-2222-3333-4444-5555",
                          token=token)
    with pytest.raises(NotFound, match="11111111-2222-3333-4444-5555"):
        list(other.groups.list())


def test_an_assigned_group_appears_in_the_workspace_with_its_entitlements_kept(account, sdk):
    name = unique("acct-assigned")
    group = account.groups.create(display_name=name)
    assert all(a.principal.principal_id != int(group.id)
               for a in account.workspace_assignment.list(WORKSPACE_ID))

    assigned = account.workspace_assignment.update(WORKSPACE_ID, int(group.id),
                                                   permissions=[USER])
    assert assigned.permissions == [USER] and assigned.principal.group_name == name
    local = sdk.groups.get(group.id)
    assert local.display_name == name
    sdk.groups.patch(group.id, operations=[iam.Patch(
        op=iam.PatchOp.ADD, path="entitlements",
        value=[{"value": "databricks-sql-access"}])])

    account.workspace_assignment.update(WORKSPACE_ID, int(group.id), permissions=[ADMIN])
    assert [e.value for e in sdk.groups.get(group.id).entitlements] == [
        "databricks-sql-access"]
    assert group.id in {m.value for m in sdk.groups.get(ADMINS_GROUP_ID).members}
    listed = {a.principal.principal_id: a.permissions
              for a in account.workspace_assignment.list(WORKSPACE_ID)}
    assert listed[int(group.id)] == [ADMIN]

    account.workspace_assignment.update(WORKSPACE_ID, int(group.id), permissions=[USER])
    assert group.id not in {m.value for m in sdk.groups.get(ADMINS_GROUP_ID).members}

    account.workspace_assignment.delete(WORKSPACE_ID, int(group.id))
    with pytest.raises(NotFound):
        sdk.groups.get(group.id)
    assert account.groups.get(group.id).display_name == name  # still in the account
    with pytest.raises(NotFound):
        account.workspace_assignment.delete(WORKSPACE_ID, int(group.id))
    account.groups.delete(group.id)


def test_assigned_users_and_service_principals_appear_in_the_workspace(account, sdk):
    user = account.users.create(user_name=f"{unique('fed')}@example.com", display_name="Fed")
    principal = account.service_principals.create(display_name=unique("acct-sp"))
    for principal_id in (user.id, principal.id):
        account.workspace_assignment.update(WORKSPACE_ID, int(principal_id),
                                            permissions=[USER])
    assert sdk.users.get(user.id).user_name == user.user_name
    [local] = sdk.service_principals.list(
        filter=f'applicationId eq "{principal.application_id}"')
    assert local.display_name == principal.display_name

    account.service_principals.delete(principal.id)
    assert not list(sdk.service_principals.list(
        filter=f'applicationId eq "{principal.application_id}"'))
    account.workspace_assignment.delete(WORKSPACE_ID, int(user.id))
    with pytest.raises(NotFound):
        sdk.users.get(user.id)
    account.users.delete(user.id)


def test_permission_levels_and_an_unknown_workspace(account):
    levels = account.workspace_assignment.get(WORKSPACE_ID).permissions
    assert [p.permission_level for p in levels] == [
        iam.WorkspacePermission.USER, iam.WorkspacePermission.ADMIN]
    with pytest.raises(NotFound, match="Workspace 42 not found"):
        list(account.workspace_assignment.list(42))


def test_the_account_discovery_document_names_the_token_endpoint(emulator):
    document = requests.get(
        f"{emulator.base_url}/oidc/accounts/{ACCOUNT_ID}/.well-known/"
        "oauth-authorization-server", timeout=10).json()
    assert document["token_endpoint"] == f"{emulator.base_url}/oidc/v1/token"
