"""IpAccessList against the emulator, in both wire forms; the refusal of a list that would
block the caller on an emulator of its own (the feature turned on)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import InvalidState, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.workspace.ip_access_list import IpAccessListProvider
from providers.workspace.ip_access_lists_api import IP_ACCESS_LISTS_PATH, IpAccessListsApi
from tests.conftest import emulator_connection
from tests.emulator.support import Api
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_check_names, failures
from workspace_emulator.testing import EmulatorInfo, fetch_token, running_emulator


@pytest.fixture
def provider() -> IpAccessListProvider:
    return IpAccessListProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "label": f"office-{uuid.uuid4().hex[:8]}",
        "list_type": "ALLOW",
        "ip_addresses": ["10.20.0.0/16", "10.30.1.7"],
        CONNECTION_KEY: connection,
    }


def labelled(client: WorkspaceClient, label: str) -> list[dict]:
    return [item for item in IpAccessListsApi(client).list() if item["label"] == label]


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"label": " "}, "label", "must not be empty"),
        ({"list_type": "DENY"}, "list_type", "'ALLOW' or 'BLOCK'"),
        ({"ip_addresses": ["10.0.0.1", "10.0.0.300"]}, "ip_addresses", "[1] '10.0.0.300'"),
        ({"ip_addresses": ["2001:db8::/32"]}, "ip_addresses", "IPv4 only"),
        ({"ip_addresses": ["10.0.0.1/24"]}, "ip_addresses", "write the range as 10.0.0.0/24"),
        ({"ip_addresses": ["10.0.0.1", "10.0.0.1"]}, "ip_addresses", "more than once"),
        (
            {"ip_addresses": [f"10.0.{i // 256}.{i % 256}" for i in range(1001)]},
            "ip_addresses",
            "takes 1000",
        ),
        ({"enabled": "yes"}, "enabled", "valid boolean"),
        ({"comment": "x"}, "comment", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "ip_addresses": UNKNOWN}) == {}


def test_create_read_update_delete(provider, props, client) -> None:
    made = provider.create(props)
    [found] = labelled(client, props["label"])
    assert found["list_id"] == made.id and found["enabled"] is True
    assert made.outs["address_count"] == 2
    # Reordered addresses are no change.
    reordered = {**props, "ip_addresses": list(reversed(props["ip_addresses"]))}
    assert not provider.diff(made.id, made.outs, reordered).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "list_type": "BLOCK", "ip_addresses": ["10.40.0.0/24"], "enabled": False}
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {"list_type", "ip_addresses", "enabled"}
    assert not diff.replaces  # every field changes in place
    updated = provider.update(made.id, made.outs, changed)
    item = IpAccessListsApi(client).get(made.id)
    assert (item["list_type"], item["ip_addresses"], item["enabled"]) == (
        "BLOCK",
        ["10.40.0.0/24"],
        False,
    )
    assert updated.outs["address_count"] == 1

    provider.delete(made.id, updated.outs)
    assert labelled(client, props["label"]) == []
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)


def test_a_disabled_list_is_made_disabled(provider, props, client) -> None:
    made = provider.create({**props, "enabled": False})
    assert IpAccessListsApi(client).get(made.id)["enabled"] is False
    assert made.outs["enabled"] is False
    provider.delete(made.id, made.outs)


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create(props)
    IpAccessListsApi(client).update(made.id, {"ip_addresses": ["10.99.0.1"]})
    read = provider.read(made.id, made.outs)
    assert provider.diff(made.id, read.outs, props).changed_keys == ["ip_addresses"]
    provider.delete(made.id, made.outs)


def test_import_by_list_id(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["ip_addresses"] == sorted(props["ip_addresses"])
    assert imported.outs["label"] == props["label"]
    provider.delete(made.id, made.outs)


def test_create_adopts_after_a_lost_answer(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, IP_ACCESS_LISTS_PATH)
    made = provider.create(props)
    assert lost == [IP_ACCESS_LISTS_PATH]
    assert [item["list_id"] for item in labelled(client, props["label"])] == [made.id]
    provider.delete(made.id, made.outs)


# --- the service refuses a list that would block the caller ----------------------------


@pytest.fixture(scope="module")
def guarded() -> Iterator[EmulatorInfo]:
    """An emulator with the feature on; the provider calls from 127.0.0.1."""
    with running_emulator() as info:
        api = Api(info.base_url, fetch_token(info))
        for item in api.get("/api/2.0/ip-access-lists").json()["ip_access_lists"]:
            api.delete(f"/api/2.0/ip-access-lists/{item['list_id']}")
        enabled = api.patch("/api/2.0/workspace-conf", json={"enableIpAccessLists": "true"})
        assert enabled.status_code == 200, enabled.text
        yield info


@pytest.mark.parametrize("wire_form", ["legacy", "public"])
def test_a_list_that_would_block_the_caller_is_refused(provider, guarded, wire_form) -> None:
    connection = emulator_connection(guarded, wire_form).to_props()
    blocking = {
        "label": "self",
        "list_type": "BLOCK",
        "ip_addresses": ["127.0.0.0/8"],
        CONNECTION_KEY: connection,
    }
    with pytest.raises(InvalidState, match="add that address to an enabled ALLOW list"):
        provider.create(blocking)
    allowing = {**blocking, "list_type": "ALLOW", "ip_addresses": ["127.0.0.1"]}
    made = provider.create(allowing)
    with pytest.raises(InvalidState, match="would block"):
        provider.update(made.id, made.outs, {**allowing, "ip_addresses": ["10.0.0.1"]})
    # A disabled list blocks nobody.
    provider.update(made.id, made.outs, {**allowing, "enabled": False})
    provider.delete(made.id, made.outs)
