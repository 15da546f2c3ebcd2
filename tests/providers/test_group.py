"""Group against the emulator, in both wire forms."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.identity.group import GroupProvider
from providers.identity.groups_api import GROUPS_PATH, GroupsApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_check_names, failures

ALICE = "200000000000001"


@pytest.fixture
def provider() -> GroupProvider:
    return GroupProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "display_name": f"team-{uuid.uuid4().hex[:8]}",
        "entitlements": ["workspace-access", "databricks-sql-access"],
        CONNECTION_KEY: connection,
    }


def named(client: WorkspaceClient, name: str) -> list[dict]:
    return GroupsApi(client).named(name)


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"display_name": "  "}, "display_name", "must not be empty"),
        ({"display_name": "admins"}, "display_name", "group of the workspace itself"),
        ({"entitlements": ["be-root"]}, "entitlements.0", "allow-cluster-create"),
        ({"entitlements": ["workspace-access"] * 2}, "entitlements", "more than once"),
        ({"external_id": ""}, "external_id", "must not be empty"),
        ({"members": [ALICE]}, "members", "Extra inputs"),
        ({"display_name": 7}, "display_name", "valid string"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "display_name": UNKNOWN}) == {}


def test_create_read_update_delete(provider, props, client) -> None:
    made = provider.create(props)
    [group] = named(client, props["display_name"])
    assert group["id"] == made.id
    assert made.outs["entitlements"] == ["databricks-sql-access", "workspace-access"]
    assert "external_id" not in made.outs  # not declared: not managed
    read = provider.read(made.id, made.outs)
    assert read.id == made.id
    assert not provider.diff(made.id, read.outs, props).changes

    renamed = {**props, "display_name": props["display_name"] + "-x", "entitlements": []}
    diff = provider.diff(made.id, made.outs, renamed)
    assert diff.changes and not diff.replaces
    updated = provider.update(made.id, made.outs, renamed)
    assert GroupsApi(client).get(made.id)["displayName"] == renamed["display_name"]
    assert updated.outs["entitlements"] == []

    provider.delete(made.id, updated.outs)
    assert named(client, renamed["display_name"]) == []
    assert provider.read(made.id, updated.outs).id is None  # gone reads as gone
    provider.delete(made.id, updated.outs)  # deleting a gone group is done


def test_update_keeps_members_added_elsewhere(provider, props, client) -> None:
    made = provider.create(props)
    GroupsApi(client).add_member(made.id, ALICE)
    provider.update(made.id, made.outs, {**props, "external_id": "idp-7"})
    group = GroupsApi(client).get(made.id)
    assert [m["value"] for m in group["members"]] == [ALICE]
    assert group["externalId"] == "idp-7"
    provider.delete(made.id, made.outs)


def test_out_of_band_change_shows_in_refresh(provider, props, client) -> None:
    made = provider.create(props)
    GroupsApi(client).patch(made.id, [{"op": "replace", "path": "entitlements", "value": []}])
    read = provider.read(made.id, made.outs)
    assert read.outs["entitlements"] == []
    assert provider.diff(made.id, read.outs, props).changed_keys == ["entitlements"]
    provider.delete(made.id, made.outs)


def test_import_records_what_the_service_shows(provider, props, client) -> None:
    made = provider.create({**props, "external_id": "idp-1"})
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["display_name"] == props["display_name"]
    assert imported.outs["external_id"] == "idp-1"
    provider.delete(made.id, made.outs)


def test_create_adopts_an_empty_group_left_by_an_interrupted_create(provider, props, client):
    left = GroupsApi(client).create({"displayName": props["display_name"]})
    made = provider.create(props)
    assert made.id == left["id"]
    assert len(named(client, props["display_name"])) == 1
    assert GroupsApi(client).get(made.id)["entitlements"]  # brought to the declared state
    provider.delete(made.id, made.outs)


def test_create_adopts_after_a_lost_answer(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, GROUPS_PATH)
    made = provider.create(props)
    assert lost == [GROUPS_PATH]
    assert [g["id"] for g in named(client, props["display_name"])] == [made.id]
    provider.delete(made.id, made.outs)


def test_create_refuses_a_group_in_use(provider, props, client) -> None:
    theirs = GroupsApi(client).create({"displayName": props["display_name"]})
    GroupsApi(client).add_member(theirs["id"], ALICE)
    with pytest.raises(AlreadyExists, match="import it"):
        provider.create(props)
    GroupsApi(client).delete(theirs["id"])
