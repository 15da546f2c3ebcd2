"""Permissions (any object type) against the emulator, in both wire forms: levels judged per
type without a call, declared entries only, the owner kept and moved only when declared."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import responses

from providers.access.acl import direct_entries, levels_of
from providers.access.permissions import PermissionsProvider
from providers.client import InvalidParameter, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from tests.providers.support import failures

CLUSTER = "0101-120000-shared01"
WAREHOUSE = "5a1e2b3c4d5e6f70"
NOTEBOOK = "1710000000000001"

ANALYSTS_ATTACH = {"group_name": "analysts", "permission_level": "CAN_ATTACH_TO"}
ENGINEERS_RESTART = {"group_name": "data-engineers", "permission_level": "CAN_RESTART"}
BOB = {"user_name": "bob@example.com", "permission_level": "CAN_ATTACH_TO"}

provider: Any = PermissionsProvider()  # its results' outs are optional only in the SDK's types


def props(connection: dict[str, Any], object_type: str, object_id: str, *entries: dict,
          owner: dict | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {
        "object_type": object_type, "object_id": object_id,
        "access_controls": copy.deepcopy(list(entries)), CONNECTION_KEY: connection,
    }
    if owner is not None:
        found["owner"] = owner
    return found


def entries_on(client: WorkspaceClient, object_type: str, object_id: str) -> dict:
    answer = client.permissions(object_type).get(object_id)
    return {p: e["permission_level"] for p, e in direct_entries(answer).items()}


@pytest.fixture(autouse=True)
def restored(client: WorkspaceClient):
    """Each test leaves the shared objects' entries as it found them (owners included)."""
    yield
    client.permissions("clusters").set(CLUSTER, [])
    client.permissions("notebooks").set(NOTEBOOK, [])
    owner = client.connection.client_id
    client.permissions("warehouses").set(
        WAREHOUSE, [{"service_principal_name": owner, "permission_level": "IS_OWNER"}])


# --- check ---------------------------------------------------------------------------

BAD = [
    ({"object_type": "gizmos"}, "object_type"),
    ({"object_id": ""}, "object_id"),
    ({"object_id": "a/b"}, "object_id"),
    ({"access_controls": [{**ANALYSTS_ATTACH, "permission_level": "CAN_VIEW"}]},
     "access_controls.0.permission_level"),
    ({"access_controls": [{**ANALYSTS_ATTACH, "permission_level": "IS_OWNER"}]},
     "access_controls.0.permission_level"),
    ({"access_controls": [{"permission_level": "CAN_ATTACH_TO"}]}, "access_controls.0"),
    ({"access_controls": [ANALYSTS_ATTACH, ANALYSTS_ATTACH]}, "access_controls"),
    ({"access_controls": []}, "(inputs)"),
    ({"owner": {"user_name": "alice@example.com"}}, "owner"),  # clusters have no owner
    ({"owner": {"group_name": "admins"}}, "owner.group_name"),
    ({"colour": "blue"}, "colour"),
]


@pytest.mark.parametrize(("change", "field"), BAD)
def test_check_names_the_bad_field_without_a_call(connection, change, field):
    news = {**props(connection, "clusters", CLUSTER, ANALYSTS_ATTACH), **copy.deepcopy(change)}
    with responses.RequestsMock():
        assert list(failures(provider, news)) == [field]


def test_check_says_which_levels_the_type_allows(connection):
    news = props(connection, "notebooks", NOTEBOOK,
                 {"group_name": "analysts", "permission_level": "CAN_ATTACH_TO"})
    reason = failures(provider, news)["access_controls.0.permission_level"]
    assert "CAN_READ" in reason and "CAN_MANAGE" in reason


def test_check_refuses_the_owner_among_the_entries(connection):
    owner = {"user_name": "alice@example.com"}
    news = props(connection, "warehouses", WAREHOUSE,
                 {"user_name": "alice@example.com", "permission_level": "CAN_USE"}, owner=owner)
    assert "owner" in failures(provider, news)


