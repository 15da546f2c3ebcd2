"""AccountGroup and WorkspaceAssignment against the emulator's account API, through an
account connection (the emulator's URL as the account host, its account id): create, read,
update in place, drift, import with no diff, delete, and an interrupted create adopted;
the validation rules of each, naming the field and the fix."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from providers.client import WorkspaceClient
from providers.client.connection import Connection
from providers.core.lifecycle import CONNECTION_KEY
from providers.identity.account_api import (
    AccountGroupsApi,
    NotAnAccountConnection,
    WorkspaceAssignmentApi,
    account_path,
)
from providers.identity.account_group import AccountGroupModel, AccountGroupProvider
from providers.identity.groups_api import GroupsApi
from providers.identity.workspace_assignment import (
    WorkspaceAssignmentModel,
    WorkspaceAssignmentProvider,
    parse_assignment_id,
)
from tests.emulator.support import ACCOUNT_ID, WORKSPACE_ID
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import client_of
from tests.providers.unity_catalog import fresh

ADMINS = "100000000000001"


@pytest.fixture
def account(connection: dict[str, Any]) -> dict[str, Any]:
    """The account connection: the workspace's sign-in, with the account's id."""
    return {**connection, "account_id": ACCOUNT_ID}


@pytest.fixture
def account_client(account: dict[str, Any]) -> WorkspaceClient:
    return client_of(account)


def make_group(account: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    made: Any = AccountGroupProvider().create({"display_name": fresh("acct"),
                                          CONNECTION_KEY: account})
    return made.id, made.outs


def test_account_group_lifecycle(account, account_client) -> None:
    provider: Any = AccountGroupProvider()
    props = {"display_name": fresh("etl"), CONNECTION_KEY: account}
    made = provider.create(props)
    assert AccountGroupsApi(account_client).get(made.id)["displayName"] == props["display_name"]
    assert not provider.diff(made.id, made.outs, props).changes

    changed = {**props, "external_id": "okta-42"}
    diff = provider.diff(made.id, made.outs, changed)
    assert diff.changed_keys == ["external_id"] and not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    assert AccountGroupsApi(account_client).get(made.id)["externalId"] == "okta-42"

    AccountGroupsApi(account_client).patch(made.id, [
        {"op": "replace", "path": "externalId", "value": "outside"}])
    drifted = provider.read(made.id, updated.outs)
    assert drifted.outs["external_id"] == "outside"
    assert provider.diff(made.id, drifted.outs, changed).changed_keys == ["external_id"]

    imported = provider.read(made.id, {CONNECTION_KEY: account})
    assert not provider.diff(made.id, imported.outs, {**changed, "external_id": "outside"}
                             ).changes

    provider.delete(made.id, updated.outs)
    assert provider.read(made.id, updated.outs).id is None


def test_an_interrupted_account_group_create_is_adopted(account, account_client,
                                                         monkeypatch) -> None:
    name = fresh("lost")
    path = account_path(account_client, "/scim/v2/Groups")
    lost = lose_the_answer_to(monkeypatch, path)
    made: Any = AccountGroupProvider().create({"display_name": name, CONNECTION_KEY: account})
    assert lost == [path]
    assert [g["id"] for g in AccountGroupsApi(account_client).named(name)] == [made.id]
    AccountGroupsApi(account_client).delete(made.id)


def test_an_account_call_on_a_workspace_connection_says_what_to_give(client) -> None:
    with pytest.raises(NotAnAccountConnection, match="workspace:accountHost and "
                                                     "workspace:accountId"):
        AccountGroupsApi(client).list()


def test_workspace_assignment_lifecycle(account, account_client, client) -> None:
    group_id, group_outs = make_group(account)
    provider: Any = WorkspaceAssignmentProvider()
    props = {"workspace_id": WORKSPACE_ID, "group_name": group_outs["display_name"],
             CONNECTION_KEY: account}
    made = provider.create(props)
    assert made.id == f"{WORKSPACE_ID}|{group_id}"
    assert made.outs["assigned_principal_id"] == group_id
    assigned = WorkspaceAssignmentApi(account_client).of(WORKSPACE_ID, group_id)
    assert assigned is not None and assigned["permissions"] == ["USER"]
    assert GroupsApi(client).get(group_id)["displayName"] == group_outs["display_name"]
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    admin = {**props, "permission": "ADMIN"}
    diff = provider.diff(made.id, made.outs, admin)
    assert diff.changed_keys == ["permission"] and not diff.replaces
    updated = provider.update(made.id, made.outs, admin)
    members = {m["value"] for m in GroupsApi(client).get(ADMINS).get("members") or []}
    assert group_id in members

    WorkspaceAssignmentApi(account_client).set(WORKSPACE_ID, group_id, ["USER"])
    drifted = provider.read(made.id, updated.outs)
    assert provider.diff(made.id, drifted.outs, admin).changed_keys == ["permission"]

    # An import records the principal both ways: a declaration by name or by id (adopt's
    # `account_group:` item reference) shows no change, as the host diffs an import
    # (nothing declared before) and every preview after it.
    imported = provider.read(made.id, {CONNECTION_KEY: account})
    assert imported.outs["group_name"] == group_outs["display_name"]
    assert imported.outs["principal_id"] == group_id
    by_id = {"workspace_id": WORKSPACE_ID, "principal_id": group_id, CONNECTION_KEY: account}
    for declared in (props, by_id):
        for old_inputs in ({}, declared):
            assert not provider.diff(made.id, imported.outs, declared,
                                     old_inputs=old_inputs).changes

    provider.delete(made.id, updated.outs)
    assert provider.read(made.id, updated.outs).id is None
    assert not GroupsApi(client).named(group_outs["display_name"])
    AccountGroupProvider().delete(group_id, group_outs)


def test_an_assignment_by_principal_id_is_set_again_when_repeated(account) -> None:
    group_id, group_outs = make_group(account)
    provider: Any = WorkspaceAssignmentProvider()
    props = {"workspace_id": WORKSPACE_ID, "principal_id": group_id, CONNECTION_KEY: account}
    first = provider.create(props)
    again = provider.create(props)  # an interrupted create, run again: no second object
    assert first.id == again.id
    assert not provider.diff(first.id, provider.read(first.id, first.outs).outs, props).changes
    provider.delete(first.id, first.outs)
    provider.delete(first.id, first.outs)  # gone already: deleted
    AccountGroupProvider().delete(group_id, group_outs)


def test_a_group_the_account_lacks_is_named_in_the_error(account) -> None:
    props = {"workspace_id": WORKSPACE_ID, "group_name": "no-such-group",
             CONNECTION_KEY: account}
    with pytest.raises(ValueError, match="no group named 'no-such-group'.*AccountGroup"):
        WorkspaceAssignmentProvider().create(props)


@pytest.mark.parametrize(("inputs", "field", "fix"), [
    ({"workspace_id": 1}, "", "give exactly one of principal_id, group_name"),
    ({"workspace_id": 1, "group_name": "a", "principal_id": "7"}, "",
     "got principal_id, group_name"),
    ({"workspace_id": 1, "principal_id": "seven"}, "principal_id", "account id, a number"),
    ({"workspace_id": 0, "principal_id": "7"}, "workspace_id", "greater than 0"),
    ({"workspace_id": 1, "principal_id": "7", "permission": "OWNER"}, "permission",
     "'USER' or 'ADMIN'"),
    ({"workspace_id": 1, "group_name": " "}, "group_name", "must not be empty"),
])
def test_workspace_assignment_rules(inputs, field, fix) -> None:
    with pytest.raises(ValidationError) as raised:
        WorkspaceAssignmentModel.model_validate(inputs)
    [error] = raised.value.errors()
    assert ".".join(map(str, error["loc"])) == field
    assert fix in error["msg"]


def test_account_group_rules() -> None:
    with pytest.raises(ValidationError) as raised:
        AccountGroupModel.model_validate({"display_name": " "})
    [error] = raised.value.errors()
    assert error["loc"] == ("display_name",) and "must not be empty" in error["msg"]


def test_assignment_ids() -> None:
    assert parse_assignment_id("12|34") == (12, "34")
    with pytest.raises(ValueError, match=r"<workspace id>\|<principal's account id>"):
        parse_assignment_id("12-34")


def test_the_account_id_is_checked_where_the_connection_is_made(connection) -> None:
    with pytest.raises(ValidationError, match="account_id must be the account's id"):
        Connection.model_validate({**connection, "account_id": "no spaces"})
