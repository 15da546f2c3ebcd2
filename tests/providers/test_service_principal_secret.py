"""ServicePrincipalSecret against the emulator, in both wire forms: check without calls, a
create whose value signs the principal in (oauth-m2m), reads that keep the value, gone when
deleted out of band or with its principal, every change a replacement made new-first,
delete (the value no longer signs in), import without the value, and the value in no error
or request the emulator logged."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pulumi
import pytest
import requests
import responses

from providers import ServicePrincipalSecret, ServicePrincipalSecretArgs
from providers.client import NotFound, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.core.resource import WorkspaceResource
from providers.identity.service_principal import ServicePrincipalProvider
from providers.identity.service_principal_secret import ServicePrincipalSecretProvider, lifetime_of
from providers.identity.service_principal_secrets_api import ServicePrincipalSecretsApi
from providers.identity.service_principals_api import SCIM_SCHEMA, ServicePrincipalsApi
from tests.providers.resource_mocks import RecordingMocks
from tests.providers.support import failures, with_change
from workspace_emulator.testing import (
    EmulatorInfo,
    clear_request_log,
    register_application,
    request_log,
)

NINETY_DAYS = 90 * 24 * 3600


@pytest.fixture
def provider() -> ServicePrincipalSecretProvider:
    return ServicePrincipalSecretProvider()


@pytest.fixture
def principal(client: WorkspaceClient, emulator: EmulatorInfo) -> dict[str, Any]:
    """A principal of the workspace (its SCIM resource), made for the test."""
    application = register_application(emulator, f"secret-test-{uuid.uuid4().hex[:8]}")
    return ServicePrincipalsApi(client).create(
        {"schemas": [SCIM_SCHEMA], "applicationId": application["client_id"],
         "displayName": f"ci-{uuid.uuid4().hex[:8]}"}
    )


@pytest.fixture
def props(connection: dict[str, Any], principal: dict[str, Any]) -> dict[str, Any]:
    return {"service_principal_id": principal["id"], "lifetime": f"{NINETY_DAYS}s",
            CONNECTION_KEY: connection}


def signs_in(emulator: EmulatorInfo, application_id: str, value: str) -> bool:
    """Whether the secret gets the principal a token at the workspace's OAuth endpoint."""
    answer = requests.post(
        f"{emulator.base_url}/oidc/v1/token",
        data={"grant_type": "client_credentials", "scope": "all-apis"},
        auth=(application_id, value),
        timeout=10,
    )
    return answer.status_code == 200 and bool(answer.json().get("access_token"))


def listed_ids(client: WorkspaceClient, principal_id: str) -> set[str]:
    return {s["id"] for s in ServicePrincipalSecretsApi(client).list(principal_id)}


# --- check -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"service_principal_id": "9f0c5e3a-1b2c-4d5e-8f90-0123456789ab"}, "service_principal_id"),
        ({"service_principal_id": None}, "service_principal_id"),
        ({"lifetime": "90d"}, "lifetime"),
        ({"lifetime": 0}, "lifetime"),
        ({"lifetime": 730 * 24 * 3600 + 1}, "lifetime"),
        ({"secret": "mine"}, "secret"),
    ],
)
def test_check_names_the_field_without_a_call(provider, props, change, field):
    with responses.RequestsMock():  # any call to the workspace would fail the test
        assert list(failures(provider, with_change(props, change))) == [field]


def test_check_passes_declared_inputs_and_unknown_ones(provider, props):
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "service_principal_id": UNKNOWN}) == {}


# --- create, read ----------------------------------------------------------------------------


def test_create_makes_a_secret_that_signs_the_principal_in(
    provider, props, principal, client, emulator
):
    result = provider.create(props)
    outs = result.outs
    assert result.id == f"{principal['id']}/{outs['secret_id']}"
    assert outs["application_id"] == principal["applicationId"]
    assert outs["status"] == "ACTIVE"
    assert lifetime_of(outs) == f"{NINETY_DAYS}s"
    assert outs["service_principal_id"] == principal["id"]
    assert outs["lifetime"] == f"{NINETY_DAYS}s"
    assert listed_ids(client, principal["id"]) == {outs["secret_id"]}
    assert signs_in(emulator, principal["applicationId"], outs["secret"])


def test_a_principal_made_by_display_name_signs_in_with_its_secret(
    provider, connection, emulator
):
    principal = ServicePrincipalProvider().create(
        {"display_name": f"ci-{uuid.uuid4().hex[:8]}", CONNECTION_KEY: connection}
    )
    outs = provider.create({"service_principal_id": principal.id,
                            CONNECTION_KEY: connection}).outs
    assert principal.outs is not None
    assert outs["application_id"] == principal.outs["application_id"]
    assert signs_in(emulator, outs["application_id"], outs["secret"])


def test_create_without_a_lifetime_gets_the_services_730_days(provider, props):
    outs = provider.create(with_change(props, {"lifetime": None})).outs
    assert lifetime_of(outs) == f"{730 * 24 * 3600}s"
    assert "lifetime" not in outs


