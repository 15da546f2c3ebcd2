"""StorageCredential against the emulator, in both wire forms."""

from __future__ import annotations

from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.unity_catalog.storage_credential import DIGEST_KEY, StorageCredentialProvider
from providers.unity_catalog.storage_credentials_api import (
    STORAGE_CREDENTIALS_PATH,
    StorageCredentialsApi,
)
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import (
    assert_a_name_in_another_case_is_no_change,
    assert_check_names,
    assert_left_out_settings_cleared_or_kept,
    failures,
)
from tests.providers.uc_support import ACCESS_CONNECTOR, fresh_name

SP = {"directory_id": "dd523c38-5331-469f-bb30-6ee31e3da8ff",
      "application_id": "b946402c-4f47-469a-bead-ef6610b453f5", "client_secret": "first-secret"}


@pytest.fixture
def provider() -> StorageCredentialProvider:
    return StorageCredentialProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": fresh_name("Cred"),
        "azure_managed_identity": {"access_connector_id": ACCESS_CONNECTOR},
        "comment": "landing zone",
        CONNECTION_KEY: connection,
    }


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"name": "a.b"}, "name", "without '.'"),
        ({"azure_managed_identity": None}, "(inputs)", "give one identity"),
        ({"aws_iam_role": {"role_arn": "arn:aws:iam::123456789012:role/uc"}},
         "aws_iam_role", "give one identity only: azure_managed_identity is given too"),
        ({"azure_managed_identity": None, "aws_iam_role": {"role_arn": "role"}},
         "aws_iam_role.role_arn", "IAM role ARN"),
        ({"azure_managed_identity": None, "azure_service_principal": {"directory_id": "d"}},
         "azure_service_principal.application_id", "Field required"),
        ({"azure_managed_identity": {"access_connector_id": " "}},
         "azure_managed_identity.access_connector_id", "must not be empty"),
        ({"isolation_mode": "ISOLATED"}, "isolation_mode", "ISOLATION_MODE_OPEN"),
        ({"read_only": "yes"}, "read_only", "valid boolean"),
        ({"url": "s3://x"}, "url", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_lifecycle(provider, props, client: WorkspaceClient) -> None:
    assert failures(provider, props) == {}
    made = provider.create({**props, "skip_validation": True})
    found = StorageCredentialsApi(client).get(props["name"])
    assert made.id == props["name"] and found["comment"] == "landing zone"
    # What the service fills in is an output, never a change.
    assert made.outs["identity_details"] == {"credential_id": found["id"]}
    assert made.outs["credential_id"] == found["id"]
    assert "owner" not in made.outs and "isolation_mode" not in made.outs
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "comment": "raw", "read_only": True,
               "isolation_mode": "ISOLATION_MODE_ISOLATED", "owner": "data-engineers"}
    diff = provider.diff(made.id, read.outs, changed)
    assert diff.changed_keys == ["comment", "isolation_mode", "owner", "read_only"]
    assert not diff.replaces
    updated = provider.update(made.id, read.outs, changed)
    found = StorageCredentialsApi(client).get(props["name"])
    assert (found["comment"], found["read_only"], found["isolation_mode"], found["owner"]) == (
        "raw", True, "ISOLATION_MODE_ISOLATED", "data-engineers")

    # Drift of a declared field shows in a refresh.
    StorageCredentialsApi(client).update(props["name"], {"comment": "by hand"})
    read = provider.read(made.id, updated.outs)
    assert provider.diff(made.id, read.outs, changed).changed_keys == ["comment"]

    assert provider.diff(made.id, read.outs, {**changed, "name": fresh_name("x")}).replaces == [
        "name"]
    provider.delete(made.id, read.outs)
    assert provider.read(made.id, read.outs).id is None
    provider.delete(made.id, read.outs)


def test_another_identity_changes_in_place(provider, props, client) -> None:
    made = provider.create(props)
    aws = {k: v for k, v in props.items() if k != "azure_managed_identity"}
    aws["aws_iam_role"] = {"role_arn": "arn:aws:iam::123456789012:role/uc-access"}
    diff = provider.diff(made.id, made.outs, aws)
    assert set(diff.changed_keys) == {"aws_iam_role", "azure_managed_identity"}
    assert not diff.replaces
    updated = provider.update(made.id, made.outs, aws)
    assert set(updated.outs["identity_details"]) == {"external_id", "unity_catalog_iam_arn"}
    assert not provider.diff(made.id, provider.read(made.id, updated.outs).outs, aws).changes
    provider.delete(made.id, updated.outs)


def test_a_client_secret_is_kept_as_a_digest(provider, props) -> None:
    declared = {k: v for k, v in props.items() if k != "azure_managed_identity"}
    declared["azure_service_principal"] = dict(SP)
    made = provider.create(declared)
    assert "client_secret" not in made.outs["azure_service_principal"]
    assert "first-secret" not in str(made.outs)
    assert made.outs[DIGEST_KEY]
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, declared).changes

    rotated = {**declared, "azure_service_principal": {**SP, "client_secret": "second"}}
    diff = provider.diff(made.id, read.outs, rotated)
    assert diff.changed_keys == ["azure_service_principal"] and not diff.replaces
    updated = provider.update(made.id, read.outs, rotated)
    assert updated.outs[DIGEST_KEY] != made.outs[DIGEST_KEY]
    assert not provider.diff(made.id, updated.outs, rotated).changes
    provider.delete(made.id, updated.outs)


def test_import_by_name_previews_no_change(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["azure_managed_identity"] == props["azure_managed_identity"]
    assert imported.outs["owner"]  # recorded, as the service shows it; not declared
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, imported.outs)


def test_create_adopts_after_a_lost_answer_and_an_interrupted_run(
    provider, props, client, monkeypatch
) -> None:
    with monkeypatch.context() as patched:
        lost = lose_the_answer_to(patched, STORAGE_CREDENTIALS_PATH)
        made = provider.create(props)
    assert lost == [STORAGE_CREDENTIALS_PATH]
    again = provider.create(props)  # the run was interrupted: adopted, not made twice
    assert again.id == made.id and again.outs["credential_id"] == made.outs["credential_id"]
    # One of that name with another identity is someone else's: refused.
    other = {**props, "azure_managed_identity": {"access_connector_id": "/other"}}
    with pytest.raises(AlreadyExists):
        provider.create(other)
    provider.delete(made.id, made.outs)


def test_settings_left_out_of_the_config_are_cleared_or_kept(provider, props, client) -> None:
    """A comment or map no longer declared is cleared in the service; an owner, isolation
    mode or read-only flag no longer declared stays as it is, and is no change."""
    assert_left_out_settings_cleared_or_kept(
        provider, {**props, "read_only": True},
        StorageCredentialsApi(client).get,
        cleared={"comment": ""},
        kept={"read_only": True},
    )


def test_a_name_in_another_case_is_no_change(provider, props, client) -> None:
    assert_a_name_in_another_case_is_no_change(provider, props, StorageCredentialsApi(client).get)
