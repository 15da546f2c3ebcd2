"""User against the emulator, in both wire forms: a workspace user (the emulator's workspace is
identity-federated: an account user is assigned, keeping its id), names matched regardless
of case, adoption after an interrupted create, drift, import."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.identity.groups_api import USERS_PATH
from providers.identity.user import UserProvider
from providers.identity.users_api import UsersApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_check_names, failures

CAROL = ("300000000000001", "carol@example.com")  # an account user (initial data)


@pytest.fixture
def provider() -> UserProvider:
    return UserProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "user_name": f"u-{uuid.uuid4().hex[:8]}@example.com",
        "display_name": "Una User",
        "entitlements": ["workspace-access", "databricks-sql-access"],
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"user_name": " "}, "user_name", "must not be empty"),
        ({"user_name": "a b@example.com"}, "user_name", "without spaces"),
        ({"display_name": ""}, "display_name", "must not be empty"),
        ({"active": "yes"}, "active", "valid boolean"),
        ({"entitlements": ["be-root"]}, "entitlements.0", "allow-cluster-create"),
        ({"entitlements": ["workspace-access"] * 2}, "entitlements", "more than once"),
        ({"groups": ["1"]}, "groups", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "user_name": UNKNOWN}) == {}


def test_create_read_update_delete(provider, props, client) -> None:
    made = provider.create(props)
    assert made.outs["user_name"] == props["user_name"]
    assert made.outs["entitlements"] == ["databricks-sql-access", "workspace-access"]
    read = provider.read(made.id, made.outs)
    assert read.id == made.id and read.outs == made.outs
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "display_name": "Una U.", "active": False, "entitlements": []}
    diff = provider.diff(made.id, made.outs, changed)
    assert diff.changes and not diff.replaces
    assert sorted(diff.changed_keys) == ["active", "display_name", "entitlements"]
    updated = provider.update(made.id, made.outs, changed)
    user = UsersApi(client).get(made.id)
    assert (user["displayName"], user["active"], user.get("entitlements")) == (
        "Una U.", False, [])
    assert updated.outs["entitlements"] == []

    provider.delete(made.id, updated.outs)
    assert UsersApi(client).named(props["user_name"]) == []
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)  # a gone user is deleted


def test_names_match_regardless_of_case_and_another_name_replaces(provider, props) -> None:
    made = provider.create(props)
    shouting = {**props, "user_name": props["user_name"].upper()}
    assert not provider.diff(made.id, made.outs, shouting).changes
    other = {**props, "user_name": "x" + props["user_name"]}
    diff = provider.diff(made.id, made.outs, other)
    assert diff.replaces == ["user_name"] and not diff.delete_before_replace
    assert provider.diff(made.id, made.outs, {**props, "user_name": UNKNOWN}).replaces
    provider.delete(made.id, made.outs)


def test_fields_left_out_are_not_managed(provider, props, client) -> None:
    made = provider.create(props)
    bare = {"user_name": props["user_name"], CONNECTION_KEY: props[CONNECTION_KEY]}
    assert not provider.diff(made.id, made.outs, bare, old_inputs=bare).changes
    provider.delete(made.id, made.outs)


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create(props)
    UsersApi(client).patch(made.id, [{"op": "replace", "path": "active", "value": False}])
    read = provider.read(made.id, made.outs)
    assert read.outs["active"] is False
    assert provider.diff(made.id, read.outs, props).changed_keys == ["active"]
    provider.update(made.id, read.outs, props)
    assert UsersApi(client).get(made.id)["active"] is True
    provider.delete(made.id, made.outs)


def test_import_by_id_then_no_diff(provider, props) -> None:
    made = provider.create({**props, "external_id": "idp-9"})
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["user_name"] == props["user_name"]
    assert imported.outs["external_id"] == "idp-9"
    declared = {**props, "external_id": "idp-9"}
    assert not provider.diff(made.id, imported.outs, declared, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_an_account_user_is_assigned_and_only_unassigned_on_delete(provider, connection,
                                                                   client) -> None:
    props = {"user_name": CAROL[1].upper(), CONNECTION_KEY: connection}
    made = provider.create(props)
    assert made.id == CAROL[0]
    assert made.outs["user_name"] == CAROL[1]  # the account's spelling
    assert not provider.diff(made.id, made.outs, props).changes
    provider.delete(made.id, made.outs)
    again = provider.create(props)  # the account user is still there: the same id
    assert again.id == CAROL[0]
    provider.delete(again.id, again.outs)


def test_create_adopts_a_user_left_by_an_interrupted_create(provider, props, client) -> None:
    left = UsersApi(client).create({"userName": props["user_name"]})
    made = provider.create(props)
    assert made.id == left["id"]
    assert UsersApi(client).get(made.id)["displayName"] == "Una User"  # brought to the spec
    provider.delete(made.id, made.outs)


def test_create_adopts_after_a_lost_answer(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, USERS_PATH)
    made = provider.create(props)
    assert lost == [USERS_PATH]
    assert [u["id"] for u in UsersApi(client).named(props["user_name"])] == [made.id]
    provider.delete(made.id, made.outs)
