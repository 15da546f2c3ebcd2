"""ExternalLocation against the emulator, in both wire forms."""

from __future__ import annotations

from typing import Any

import pytest

from providers.client import AlreadyExists, InvalidState, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.unity_catalog.external_location import ExternalLocationProvider
from providers.unity_catalog.external_locations_api import (
    EXTERNAL_LOCATIONS_PATH,
    ExternalLocationsApi,
)
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import (
    assert_a_name_in_another_case_is_no_change,
    assert_check_names,
    assert_left_out_settings_cleared_or_kept,
    failures,
)
from tests.providers.uc_support import catalog, credential, fresh_name  # noqa: F401

ACCOUNT = "abfss://landing@emulatedstorage.dfs.core.windows.net"


@pytest.fixture
def provider() -> ExternalLocationProvider:
    return ExternalLocationProvider()


@pytest.fixture
def props(connection: dict[str, Any], credential: str) -> dict[str, Any]:  # noqa: F811
    name = fresh_name("Landing")
    return {
        "name": name,
        "url": f"{ACCOUNT}/{name}/",
        "credential_name": credential,
        "comment": "raw files",
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"name": "a/b"}, "name", "without '.'"),
        ({"url": "landing/raw"}, "url", "must be a storage URL"),
        ({"url": "s3://"}, "url", "must be a storage URL"),
        ({"credential_name": None}, "credential_name", "Field required"),
        ({"isolation_mode": "OPEN"}, "isolation_mode", "ISOLATION_MODE_OPEN"),
        ({"force_destroy": "yes"}, "force_destroy", "valid boolean"),
        ({"aws_iam_role": {}}, "aws_iam_role", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_lifecycle(provider, props, client: WorkspaceClient, credential) -> None:  # noqa: F811
    assert failures(provider, props) == {}
    made = provider.create({**props, "skip_validation": True})
    found = ExternalLocationsApi(client).get(props["name"])
    assert made.id == props["name"] and found["url"] == props["url"].rstrip("/")
    assert made.outs["credential_id"] == found["credential_id"]
    # A trailing '/' and the credential's case are no change; nor what the service fills in.
    same = {**props, "url": props["url"].rstrip("/"), "credential_name": credential.upper()}
    assert not provider.diff(made.id, made.outs, same).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "url": f"{ACCOUNT}/{props['name']}/v2", "read_only": True,
               "owner": "data-engineers", "isolation_mode": "ISOLATION_MODE_ISOLATED",
               "force_destroy": True}
    diff = provider.diff(made.id, read.outs, changed)
    assert diff.changed_keys == ["force_destroy", "isolation_mode", "owner", "read_only", "url"]
    assert not diff.replaces
    updated = provider.update(made.id, read.outs, changed)
    found = ExternalLocationsApi(client).get(props["name"])
    assert (found["url"], found["read_only"], found["owner"], found["isolation_mode"]) == (
        changed["url"], True, "data-engineers", "ISOLATION_MODE_ISOLATED")
    assert updated.outs["force_destroy"] is True

    ExternalLocationsApi(client).update(props["name"], {"comment": "by hand"})
    read = provider.read(made.id, updated.outs)
    assert provider.diff(made.id, read.outs, changed).changed_keys == ["comment"]
    assert read.outs["force_destroy"] is True
    assert provider.diff(made.id, read.outs, {**changed, "name": "other"}).replaces == ["name"]

    provider.delete(made.id, read.outs)
    assert provider.read(made.id, read.outs).id is None


def test_delete_of_a_used_location_needs_force_destroy(
    provider, props, client, catalog  # noqa: F811
) -> None:
    made = provider.create(props)
    client.post("/api/2.1/unity-catalog/volumes", {
        "catalog_name": catalog, "schema_name": "default", "name": "raw",
        "volume_type": "EXTERNAL", "storage_location": f"{props['url']}raw"})
    with pytest.raises(InvalidState, match="is used by volume"):
        provider.delete(made.id, made.outs)
    forced = provider.update(made.id, made.outs, {**props, "force_destroy": True})
    provider.delete(made.id, forced.outs)
    assert provider.read(made.id, made.outs).id is None


def test_import_by_name_previews_no_change(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["url"] == props["url"].rstrip("/")
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, imported.outs)


def test_create_adopts_after_a_lost_answer_and_an_interrupted_run(
    provider, props, monkeypatch
) -> None:
    with monkeypatch.context() as patched:
        lost = lose_the_answer_to(patched, EXTERNAL_LOCATIONS_PATH)
        made = provider.create(props)
    assert lost == [EXTERNAL_LOCATIONS_PATH]
    again = provider.create(props)  # the run was interrupted: adopted, not made twice
    assert again.outs["credential_id"] == made.outs["credential_id"]
    with pytest.raises(AlreadyExists):  # the name at another URL is someone else's
        provider.create({**props, "url": f"{ACCOUNT}/elsewhere"})
    provider.delete(made.id, made.outs)


def test_settings_left_out_of_the_config_are_cleared_or_kept(provider, props, client) -> None:
    """A comment or map no longer declared is cleared in the service; an owner, isolation
    mode or read-only flag no longer declared stays as it is, and is no change."""
    assert_left_out_settings_cleared_or_kept(
        provider, {**props, "read_only": True},
        ExternalLocationsApi(client).get,
        cleared={"comment": ""},
        kept={"read_only": True},
    )


def test_a_name_in_another_case_is_no_change(provider, props, client) -> None:
    assert_a_name_in_another_case_is_no_change(provider, props, ExternalLocationsApi(client).get)
