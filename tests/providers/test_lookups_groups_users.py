"""The group and user lookups against the emulator, in both wire forms."""

from __future__ import annotations

import uuid

import pytest

from providers import lookups
from providers.client import WorkspaceClient
from providers.identity.groups_api import GroupsApi
from providers.lookups import LookupFailed
from tests.conftest import emulator_fixture

ALICE = "200000000000001"
BOB = "200000000000002"
DATA_ENGINEERS = "100000000000003"

# An emulator of this module's own: the groups as the initial data has them, whichever tests
# of the session's emulator (principals joining groups) ran before in this process.
emulator = emulator_fixture("module")


def test_group_by_name_and_by_id(client: WorkspaceClient) -> None:
    by_name = lookups.find_group(client, display_name="data-engineers")
    assert by_name == {
        "id": DATA_ENGINEERS,
        "display_name": "data-engineers",
        "external_id": None,
        "members": [ALICE],
        "entitlements": [],
    }
    assert lookups.find_group(client, group_id=DATA_ENGINEERS) == by_name


def test_group_names_match_exactly(client: WorkspaceClient) -> None:
    name = f"Lookup-{uuid.uuid4().hex[:8]}"
    made = GroupsApi(client).create({"displayName": name, "entitlements": [
        {"value": "workspace-access"}], "members": [{"value": BOB}]})
    try:
        found = lookups.find_group(client, display_name=name)
        assert (found["id"], found["members"], found["entitlements"]) == (
            made["id"], [BOB], ["workspace-access"])
        with pytest.raises(LookupFailed, match=f"no group named '{name.lower()}'"):
            lookups.find_group(client, display_name=name.lower())
    finally:
        GroupsApi(client).delete(made["id"])


def test_missing_group_fails_naming_it(client: WorkspaceClient) -> None:
    with pytest.raises(LookupFailed, match="no group with group_id '999'"):
        lookups.find_group(client, group_id="999")


def test_user_by_user_name_ignores_case(client: WorkspaceClient) -> None:
    found = lookups.find_user(client, user_name="Alice@Example.com")
    assert found["id"] == ALICE
    assert found["user_name"] == "alice@example.com"
    assert found["display_name"] == "Alice Admin"
    assert DATA_ENGINEERS in found["groups"]
    with pytest.raises(LookupFailed, match="no user with user_name 'nobody@example.com'"):
        lookups.find_user(client, user_name="nobody@example.com")


def test_exactly_one_key() -> None:
    with pytest.raises(LookupFailed, match="give display_name or group_id"):
        lookups.get_group({}, display_name="a", group_id="1")


def test_current_user_is_who_the_client_signs_in_as(client: WorkspaceClient) -> None:
    """SCIM Me: the test client signs in as the bootstrap service principal."""
    found = lookups.find_current_user(client)
    principal = lookups.find_service_principal(client, display_name="iac-bootstrap")
    assert found == {
        "id": principal["id"],
        "user_name": principal["application_id"],
        "display_name": "iac-bootstrap",
        "application_id": principal["application_id"],
        "home": f"/Users/{principal['application_id']}",
        "groups": sorted(lookups.find_group(client, display_name=name)["id"]
                         for name in principal["groups"]),
    }
    assert lookups.find_group(client, display_name="admins")["id"] in found["groups"]
