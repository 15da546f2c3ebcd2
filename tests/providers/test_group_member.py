"""GroupMember against the emulator, in both wire forms: PATCH add/remove of one member."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.identity.group_member import GroupMemberProvider, parse_membership_id
from providers.identity.groups_api import GroupsApi
from providers.identity.service_principals_api import ServicePrincipalsApi
from tests.providers.support import assert_check_names, failures

ALICE = "200000000000001"
BOB = "200000000000002"
ANALYSTS = "100000000000004"


@pytest.fixture
def provider() -> GroupMemberProvider:
    return GroupMemberProvider()


@pytest.fixture
def group(client: WorkspaceClient) -> Iterator[str]:
    made = GroupsApi(client).create({"displayName": f"members-{uuid.uuid4().hex[:8]}"})
    yield made["id"]
    GroupsApi(client).delete(made["id"])


@pytest.fixture
def props(connection: dict[str, Any], group: str) -> dict[str, Any]:
    return {"group_id": group, "member_id": BOB, CONNECTION_KEY: connection}


def members(client: WorkspaceClient, group_id: str) -> set[str]:
    return {m["value"] for m in GroupsApi(client).get(group_id).get("members") or []}


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"group_id": "data-engineers"}, "group_id", "SCIM id"),
        ({"member_id": "bob@example.com"}, "member_id", "get_user"),
        ({"member_id": ""}, "member_id", "SCIM id"),
        ({"group_id": 12}, "group_id", "valid string"),
        ({"group_id": "1" * 21}, "group_id", "SCIM id"),
        ({"role": "owner"}, "role", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_refuses_a_group_in_itself_and_a_missing_member(provider, props) -> None:
    found = failures(provider, {**props, "member_id": props["group_id"]})
    assert "member of itself" in found["member_id"]
    missing = {k: v for k, v in props.items() if k != "member_id"}
    assert failures(provider, missing)["member_id"] == "Field required"
    assert failures(provider, {**props, "member_id": UNKNOWN}) == {}


def test_create_read_delete(provider, props, client, group) -> None:
    GroupsApi(client).add_member(group, ALICE)  # added elsewhere: must stay
    made = provider.create(props)
    assert parse_membership_id(made.id) == (group, BOB)
    assert members(client, group) == {ALICE, BOB}
    read = provider.read(made.id, made.outs)
    assert read.outs["member_display"] == "Bob Analyst"
    assert not provider.diff(made.id, read.outs, props).changes
    provider.delete(made.id, made.outs)
    assert members(client, group) == {ALICE}
    assert provider.read(made.id, made.outs).id is None
    provider.delete(made.id, made.outs)  # already gone: done


def test_a_group_and_a_principal_as_members(provider, props, client, group) -> None:
    principal = ServicePrincipalsApi(client).list('displayName eq "iac-bootstrap"')[0]["id"]
    as_group = provider.create({**props, "member_id": ANALYSTS})
    as_principal = provider.create({**props, "member_id": principal})
    assert members(client, group) == {ANALYSTS, principal}
    provider.delete(as_group.id, as_group.outs)
    provider.delete(as_principal.id, as_principal.outs)
    assert members(client, group) == set()


def test_create_adopts_a_membership_already_there(provider, props, client, group) -> None:
    GroupsApi(client).add_member(group, BOB)  # an interrupted create took effect
    made = provider.create(props)
    assert members(client, group) == {BOB}
    provider.delete(made.id, made.outs)


def test_every_change_replaces(provider, props) -> None:
    diff = provider.diff("1|2", {**props}, {**props, "member_id": ALICE})
    assert diff.replaces == ["member_id"]
    assert not diff.delete_before_replace


def test_removed_out_of_band_reads_as_gone(provider, props, client, group) -> None:
    made = provider.create(props)
    GroupsApi(client).remove_member(group, BOB)
    assert provider.read(made.id, made.outs).id is None


def test_a_deleted_group_reads_as_gone(provider, connection, client) -> None:
    doomed = GroupsApi(client).create({"displayName": f"doomed-{uuid.uuid4().hex[:8]}"})
    props = {"group_id": doomed["id"], "member_id": BOB, CONNECTION_KEY: connection}
    made = provider.create(props)
    GroupsApi(client).delete(doomed["id"])
    assert provider.read(made.id, made.outs).id is None
    provider.delete(made.id, made.outs)


def test_import_by_membership_id(provider, props, group) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert (imported.outs["group_id"], imported.outs["member_id"]) == (group, BOB)
    with pytest.raises(ValueError, match="<group id>"):
        provider.read("not-a-membership", {CONNECTION_KEY: props[CONNECTION_KEY]})
    provider.delete(made.id, made.outs)
