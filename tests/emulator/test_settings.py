"""Typed workspace settings through the official SDK: defaults of a new workspace, the etag
handshake (a stale etag refused with 409), field masks, and DELETE giving the default back."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import NotFound, ResourceConflict
from databricks.sdk.service import settings

from tests.emulator.support import Api, expect_error
from workspace_emulator.testing import fetch_token

PATH = "/api/2.0/settings/types"


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture(autouse=True)
def defaults(api: Api):
    """Each test starts from a new workspace's settings, and leaves them so."""
    yield
    for type_name in ("disable_legacy_dbfs", "restrict_workspace_admins", "default_namespace_ws"):
        etag = api.get(f"{PATH}/{type_name}/names/default").json()["etag"]
        assert api.delete(f"{PATH}/{type_name}/names/default?etag={etag}").status_code == 200
    etag = api.get(f"{PATH}/automatic_cluster_update/names/default").json()["etag"]
    api.patch(f"{PATH}/automatic_cluster_update/names/default", json={
        "allow_missing": True, "field_mask": "automatic_cluster_update_workspace.enabled",
        "setting": {"etag": etag, "automatic_cluster_update_workspace": {"enabled": False}}})


def test_a_new_workspace_shows_the_defaults_with_an_etag(sdk: WorkspaceClient):
    dbfs = sdk.settings.disable_legacy_dbfs.get()
    assert dbfs.disable_legacy_dbfs.value is False and dbfs.etag
    admins = sdk.settings.restrict_workspace_admins.get()
    assert admins.restrict_workspace_admins.status \
        == settings.RestrictWorkspaceAdminsMessageStatus.ALLOW_ALL
    update = sdk.settings.automatic_cluster_update.get()
    assert update.automatic_cluster_update_workspace.enabled is False
    assert update.automatic_cluster_update_workspace.can_toggle is True


def test_an_update_with_the_read_etag_changes_the_setting_and_its_etag(sdk: WorkspaceClient):
    read = sdk.settings.disable_legacy_dbfs.get()
    made = sdk.settings.disable_legacy_dbfs.update(
        allow_missing=True, field_mask="disable_legacy_dbfs.value",
        setting=settings.DisableLegacyDbfs(
            disable_legacy_dbfs=settings.BooleanMessage(value=True), etag=read.etag))
    assert made.disable_legacy_dbfs.value is True
    assert made.etag != read.etag
    assert sdk.settings.disable_legacy_dbfs.get().disable_legacy_dbfs.value is True


def test_a_stale_etag_is_refused_and_changes_nothing(sdk: WorkspaceClient):
    stale = sdk.settings.default_namespace.get().etag
    sdk.settings.default_namespace.update(
        allow_missing=True, field_mask="namespace.value",
        setting=settings.DefaultNamespaceSetting(
            namespace=settings.StringMessage(value="retail"), etag=stale))
    with pytest.raises(ResourceConflict, match="fresh etag"):
        sdk.settings.default_namespace.update(
            allow_missing=True, field_mask="namespace.value",
            setting=settings.DefaultNamespaceSetting(
                namespace=settings.StringMessage(value="other"), etag=stale))
    assert sdk.settings.default_namespace.get().namespace.value == "retail"
    with pytest.raises(ResourceConflict):
        sdk.settings.default_namespace.delete(etag=stale)


def test_delete_gives_the_default_back(sdk: WorkspaceClient):
    read = sdk.settings.restrict_workspace_admins.get()
    made = sdk.settings.restrict_workspace_admins.update(
        allow_missing=True, field_mask="restrict_workspace_admins.status",
        setting=settings.RestrictWorkspaceAdminsSetting(
            restrict_workspace_admins=settings.RestrictWorkspaceAdminsMessage(
                status=settings.RestrictWorkspaceAdminsMessageStatus
                .RESTRICT_TOKENS_AND_JOB_RUN_AS), etag=read.etag))
    sdk.settings.restrict_workspace_admins.delete(etag=made.etag)
    assert sdk.settings.restrict_workspace_admins.get().restrict_workspace_admins.status \
        == settings.RestrictWorkspaceAdminsMessageStatus.ALLOW_ALL


def test_a_type_without_delete_is_written_back_by_patch(sdk: WorkspaceClient, api: Api):
    read = sdk.settings.automatic_cluster_update.get()
    made = sdk.settings.automatic_cluster_update.update(
        allow_missing=True, field_mask="automatic_cluster_update_workspace.enabled",
        setting=settings.AutomaticClusterUpdateSetting(
            automatic_cluster_update_workspace=settings.ClusterAutoRestartMessage(enabled=True),
            etag=read.etag))
    assert made.automatic_cluster_update_workspace.enabled is True
    expect_error(api.delete(f"{PATH}/automatic_cluster_update/names/default"), 404)


def test_bad_values_and_masks_are_refused_naming_the_field(api: Api):
    url = f"{PATH}/disable_legacy_dbfs/names/default"
    bad = expect_error(api.patch(url, json={
        "allow_missing": True, "field_mask": "disable_legacy_dbfs.value",
        "setting": {"disable_legacy_dbfs": {"value": "yes"}}}), 400, "INVALID_PARAMETER_VALUE")
    assert "setting.disable_legacy_dbfs.value" in bad["message"]
    mask = expect_error(api.patch(url, json={
        "allow_missing": True, "field_mask": "disable_legacy_dbfs.other",
        "setting": {"disable_legacy_dbfs": {"value": True}}}), 400, "INVALID_PARAMETER_VALUE")
    assert "disable_legacy_dbfs.value" in mask["message"]


def test_an_unknown_type_is_not_found(sdk: WorkspaceClient, api: Api):
    expect_error(api.get(f"{PATH}/no_such_setting/names/default"), 404)
    with pytest.raises(NotFound):
        sdk.api_client.do("GET", f"{PATH}/no_such_setting/names/default")
