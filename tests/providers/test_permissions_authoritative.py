"""Permissions' authoritative mode against the emulator: only the declared entries remain
(the set form of the API), the owner and inherited entries stay, and the preview and the
apply warn naming each principal and level taken away. The default stays additive."""

from __future__ import annotations

import copy
from typing import Any
from unittest import mock

import pytest

from providers.access.acl import direct_entries
from providers.access.permissions import PermissionsProvider
from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY

WAREHOUSE = "5a1e2b3c4d5e6f70"
ANALYSTS_USE = {"group_name": "analysts", "permission_level": "CAN_USE"}
ENGINEERS_MANAGE = {"group_name": "data-engineers", "permission_level": "CAN_MANAGE"}
BOB_USE = {"user_name": "bob@example.com", "permission_level": "CAN_USE"}

provider: Any = PermissionsProvider()


def props(connection: dict[str, Any], *entries: dict, authoritative: bool = True
          ) -> dict[str, Any]:
    found: dict[str, Any] = {"object_type": "warehouses", "object_id": WAREHOUSE,
                             "access_controls": copy.deepcopy(list(entries)),
                             CONNECTION_KEY: connection}
    if authoritative:
        found["authoritative"] = True
    return found


def entries_on(client: WorkspaceClient) -> dict:
    answer = client.permissions("warehouses").get(WAREHOUSE)
    return {p: e["permission_level"] for p, e in direct_entries(answer).items()}


@pytest.fixture(autouse=True)
def restored(client: WorkspaceClient):
    yield
    owner = client.connection.client_id
    client.permissions("warehouses").set(
        WAREHOUSE, [{"service_principal_name": owner, "permission_level": "IS_OWNER"}])


@pytest.fixture
def warnings():
    with mock.patch("pulumi.log.warn") as warn:
        yield warn


def test_create_leaves_only_the_declared_entries_and_the_owner(connection, client, warnings):
    client.permissions("warehouses").update(WAREHOUSE, [BOB_USE])  # made outside the stack
    created = provider.create(props(connection, ANALYSTS_USE))
    owner = ("service_principal_name", connection["client_id"])
    assert entries_on(client) == {("group_name", "analysts"): "CAN_USE", owner: "IS_OWNER"}
    assert created.outs["authoritative"] is True
    assert created.outs["access_controls"] == [ANALYSTS_USE]
    warnings.assert_called_once_with(
        f"permissions on warehouses/{WAREHOUSE} are authoritative: user_name "
        "'bob@example.com' loses CAN_USE (not declared in access_controls)")


def test_an_entry_made_outside_shows_in_a_refresh_and_the_preview_names_its_loss(
        connection, client, warnings):
    created = provider.create(props(connection, ANALYSTS_USE))
    warnings.assert_not_called()
    client.permissions("warehouses").update(WAREHOUSE, [BOB_USE, ENGINEERS_MANAGE])
    read = provider.read(created.id, created.outs)
    assert read.outs["access_controls"] == [ANALYSTS_USE, ENGINEERS_MANAGE, BOB_USE]
    diff = provider.diff(created.id, read.outs, props(connection, ANALYSTS_USE))
    assert diff.changes is True and diff.replaces == []
    assert diff.field_changes == [
        "access_controls: group_name 'data-engineers' loses CAN_MANAGE (not declared)",
        "access_controls: user_name 'bob@example.com' loses CAN_USE (not declared)"]
    warnings.assert_called_once_with(
        f"permissions on warehouses/{WAREHOUSE} are authoritative: group_name "
        "'data-engineers' loses CAN_MANAGE; user_name 'bob@example.com' loses CAN_USE "
        "(not declared in access_controls)")
    # The pull-request summary's rows: each principal's level before and after.
    assert PermissionsProvider.field_changes(read.outs, props(connection, ANALYSTS_USE)) == [
        ("access_controls[group_name data-engineers]", "CAN_MANAGE", None),
        ("access_controls[user_name bob@example.com]", "CAN_USE", None)]
    assert PermissionsProvider.field_changes(
        read.outs, props(connection, ANALYSTS_USE, authoritative=False)) is None
    updated = provider.update(created.id, read.outs, props(connection, ANALYSTS_USE))
    assert set(entries_on(client)) == {("group_name", "analysts"),
                                        ("service_principal_name", connection["client_id"])}
    assert provider.diff(created.id, provider.read(created.id, updated.outs).outs,
                         props(connection, ANALYSTS_USE)).changes is False


def test_the_default_stays_additive(connection, client, warnings):
    client.permissions("warehouses").update(WAREHOUSE, [BOB_USE])
    created = provider.create(props(connection, ANALYSTS_USE, authoritative=False))
    assert ("user_name", "bob@example.com") in entries_on(client)
    assert "authoritative" not in created.outs
    warnings.assert_not_called()


def test_an_import_previews_no_change_under_an_authoritative_declaration(connection, client):
    client.permissions("warehouses").update(WAREHOUSE, [ANALYSTS_USE])
    imported = provider.read(f"warehouses/{WAREHOUSE}", {CONNECTION_KEY: connection})
    assert not provider.diff(imported.id, imported.outs, props(connection, ANALYSTS_USE),
                             old_inputs={}).changes
    assert not provider.diff(imported.id, imported.outs,
                             props(connection, ANALYSTS_USE, authoritative=False),
                             old_inputs={}).changes


def test_delete_removes_the_declared_entries_and_keeps_the_owner(connection, client):
    created = provider.create(props(connection, ANALYSTS_USE))
    provider.delete(created.id, created.outs)
    assert entries_on(client) == {("service_principal_name", connection["client_id"]):
                                  "IS_OWNER"}
