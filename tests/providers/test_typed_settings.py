"""Typed workspace settings against the emulator, in both wire forms: create, read, update
in place, a field no longer declared back to its default, drift, import with no diff, delete
giving the default back (DELETE with the etag, or the default written where the type has
no DELETE), and the etag handshake retried once when someone writes the setting between
the read and the write. Each input rule names its field and what it takes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import WorkspaceClient, WorkspaceError
from providers.core.lifecycle import CONNECTION_KEY
from providers.workspace.automatic_cluster_update_setting import (
    AutomaticClusterUpdateSettingProvider,
)
from providers.workspace.compliance_security_profile_setting import (
    ComplianceSecurityProfileSettingProvider,
)
from providers.workspace.default_namespace_setting import DefaultNamespaceSettingProvider
from providers.workspace.disable_legacy_dbfs_setting import DisableLegacyDbfsSettingProvider
from providers.workspace.restrict_workspace_admins_setting import (
    RestrictWorkspaceAdminsSettingProvider,
)
from providers.workspace.settings_api import SettingsApi
from providers.workspace.typed_setting import restore, write
from tests.providers.support import assert_check_names

DBFS = DisableLegacyDbfsSettingProvider.setting
ADMINS = RestrictWorkspaceAdminsSettingProvider.setting
UPDATES = AutomaticClusterUpdateSettingProvider.setting
NAMESPACE = DefaultNamespaceSettingProvider.setting


def message(client: WorkspaceClient, setting: Any) -> dict[str, Any]:
    return dict(SettingsApi(client).get(setting.type_name)[setting.message])


@pytest.fixture(autouse=True)
def defaults_after(client: WorkspaceClient) -> Iterator[None]:
    """The session's emulator gets a new workspace's settings back, whatever the test did."""
    yield
    for setting in (DBFS, ADMINS, NAMESPACE):
        restore(client, setting, [])
    restore(client, UPDATES, list(UPDATES.default))


def test_create_read_update_drift_import_delete(connection, client) -> None:
    provider: Any = DisableLegacyDbfsSettingProvider()  # its results as the engine sees them
    props = {"value": True, CONNECTION_KEY: connection}
    made = provider.create(props)
    assert made.id == "disable_legacy_dbfs"
    assert message(client, DBFS) == {"value": True}
    assert not provider.diff(made.id, made.outs, props).changes
    assert provider.read(made.id, made.outs).outs["value"] is True

    # Drift: written outside the stack, shown by a read, put back by the update.
    write(client, DBFS, {"value": False})
    drifted = provider.read(made.id, made.outs).outs
    assert drifted["value"] is False
    assert provider.diff(made.id, drifted, props).changed_keys == ["value"]
    updated = provider.update(made.id, drifted, props)
    assert updated.outs["value"] is True and message(client, DBFS) == {"value": True}

    # Import by the type's name: every field shown, no diff against the same declaration.
    imported = provider.read("disable_legacy_dbfs", {CONNECTION_KEY: connection})
    assert imported.id == "disable_legacy_dbfs" and imported.outs["value"] is True
    assert not provider.diff(imported.id, imported.outs, props).changes
    with pytest.raises(ValueError, match="import id is disable_legacy_dbfs"):
        provider.read("disable_legacy_access", {CONNECTION_KEY: connection})

    provider.delete(made.id, updated.outs)
    assert message(client, DBFS) == {"value": False}


def test_an_update_in_place_and_a_field_left_out_back_to_its_default(connection, client) -> None:
    provider: Any = RestrictWorkspaceAdminsSettingProvider()  # its results as the engine sees them
    props = {"status": "RESTRICT_TOKENS_AND_JOB_RUN_AS", "disable_gov_tag_creation": True,
             CONNECTION_KEY: connection}
    made = provider.create(props)
    assert message(client, ADMINS) == {"status": "RESTRICT_TOKENS_AND_JOB_RUN_AS",
                                       "disable_gov_tag_creation": True}
    fewer = {"status": "ALLOW_ALL", CONNECTION_KEY: connection}
    diff = provider.diff(made.id, made.outs, fewer)
    assert diff.changed_keys == ["disable_gov_tag_creation", "status"] and not diff.replaces
    updated = provider.update(made.id, made.outs, fewer)
    assert message(client, ADMINS) == {"status": "ALLOW_ALL"}
    assert not provider.diff(made.id, updated.outs, fewer).changes


def test_a_type_without_delete_gets_the_default_written_back(connection, client) -> None:
    provider: Any = AutomaticClusterUpdateSettingProvider()  # its results as the engine sees them
    props = {"enabled": True, CONNECTION_KEY: connection}
    made = provider.create(props)
    assert message(client, UPDATES)["enabled"] is True
    provider.delete(made.id, made.outs)
    assert message(client, UPDATES)["enabled"] is False


class WrittenInBetween:
    """The client, but someone else writes the setting just before each of the first
    `times` PATCHes: the etag the handshake read is stale by then."""

    def __init__(self, client: WorkspaceClient, setting: Any, values: dict[str, Any],
                 times: int) -> None:
        self.client, self.setting, self.values, self.times = client, setting, values, times
        self.patches = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def patch(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.patches += 1
        if self.patches <= self.times:
            write(self.client, self.setting, self.values)
        return self.client.patch(path, body)

    def request(self, method: str, path: str, body: Any = None, **kwargs: Any) -> Any:
        if method == "DELETE":
            self.patches += 1
            if self.patches <= self.times:
                write(self.client, self.setting, self.values)
        return self.client.request(method, path, body, **kwargs)


def test_a_stale_etag_is_read_again_and_the_write_sent_once_more(client) -> None:
    between = WrittenInBetween(client, NAMESPACE, {"value": "theirs"}, times=1)
    found = write(between, NAMESPACE, {"value": "ours"})
    assert between.patches == 2
    assert found[NAMESPACE.message] == {"value": "ours"} == message(client, NAMESPACE)


def test_a_second_conflict_is_raised_not_retried_forever(client) -> None:
    between = WrittenInBetween(client, NAMESPACE, {"value": "theirs"}, times=2)
    with pytest.raises(WorkspaceError) as raised:
        write(between, NAMESPACE, {"value": "ours"})
    assert raised.value.code == "RESOURCE_CONFLICT" and between.patches == 2
    assert message(client, NAMESPACE) == {"value": "theirs"}


def test_a_delete_meeting_a_stale_etag_is_retried(client) -> None:
    write(client, NAMESPACE, {"value": "ours"})
    between = WrittenInBetween(client, NAMESPACE, {"value": "theirs"}, times=1)
    restore(between, NAMESPACE, ["value"])
    assert between.patches == 2 and message(client, NAMESPACE) == {}


@pytest.mark.parametrize(
    ("provider", "props", "field", "reason"),
    [
        (DisableLegacyDbfsSettingProvider(), {"value": "yes"}, "value", "valid boolean"),
        (DisableLegacyDbfsSettingProvider(), {}, "value", "required"),
        (DisableLegacyDbfsSettingProvider(), {"value": True, "enabled": True}, "enabled",
         "Extra inputs"),
        (RestrictWorkspaceAdminsSettingProvider(), {"status": "RESTRICT"}, "status",
         "'ALLOW_ALL' or 'RESTRICT_TOKENS_AND_JOB_RUN_AS'"),
        (DefaultNamespaceSettingProvider(), {"value": " "}, "value", "must not be empty"),
        (ComplianceSecurityProfileSettingProvider(),
         {"is_enabled": True, "compliance_standards": ["HIPPA"]}, "compliance_standards.0",
         "'HIPAA'"),
    ],
)
def test_each_rule_names_its_field(provider, props, field, reason, connection) -> None:
    assert_check_names(provider, {CONNECTION_KEY: connection}, props, field, reason)
