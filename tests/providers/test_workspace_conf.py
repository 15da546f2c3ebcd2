"""WorkspaceConf against the emulator, in both wire forms: only the declared keys, their
earlier values recorded and given back (on destroy, and when a key is dropped), drift,
import by `workspace-conf` or by keys; turning IP access lists on, on an emulator of its
own (refused while the lists would block the caller, with what to do)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import InvalidState, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.workspace.ip_access_lists_api import IpAccessListsApi
from providers.workspace.workspace_conf import (
    CONF_ID,
    PREVIOUS_KEY,
    SETTINGS,
    WorkspaceConfProvider,
)
from providers.workspace.workspace_conf_api import WorkspaceConfApi
from tests.conftest import emulator_connection
from tests.providers.support import assert_check_names, client_of, failures
from workspace_emulator.testing import EmulatorInfo, running_emulator

KEYS = ("enableResultsDownloading", "enableWebTerminal", "maxTokenLifetimeDays")


@pytest.fixture
def provider() -> WorkspaceConfProvider:
    return WorkspaceConfProvider()


@pytest.fixture(autouse=True)
def defaults_after(client: WorkspaceClient) -> Iterator[None]:
    """The session's emulator gets its defaults back, whatever the test did."""
    yield
    WorkspaceConfApi(client).set({key: SETTINGS[key][1] or "" for key in KEYS})


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "settings": {"enableResultsDownloading": "False", "maxTokenLifetimeDays": "700"},
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"settings": {"enableFrobnication": "true"}}, "enableFrobnication: not a setting"),
        ({"settings": {"enableWebTerminal": "yes"}}, '"true" or "false"'),
        ({"settings": {"enableWebTerminal": True}}, 'write "true" (quoted)'),
        ({"settings": {"maxTokenLifetimeDays": "0"}}, "from 1 to 730"),
        ({"settings": {"maxTokenLifetimeDays": 30}}, 'write "30"'),
        ({"settings": {}}, "at least one"),
    ],
)
def test_check_names_the_bad_setting(provider, props, change, reason) -> None:
    assert_check_names(provider, props, change, "settings", reason)


def test_check_accepts_valid_input_and_unknowns(provider, props) -> None:
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "settings": UNKNOWN}) == {}


def test_settings_table_is_the_emulators() -> None:
    from workspace_emulator.platform.areas.workspace.workspace_conf.model import SETTINGS as SERVED

    assert {key: default for key, (_, default) in SETTINGS.items()} == {
        key: setting.default for key, setting in SERVED.items()}


def test_lifecycle_gives_back_the_values_before(provider, props, client) -> None:
    made = provider.create(props)
    assert made.id == CONF_ID
    assert made.outs["settings"] == {"enableResultsDownloading": "false",
                                     "maxTokenLifetimeDays": "700"}
    assert made.outs[PREVIOUS_KEY] == {"enableResultsDownloading": "true",
                                       "maxTokenLifetimeDays": ""}  # "": none
    assert WorkspaceConfApi(client).get(KEYS) == {"enableResultsDownloading": "false",
                                               "enableWebTerminal": "false",
                                               "maxTokenLifetimeDays": "700"}
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    # One key changed, one dropped (given back its value before), one added.
    changed = {**props, "settings": {"maxTokenLifetimeDays": "365", "enableWebTerminal": "true"}}
    diff = provider.diff(made.id, read.outs, changed)
    assert diff.changed_keys == ["settings"] and not diff.replaces
    updated = provider.update(made.id, read.outs, changed)
    assert WorkspaceConfApi(client).get(KEYS) == {"enableResultsDownloading": "true",
                                               "enableWebTerminal": "true",
                                               "maxTokenLifetimeDays": "365"}
    assert updated.outs[PREVIOUS_KEY] == {"enableWebTerminal": "false",
                                          "maxTokenLifetimeDays": ""}

    provider.delete(made.id, updated.outs)
    assert WorkspaceConfApi(client).get(KEYS) == {"enableResultsDownloading": "true",
                                               "enableWebTerminal": "false",
                                               "maxTokenLifetimeDays": None}


