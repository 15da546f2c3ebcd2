"""ServiceCredential against the emulator, in both wire forms: its lifecycle (create, read,
update in place, drift, another name replaces, delete), import by name with no diff, a
create after an interrupted run adopting what it made, a storage credential's name refused
(one namespace), the inventory and adoption of service credentials alone."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import AlreadyExists, NotFound, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.core.registry import kind_named
from providers.unity_catalog.credentials_api import CREDENTIALS_PATH, CredentialsApi
from providers.unity_catalog.service_credential import (
    ServiceCredentialNameTaken,
    ServiceCredentialProvider,
)
from providers.unity_catalog.storage_credentials_api import StorageCredentialsApi
from stacks.adoption import candidate_of, listed
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import (
    assert_a_name_in_another_case_is_no_change,
    assert_left_out_settings_cleared_or_kept,
)
from tests.providers.uc_support import ACCESS_CONNECTOR, fresh_name

ROLE = {"role_arn": "arn:aws:iam::123456789012:role/uc-services"}


@pytest.fixture
def provider() -> ServiceCredentialProvider:
    return ServiceCredentialProvider()


@pytest.fixture
def props(connection: dict[str, Any], client: WorkspaceClient) -> Iterator[dict[str, Any]]:
    declared: dict[str, Any] = {
        "name": fresh_name("Svc"),
        "azure_managed_identity": {"access_connector_id": ACCESS_CONNECTOR},
        "comment": "reads the queues",
        CONNECTION_KEY: connection,
    }
    yield declared
    with contextlib.suppress(NotFound):
        CredentialsApi(client).delete(declared["name"])


def test_lifecycle(provider, props, client: WorkspaceClient) -> None:
    assert provider.check({}, props).failures == []
    made = provider.create({**props, "skip_validation": True})
    found = CredentialsApi(client).get(props["name"])
    assert made.id == props["name"]
    assert (found["purpose"], found["comment"]) == ("SERVICE", "reads the queues")
    # What the service fills in is an output, never a change; skip_validation is not kept.
    assert made.outs["identity_details"] == {"credential_id": found["id"]}
    assert made.outs["credential_id"] == found["id"] and made.outs["metastore_id"]
    assert not {"owner", "isolation_mode", "skip_validation", "purpose"} & set(made.outs)
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "comment": "reads and writes the queues", "owner": "data-engineers",
               "isolation_mode": "ISOLATION_MODE_ISOLATED", "skip_validation": True}
    diff = provider.diff(made.id, read.outs, changed)
    assert diff.changed_keys == ["comment", "isolation_mode", "owner"] and not diff.replaces
    updated = provider.update(made.id, read.outs, changed)
    found = CredentialsApi(client).get(props["name"])
    assert (found["comment"], found["isolation_mode"], found["owner"], found["id"]) == (
        "reads and writes the queues", "ISOLATION_MODE_ISOLATED", "data-engineers",
        made.outs["credential_id"])
    assert not provider.diff(made.id, updated.outs, changed).changes

    # Drift of a declared field shows in a refresh.
    CredentialsApi(client).update(props["name"], {"comment": "by hand"})
    read = provider.read(made.id, updated.outs)
    assert read.outs["comment"] == "by hand"
    assert provider.diff(made.id, read.outs, changed).changed_keys == ["comment"]

    renamed = provider.diff(made.id, read.outs, {**changed, "name": fresh_name("Svc")})
    assert renamed.replaces == ["name"]
    provider.delete(made.id, read.outs)
    assert provider.read(made.id, read.outs).id is None
    provider.delete(made.id, read.outs)  # gone already: deleted


def test_another_identity_changes_in_place(provider, props, client) -> None:
    made = provider.create(props)
    aws = {k: v for k, v in props.items() if k != "azure_managed_identity"}
    aws["aws_iam_role"] = ROLE
    diff = provider.diff(made.id, made.outs, aws)
    assert set(diff.changed_keys) == {"aws_iam_role", "azure_managed_identity"}
    assert not diff.replaces
    updated = provider.update(made.id, made.outs, aws)
    assert set(updated.outs["identity_details"]) == {"external_id", "unity_catalog_iam_arn"}
    assert CredentialsApi(client).get(props["name"])["aws_iam_role"]["role_arn"] == ROLE["role_arn"]
    assert not provider.diff(made.id, provider.read(made.id, updated.outs).outs, aws).changes
    provider.delete(made.id, updated.outs)


def test_a_gcp_service_account_is_made_by_the_service(provider, props) -> None:
    declared = {k: v for k, v in props.items() if k != "azure_managed_identity"}
    declared["databricks_gcp_service_account"] = {}
    made = provider.create(declared)
    assert made.outs["databricks_gcp_service_account"] == {}
    assert made.outs["identity_details"]["email"].endswith(".iam.gserviceaccount.com")
    assert not provider.diff(made.id, provider.read(made.id, made.outs).outs, declared).changes
    provider.delete(made.id, made.outs)


def test_import_by_name_previews_no_change(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.id == made.id
    assert imported.outs["azure_managed_identity"] == props["azure_managed_identity"]
    assert imported.outs["owner"]  # recorded, as the service shows it; not declared
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    assert not provider.diff(made.id, imported.outs, props, old_inputs=props).changes
    provider.delete(made.id, imported.outs)


def test_create_adopts_after_a_lost_answer_and_an_interrupted_run(
    provider, props, monkeypatch
) -> None:
    with monkeypatch.context() as patched:
        lost = lose_the_answer_to(patched, CREDENTIALS_PATH)
        made = provider.create(props)
    assert lost == [CREDENTIALS_PATH]
    again = provider.create(props)  # the run was interrupted: adopted, not made twice
    assert again.id == made.id and again.outs["credential_id"] == made.outs["credential_id"]
    # One of that name with another identity is someone else's: refused.
    other = {**props, "azure_managed_identity": {"access_connector_id": "/other"}}
    with pytest.raises(AlreadyExists):
        provider.create(other)
    provider.delete(made.id, made.outs)


def test_a_storage_credentials_name_is_refused(provider, props, client) -> None:
    """One namespace for both purposes: the create, and an import of that name, say whose
    the name is and what to do; a delete never takes the storage credential."""
    StorageCredentialsApi(client).create(
        {"name": props["name"], "azure_managed_identity": {"access_connector_id": "/storage"}})
    with pytest.raises(ServiceCredentialNameTaken) as refused:
        provider.create(props)
    message = str(refused.value)
    assert message.startswith("name: ") and "storage credential's" in message
    assert "another name" in message and f"import: {props['name']}" in message
    with pytest.raises(ServiceCredentialNameTaken, match="share one namespace"):
        provider.read(props["name"], {CONNECTION_KEY: props[CONNECTION_KEY]})
    provider.delete(props["name"], props)
    assert CredentialsApi(client).get(props["name"])["purpose"] == "STORAGE"
    StorageCredentialsApi(client).delete(props["name"])


def test_inventory_and_adoption_take_service_credentials_alone(
    provider, props, client, connection
) -> None:
    kind = kind_named("ServiceCredential")
    made = provider.create({**props, "owner": "data-engineers"})
    storage = fresh_name("Stor")
    StorageCredentialsApi(client).create(
        {"name": storage, "azure_managed_identity": {"access_connector_id": "/storage"}})
    try:
        assert kind.inventory is not None
        names = {name for _, name in kind.inventory(client)}
        assert props["name"] in names and storage not in names
        assert props["name"] in {found.import_id for found in listed(client, kind)}
        candidate = candidate_of(client, kind, props["name"], props["name"])
        assert candidate is not None and candidate.problem is None, candidate
        item = candidate.item
        assert item is not None
        assert item["azure_managed_identity"] == props["azure_managed_identity"]
        assert (item["name"], item["comment"]) == (props["name"], "reads the queues")
        # The item declares what the import reads: no change, at the import or after it.
        news = {**item, CONNECTION_KEY: connection}
        assert provider.check({}, news).failures == []
        imported = provider.read(made.id, {CONNECTION_KEY: connection})
        for old_inputs in ({}, item):
            assert not provider.diff(made.id, imported.outs, news, old_inputs=old_inputs).changes
    finally:
        StorageCredentialsApi(client).delete(storage)
        provider.delete(made.id, made.outs)


def test_settings_left_out_of_the_config_are_cleared_or_kept(provider, props, client) -> None:
    """A comment no longer declared is cleared in the service; an owner or isolation mode no
    longer declared stays as it is, and is no change."""
    assert_left_out_settings_cleared_or_kept(
        provider, {**props, "isolation_mode": "ISOLATION_MODE_ISOLATED"},
        CredentialsApi(client).get,
        cleared={"comment": ""},
        kept={"isolation_mode": "ISOLATION_MODE_ISOLATED"},
    )


def test_a_name_in_another_case_is_no_change(provider, props, client) -> None:
    assert_a_name_in_another_case_is_no_change(provider, props, CredentialsApi(client).get)