def test_the_value_is_in_no_request_the_emulator_logged(provider, props, emulator):
    clear_request_log(emulator)
    outs = provider.create(props).outs
    provider.read(f"{props['service_principal_id']}/{outs['secret_id']}", outs)
    assert outs["secret"] not in json.dumps(request_log(emulator))


def test_read_keeps_the_recorded_value(provider, props):
    created = provider.create(props)
    read = provider.read(created.id, created.outs)
    assert read.id == created.id
    assert read.outs == created.outs


def test_a_secret_deleted_out_of_band_reads_as_gone(provider, props, client):
    created = provider.create(props)
    ServicePrincipalSecretsApi(client).delete(props["service_principal_id"],
                                            created.outs["secret_id"])
    assert provider.read(created.id, created.outs).id is None


def test_a_secret_of_a_removed_principal_reads_as_gone(provider, props, principal, client):
    created = provider.create(props)
    ServicePrincipalsApi(client).delete(principal["id"], principal["applicationId"])
    assert provider.read(created.id, created.outs).id is None
    provider.delete(created.id, created.outs)  # gone with it: deleted already


def test_create_for_a_missing_principal_says_so_and_makes_nothing(provider, props):
    with pytest.raises(NotFound):
        provider.create({**props, "service_principal_id": "999999999999"})


# --- diff: every change replaces, the new secret first ------------------------------------------


def test_the_same_inputs_are_no_change(provider, props):
    created = provider.create(props)
    assert not provider.diff(created.id, created.outs, props).changes
    as_number = {**props, "lifetime": NINETY_DAYS}
    assert not provider.diff(created.id, created.outs, as_number).changes


@pytest.mark.parametrize("change", [{"lifetime": "3600s"}, {"lifetime": None}])
def test_a_new_lifetime_replaces_new_secret_first(provider, props, change):
    created = provider.create(props)
    diff = provider.diff(created.id, created.outs, with_change(props, change))
    assert diff.replaces == ["lifetime"] and not diff.delete_before_replace


def test_rotation_has_both_secrets_until_the_old_is_deleted(
    provider, props, principal, client, emulator
):
    old = provider.create(props)
    new = provider.create({**props, "lifetime": "3600s"})  # the replacement, made first
    assert listed_ids(client, principal["id"]) == {old.outs["secret_id"], new.outs["secret_id"]}
    assert signs_in(emulator, principal["applicationId"], old.outs["secret"])
    provider.delete(old.id, old.outs)
    assert listed_ids(client, principal["id"]) == {new.outs["secret_id"]}
    assert not signs_in(emulator, principal["applicationId"], old.outs["secret"])
    assert signs_in(emulator, principal["applicationId"], new.outs["secret"])


# --- delete, import ----------------------------------------------------------------------------


def test_delete_revokes_the_secret(provider, props, principal, client, emulator):
    created = provider.create(props)
    provider.delete(created.id, created.outs)
    assert listed_ids(client, principal["id"]) == set()
    assert not signs_in(emulator, principal["applicationId"], created.outs["secret"])
    provider.delete(created.id, created.outs)  # already gone: deleted


def test_import_cannot_know_the_value_and_shows_no_change(provider, props, connection):
    created = provider.create(props)
    imported = provider.read(created.id, {CONNECTION_KEY: connection})
    outs = imported.outs
    assert imported.id == created.id
    assert outs["secret"] is None
    assert outs["application_id"] == created.outs["application_id"]
    assert outs["lifetime"] == props["lifetime"]
    assert not provider.diff(created.id, outs, props, old_inputs={}).changes
    undeclared = with_change(props, {"lifetime": None})
    assert not provider.diff(created.id, outs, undeclared, old_inputs={}).changes


def test_import_of_a_malformed_id_names_the_form(provider, connection):
    with pytest.raises(ValueError, match=r"<principal id>/<secret id>"):
        provider.read("not-an-id", {CONNECTION_KEY: connection})


# --- the resource (program side) -------------------------------------------------------------


def test_the_resource_asks_for_its_value_to_be_kept_secret(connection, monkeypatch):
    """The engine encrypts the outputs a registration names secret (Pulumi's mocks do not
    apply them: the e2e test reads the state the engine wrote)."""
    options: list[pulumi.ResourceOptions] = []
    real_init = WorkspaceResource.__init__

    def recording_init(self, *args: Any, **kwargs: Any) -> None:
        options.append(kwargs["opts"])
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(WorkspaceResource, "__init__", recording_init)
    mocks = RecordingMocks({"secret": "dose-mocked", "secret_id": "s1"})
    pulumi.runtime.set_mocks(mocks, project="proj", stack="dev", preview=False)

    @pulumi.runtime.test
    def scenario():
        ServicePrincipalSecret(
            "ci", ServicePrincipalSecretArgs(service_principal_id="100000000000042"),
            connection=connection,
        )

    scenario()
    (registered,) = mocks.registered
    assert registered.inputs["service_principal_id"] == "100000000000042"
    assert "secret" not in registered.inputs
    (opts,) = options
    assert "secret" in (opts.additional_secret_outputs or [])