def test_only_declared_keys_are_touched(provider, client, connection) -> None:
    WorkspaceConfApi(client).set({"enableWebTerminal": "true"})
    props = {"settings": {"enableResultsDownloading": "false"}, CONNECTION_KEY: connection}
    made = provider.create(props)
    assert set(made.outs["settings"]) == {"enableResultsDownloading"}
    provider.delete(made.id, made.outs)
    assert WorkspaceConfApi(client).get(["enableWebTerminal"]) == {"enableWebTerminal": "true"}


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create(props)
    WorkspaceConfApi(client).set({"enableResultsDownloading": "true"})
    read = provider.read(made.id, made.outs)
    assert read.outs["settings"]["enableResultsDownloading"] == "true"
    assert provider.diff(made.id, read.outs, props).changed_keys == ["settings"]
    provider.delete(made.id, read.outs)


def test_import_by_keys_or_by_the_changed_settings(provider, client, connection) -> None:
    WorkspaceConfApi(client).set({"enableWebTerminal": "true", "maxTokenLifetimeDays": "90"})
    bare = {CONNECTION_KEY: connection}
    by_keys = provider.read("enableWebTerminal", bare)
    assert by_keys.outs["settings"] == {"enableWebTerminal": "true"}
    declared = {"settings": {"enableWebTerminal": "true"}, CONNECTION_KEY: connection}
    assert not provider.diff(by_keys.id, by_keys.outs, declared, old_inputs={}).changes
    # A destroy of an imported one leaves the values it found.
    assert by_keys.outs[PREVIOUS_KEY] == {"enableWebTerminal": "true"}
    changed = provider.read(CONF_ID, bare)
    assert changed.outs["settings"] == {"enableWebTerminal": "true", "maxTokenLifetimeDays": "90"}
    with pytest.raises(ValueError, match="comma-separated list of its keys"):
        provider.read("enableNothing", bare)


# --- turning IP access lists on ----------------------------------------------------------


@pytest.fixture(scope="module")
def own() -> Iterator[EmulatorInfo]:
    """An emulator of its own: the switch turned on must not reach the session's tests."""
    with running_emulator() as info:
        yield info


def test_ip_access_lists_on_only_with_the_caller_allowed(provider, own) -> None:
    connection = emulator_connection(own, "public").to_props()
    client = client_of(connection)
    props = {"settings": {"enableIpAccessLists": "true"}, CONNECTION_KEY: connection}
    # The initial data's allow list leaves out loopback: refused, and said what to do.
    with pytest.raises(InvalidState, match="declare an enabled IpAccessList of type ALLOW"):
        provider.create(props)
    assert WorkspaceConfApi(client).get(["enableIpAccessLists"]) == {"enableIpAccessLists": "false"}
    loopback = IpAccessListsApi(client).create("loopback", "ALLOW", ["127.0.0.1"])
    made = provider.create(props)
    assert WorkspaceConfApi(client).get(["enableIpAccessLists"]) == {"enableIpAccessLists": "true"}
    provider.delete(made.id, made.outs)
    assert WorkspaceConfApi(client).get(["enableIpAccessLists"]) == {"enableIpAccessLists": "false"}
    IpAccessListsApi(client).delete(str(loopback["list_id"]))


def test_adopted_as_the_settings_that_differ(provider, client, connection) -> None:
    from providers.core.registry import kind_named
    from stacks.adoption import candidate_of, listed

    kind = kind_named("WorkspaceConf")
    WorkspaceConfApi(client).set({"enableWebTerminal": "true"})
    assert [found.import_id for found in listed(client, kind)] == [CONF_ID]
    candidate = candidate_of(client, kind, CONF_ID, CONF_ID)
    assert candidate is not None and candidate.problem is None
    assert candidate.item == {"settings": {"enableWebTerminal": "true"}}
    read = provider.read(CONF_ID, {CONNECTION_KEY: connection})
    news = {**candidate.item, CONNECTION_KEY: connection}
    assert not provider.diff(CONF_ID, read.outs, news, old_inputs={}).changes
