"""Adoption of the account around the workspace against the emulator: an account group
assigned to the workspace with entitlements is listed and read through the account's
connection (`client.account`, which the audit and adopt make from the stack's config) as
its AccountGroup, WorkspaceAssignment and Entitlements items, each verified to show no
change when declared; the workspace's copy of the group is left out of the Group kind; and
without the account's connection the account's kinds list nothing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.core.registry import kind_named
from providers.identity.account_api import AccountGroupsApi, WorkspaceAssignmentApi
from providers.identity.groups_api import GroupsApi
from stacks.adoption import listed
from tests.emulator.support import ACCOUNT_ID, WORKSPACE_ID
from tests.providers.support import client_of
from tests.providers.test_adoption_candidates import adopted

ENGINEERS = "100000000000003"  # data-engineers, in the initial data


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def account(connection: dict[str, Any]) -> dict[str, Any]:
    """The account connection: the workspace's sign-in, with the account's id."""
    return {**connection, "account_id": ACCOUNT_ID}


@pytest.fixture
def reader(connection: dict[str, Any], account: dict[str, Any]) -> WorkspaceClient:
    """The workspace's client with the account's connection beside it, as the audit and
    adopt make it."""
    made = client_of(connection)
    made.account = client_of(account)
    return made


@pytest.fixture
def federated(client: WorkspaceClient, account: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """An account group with an external id, assigned to the workspace as USER, given an
    entitlement in the workspace."""
    groups = AccountGroupsApi(client_of(account))
    group = groups.create({"displayName": unique("analysts"), "externalId": unique("idp")})
    group_id = str(group["id"])
    assignments = WorkspaceAssignmentApi(client_of(account))
    assignments.set(WORKSPACE_ID, group_id, ["USER"])
    GroupsApi(client).patch(group_id, [{"op": "add", "path": "entitlements",
                                        "value": [{"value": "databricks-sql-access"}]}])
    yield group
    assignments.delete(WORKSPACE_ID, group_id)
    groups.delete(group_id)


def test_an_assigned_account_group_is_adopted_as_its_three_items(
    reader, connection, account, federated
):
    group_id, name = str(federated["id"]), federated["displayName"]
    found = adopted(reader, account, "AccountGroup", group_id)
    assert found.item == {"display_name": name, "external_id": federated["externalId"]}

    assignment = adopted(reader, account, "WorkspaceAssignment", f"{WORKSPACE_ID}|{group_id}")
    # USER, the default, left out; the group named as the account names it, and its id kept
    # for adopt to name the group's item instead where it adopts the group too.
    assert assignment.item == {"workspace_id": WORKSPACE_ID, "group_name": name}
    assert assignment.references == {"principal_id": group_id}

    entitlements = adopted(reader, connection, "Entitlements", f"groups/{group_id}")
    assert entitlements.item == {"group_id": group_id,
                                 "entitlements": ["databricks-sql-access"]}
    assert entitlements.references == {"group_id": group_id}


def test_the_workspaces_copy_of_an_account_group_is_no_workspace_group(reader, federated):
    group_id = str(federated["id"])
    groups = {found.import_id: found.left_out for found in listed(reader, kind_named("Group"))}
    reason = groups[group_id] or ""
    assert "account group" in reason
    assert all(key in reason for key in ("accountGroups", "workspaceAssignments",
                                         "entitlements"))
    assert groups[ENGINEERS] is None  # a group of the workspace's own is adopted


def test_without_the_accounts_connection_its_kinds_list_nothing(client, federated):
    assert client.account is None
    assert list(listed(client, kind_named("AccountGroup"))) == []
    assert list(listed(client, kind_named("WorkspaceAssignment"))) == []
    # The entitlements are the workspace's: listed either way.
    assert f"groups/{federated['id']}" in {
        found.import_id for found in listed(client, kind_named("Entitlements"))}


def test_an_import_naming_the_group_by_id_without_the_permission_shows_no_change(
    account, federated
):
    """What the engine's import reads for an adopted assignment whose item names the group's
    item (`account_group`: its id) and leaves USER, the default, out: no change."""
    provider = kind_named("WorkspaceAssignment").provider()
    import_id = f"{WORKSPACE_ID}|{federated['id']}"
    declared = {"workspace_id": WORKSPACE_ID, "principal_id": str(federated["id"])}
    read = provider.read(import_id, {CONNECTION_KEY: account, **declared})
    assert read.outs is not None and read.outs["permission"] == "USER"
    for old_inputs in ({}, declared):
        diff = provider.diff(import_id, read.outs, {**declared, CONNECTION_KEY: account},
                             old_inputs=old_inputs)
        assert not diff.changes, diff.changed_keys