@pytest.mark.parametrize("object_type", ["jobs", "clusters", "notebooks", "warehouses",
                                         "pipelines", "registered-models", "sql/warehouses"])
def test_check_accepts_each_types_own_levels(connection, object_type):
    level = next(lv for lv in levels_of(object_type.replace("sql/", "")) if lv != "IS_OWNER")
    news = props(connection, object_type, "123",
                 {"group_name": "analysts", "permission_level": level})
    assert failures(provider, news) == {}
    assert failures(provider, {**news, "object_id": UNKNOWN}) == {}


def test_levels_are_the_sdks():
    assert levels_of("clusters") == ("CAN_ATTACH_TO", "CAN_MANAGE", "CAN_RESTART")
    assert "IS_OWNER" in levels_of("warehouses") and "IS_OWNER" not in levels_of("notebooks")


# --- the lifecycle ---------------------------------------------------------------------


def test_create_read_update_delete_only_declared_entries(connection, client):
    client.permissions("clusters").update(CLUSTER, [BOB])  # someone else's
    created = provider.create(props(connection, "clusters", CLUSTER, ANALYSTS_ATTACH))
    assert created.id == f"clusters/{CLUSTER}"
    assert created.outs["access_controls"] == [ANALYSTS_ATTACH]
    assert provider.read(created.id, created.outs).outs == created.outs

    news = props(connection, "clusters", CLUSTER, ENGINEERS_RESTART)
    diff = provider.diff(created.id, created.outs, news)
    assert diff.changes is True and diff.replaces == []
    updated = provider.update(created.id, created.outs, news)
    assert entries_on(client, "clusters", CLUSTER) == {
        ("group_name", "data-engineers"): "CAN_RESTART",
        ("user_name", "bob@example.com"): "CAN_ATTACH_TO",
    }
    assert provider.diff(created.id, updated.outs, news).changes is False
    other = props(connection, "notebooks", NOTEBOOK, ENGINEERS_RESTART)
    assert provider.diff(created.id, updated.outs, other).replaces == ["object_id", "object_type"]

    provider.delete(created.id, updated.outs)
    assert entries_on(client, "clusters", CLUSTER) == {
        ("user_name", "bob@example.com"): "CAN_ATTACH_TO"}


def test_refresh_shows_out_of_band_changes_of_declared_entries(connection, client):
    created = provider.create(props(connection, "clusters", CLUSTER, ANALYSTS_ATTACH))
    client.permissions("clusters").update(
        CLUSTER, [{**ANALYSTS_ATTACH, "permission_level": "CAN_MANAGE"}, BOB])
    read = provider.read(created.id, created.outs)
    assert read.outs["access_controls"] == [{**ANALYSTS_ATTACH, "permission_level": "CAN_MANAGE"}]
    assert provider.diff(created.id, read.outs,
                         props(connection, "clusters", CLUSTER, ANALYSTS_ATTACH)).changes


def test_a_gone_object_reads_as_gone_and_deletes(connection):
    outs = props(connection, "clusters", "0000-000000-nothere0", ANALYSTS_ATTACH)
    assert provider.read("clusters/0000-000000-nothere0", outs).id is None
    provider.delete("clusters/0000-000000-nothere0", outs)


def test_create_after_an_interrupted_create_converges(connection, client):
    client.permissions("notebooks").update(NOTEBOOK, [
        {"group_name": "analysts", "permission_level": "CAN_READ"}])  # the earlier attempt
    news = props(connection, "notebooks", NOTEBOOK,
                 {"group_name": "analysts", "permission_level": "CAN_READ"})
    created = provider.create(news)
    assert entries_on(client, "notebooks", NOTEBOOK) == {("group_name", "analysts"): "CAN_READ"}
    assert provider.diff(created.id, created.outs, news).changes is False


def test_import_takes_every_direct_entry_and_the_owner(connection, client):
    client.permissions("warehouses").update(WAREHOUSE, [
        {"group_name": "analysts", "permission_level": "CAN_USE"}])
    imported = provider.read(f"warehouses/{WAREHOUSE}", {CONNECTION_KEY: connection})
    owner = {"service_principal_name": connection["client_id"]}
    assert imported.outs["access_controls"] == [
        {"group_name": "analysts", "permission_level": "CAN_USE"}]
    assert imported.outs["owner"] == owner
    declared = props(connection, "warehouses", WAREHOUSE,
                     {"group_name": "analysts", "permission_level": "CAN_USE"})
    assert provider.diff(imported.id, imported.outs, declared, old_inputs={}).changes is False
    # the older spelling of the type is the same object
    assert provider.read(f"sql/warehouses/{WAREHOUSE}", {CONNECTION_KEY: connection}).outs


def test_the_owner_is_never_demoted_unless_ownership_moves(connection, client):
    as_user = {"service_principal_name": connection["client_id"], "permission_level": "CAN_USE"}
    with pytest.raises(ValueError, match="owns warehouses"):
        provider.create(props(connection, "warehouses", WAREHOUSE, as_user))
    assert entries_on(client, "warehouses", WAREHOUSE)[
        ("service_principal_name", connection["client_id"])] == "IS_OWNER"


def test_ownership_moves_when_declared_and_drift_is_restored(connection, client):
    alice = {"user_name": "alice@example.com"}
    news = props(connection, "warehouses", WAREHOUSE,
                 {"group_name": "analysts", "permission_level": "CAN_USE"}, owner=alice)
    created = provider.create(news)
    assert entries_on(client, "warehouses", WAREHOUSE) == {
        ("user_name", "alice@example.com"): "IS_OWNER",
        ("group_name", "analysts"): "CAN_USE",
    }
    assert created.outs["owner"] == alice
    assert provider.diff(created.id, created.outs, news).changes is False

    client.permissions("warehouses").update(WAREHOUSE, [
        {"user_name": "bob@example.com", "permission_level": "IS_OWNER"}])
    drifted = provider.read(created.id, created.outs)
    assert drifted.outs["owner"] == {"user_name": "bob@example.com"}
    diff = provider.diff(created.id, drifted.outs, news)
    assert diff.changes is True and diff.changed_keys == ["owner"]
    provider.update(created.id, drifted.outs, news)
    assert entries_on(client, "warehouses", WAREHOUSE)[("user_name", "alice@example.com")] == (
        "IS_OWNER")

    # removing an entry (a PUT) keeps the owner; destroy leaves the owner as it is
    fewer = props(connection, "warehouses", WAREHOUSE,
                  {"user_name": "bob@example.com", "permission_level": "CAN_VIEW"}, owner=alice)
    updated = provider.update(created.id, created.outs, fewer)
    assert entries_on(client, "warehouses", WAREHOUSE) == {
        ("user_name", "alice@example.com"): "IS_OWNER",
        ("user_name", "bob@example.com"): "CAN_VIEW",
    }
    provider.delete(created.id, updated.outs)
    assert entries_on(client, "warehouses", WAREHOUSE) == {
        ("user_name", "alice@example.com"): "IS_OWNER"}


def test_an_unknown_principal_fails_with_the_services_message(connection, client):
    with pytest.raises(InvalidParameter, match="no-such-group"):
        provider.create(props(connection, "clusters", CLUSTER,
                              {"group_name": "no-such-group", "permission_level": "CAN_MANAGE"}))
    assert entries_on(client, "clusters", CLUSTER) == {}


def test_a_malformed_import_id_is_refused(connection):
    with pytest.raises(ValueError, match="<object type>/<object id>"):
        provider.read("gizmos/1", {CONNECTION_KEY: connection})
