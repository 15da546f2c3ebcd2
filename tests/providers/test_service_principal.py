"""ServicePrincipal against the emulator, in both wire forms."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from pulumi.output import Unknown

from providers import ServicePrincipal, ServicePrincipalArgs
from providers.client import InvalidParameter, NotFound, WorkspaceClient
from providers.client.wire import SCIM_SERVICE_PRINCIPALS
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.identity.principal_by_name import AmbiguousDisplayName
from providers.identity.service_principal import GUID, ServicePrincipalProvider
from providers.identity.service_principals_api import SCIM_SCHEMA, ServicePrincipalsApi
from tests.providers.resource_mocks import register
from tests.providers.support import failures
from workspace_emulator.testing import (
    clear_request_log,
    fetch_token,
    register_application,
    request_log,
)

DATA_ENGINEERS = "100000000000003"
ANALYSTS = "100000000000004"


@pytest.fixture
def provider() -> ServicePrincipalProvider:
    return ServicePrincipalProvider()


@pytest.fixture
def application(emulator) -> dict[str, str]:
    """A fresh identity-provider application, not yet in the workspace."""
    return register_application(emulator, "provider-test-app")


@pytest.fixture
def props(connection: dict[str, Any], application: dict[str, str]) -> dict[str, Any]:
    return {
        "application_id": application["client_id"],
        "display_name": "etl pipeline",
        "entitlements": ["workspace-access", "allow-cluster-create"],
        "groups": [DATA_ENGINEERS, ANALYSTS],
        CONNECTION_KEY: connection,
    }


def without_connection(outs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in outs.items() if k != CONNECTION_KEY}


def principals_of(client: WorkspaceClient, application_id: str) -> list[dict]:
    return ServicePrincipalsApi(client).list(f'applicationId eq "{application_id}"')


# --- check ---------------------------------------------------------------------------


def test_valid_input_passes_check(provider, props):
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "schemas": [SCIM_SCHEMA], "active": False}) == {}


@pytest.mark.parametrize(
    ("field", "value", "path"),
    [
        ("application_id", "etl-pipeline", "application_id"),
        ("display_name", "", "display_name"),
        ("display_name", "   ", "display_name"),
        ("entitlements", ["workspace-access", "superuser"], "entitlements.1"),
        ("entitlements", ["workspace-access", "workspace-access"], "entitlements"),
        ("groups", [DATA_ENGINEERS, ""], "groups.1"),
        ("groups", [ANALYSTS, ANALYSTS], "groups"),
        ("schemas", ["urn:ietf:params:scim:schemas:core:2.0:User"], "schemas"),
        ("schemas", [SCIM_SCHEMA, SCIM_SCHEMA], "schemas"),
        ("active", "yes", "active"),
        ("colour", "blue", "colour"),
    ],
)
def test_check_names_the_bad_field(provider, props, field, value, path):
    bad = {**props, field: value}
    if value is None:
        del bad[field]
    assert list(failures(provider, bad)) == [path]


def test_check_asks_for_an_application_id_or_a_display_name(provider, props):
    neither = {k: v for k, v in props.items() if k not in ("application_id", "display_name")}
    found = failures(provider, neither)
    assert list(found) == ["application_id"]
    assert "application_id" in found["application_id"] and "display_name" in found["application_id"]
    assert failures(provider, {**neither, "display_name": "etl"}) == {}


def test_check_reports_every_bad_field(provider, props):
    bad = {**props, "application_id": "x", "display_name": "", "entitlements": ["root"]}
    assert set(failures(provider, bad)) == {"application_id", "display_name", "entitlements.0"}


def test_check_requires_a_connection(provider, props):
    assert list(failures(provider, {**props, CONNECTION_KEY: {}})) == [CONNECTION_KEY]


@pytest.mark.parametrize("unknown", [UNKNOWN, Unknown()], ids=["sentinel", "engine"])
def test_check_does_not_judge_unknown_values(provider, props, unknown):
    assert failures(provider, {**props, "display_name": unknown, "groups": [unknown]}) == {}


# --- diff ----------------------------------------------------------------------------


def test_diff_same_input_is_no_change(provider, props, created):
    id_, outs = created
    assert not provider.diff(id_, outs, props).changes


def test_diff_reordered_lists_are_no_change(provider, props, created):
    id_, outs = created
    reordered = {
        **props,
        "entitlements": list(reversed(props["entitlements"])),
        "groups": list(reversed(props["groups"])),
    }
    assert not provider.diff(id_, outs, reordered).changes


def test_diff_server_filled_display_name_is_no_change(provider, props):
    declared = {k: v for k, v in props.items() if k != "display_name"}
    result = provider.create(declared)
    assert not provider.diff(result.id, result.outs, declared).changes


def test_diff_new_connection_is_no_change(provider, props, created):
    id_, outs = created
    rotated = {**props, CONNECTION_KEY: {**props[CONNECTION_KEY], "client_secret": "rotated"}}
    assert not provider.diff(id_, outs, rotated).changes


def test_diff_display_name_updates_in_place(provider, props, created):
    id_, outs = created
    diff = provider.diff(id_, outs, {**props, "display_name": "renamed"})
    assert diff.changes and not diff.replaces


def test_diff_application_id_replaces(provider, props, created, emulator):
    id_, outs = created
    other = register_application(emulator)["client_id"]
    diff = provider.diff(id_, outs, {**props, "application_id": other})
    assert diff.replaces == ["application_id"]
    assert not diff.delete_before_replace


@pytest.mark.parametrize("unknown", [UNKNOWN, Unknown()], ids=["sentinel", "engine"])
def test_diff_tolerates_unknown_values(provider, props, created, unknown):
    id_, outs = created
    diff = provider.diff(id_, outs, {**props, "groups": [unknown]})
    assert diff.changes and not diff.replaces
    diff = provider.diff(id_, outs, {**props, "application_id": unknown})
    assert diff.replaces == ["application_id"]


# --- create, read, update, delete ------------------------------------------------------


def test_create_adds_the_principal_as_declared(provider, props, created, client):
    id_, outs = created
    [principal] = principals_of(client, props["application_id"])
    assert principal["id"] == id_
    assert principal["displayName"] == "etl pipeline"
    assert sorted(e["value"] for e in principal["entitlements"]) == [
        "allow-cluster-create",
        "workspace-access",
    ]
    assert sorted(g["value"] for g in principal["groups"]) == [DATA_ENGINEERS, ANALYSTS]
    assert without_connection(outs) == {
        "application_id": props["application_id"],
        "display_name": "etl pipeline",
        "active": True,
        "entitlements": ["allow-cluster-create", "workspace-access"],
        "groups": [DATA_ENGINEERS, ANALYSTS],
    }


def test_create_with_an_unknown_group_fails_with_the_service_message(provider, props, client):
    with pytest.raises(InvalidParameter, match="Group with id 999 does not exist"):
        provider.create({**props, "groups": ["999"]})
    assert principals_of(client, props["application_id"]) == []


def test_read_equals_what_create_recorded(provider, created):
    id_, outs = created
    read = provider.read(id_, outs)
    assert read.id == id_
    assert read.outs == outs


def test_read_shows_an_out_of_band_change(provider, props, created, client):
    id_, outs = created
    ServicePrincipalsApi(client).patch(
        id_, [{"op": "replace", "path": "displayName", "value": "by hand"}]
    )
    read = provider.read(id_, outs)
    assert read.outs["display_name"] == "by hand"
    assert provider.diff(id_, read.outs, props).changes


def test_read_of_a_removed_principal_is_gone(provider, created, client):
    id_, outs = created
    ServicePrincipalsApi(client).delete(id_, outs["application_id"])
    assert provider.read(id_, outs).id is None


def test_update_brings_the_principal_to_the_new_state(provider, props, created, client):
    id_, outs = created
    news = {
        **props,
        "display_name": "etl pipeline v2",
        "active": False,
        "entitlements": ["databricks-sql-access"],
        "groups": [ANALYSTS],
    }
    result = provider.update(id_, outs, news)
    principal = ServicePrincipalsApi(client).get(id_)
    assert principal["displayName"] == "etl pipeline v2"
    assert principal["active"] is False
    assert [e["value"] for e in principal["entitlements"]] == ["databricks-sql-access"]
    assert [g["value"] for g in principal["groups"]] == [ANALYSTS]
    assert not provider.diff(id_, result.outs, news).changes


def test_update_keeps_undeclared_fields(provider, props, created, client):
    id_, outs = created
    news = {k: v for k, v in props.items() if k != "groups"}
    provider.update(id_, outs, {**news, "display_name": "renamed"})
    principal = ServicePrincipalsApi(client).get(id_)
    assert sorted(g["value"] for g in principal["groups"]) == [DATA_ENGINEERS, ANALYSTS]


def test_delete_removes_it_from_the_workspace_only(
    provider, props, created, client, emulator, application, connection
):
    id_, outs = created
    clear_request_log(emulator)
    provider.delete(id_, outs)
    with pytest.raises(NotFound):
        ServicePrincipalsApi(client).get(id_)
    # The wire form decides how the principal is named in the DELETE path.
    named = props["application_id"] if connection["wire_form"] == "legacy" else id_
    deletes = [e["path"] for e in request_log(emulator) if e["method"] == "DELETE"]
    assert deletes == [f"{SCIM_SERVICE_PRINCIPALS}/{named}"]
    # The application is still registered with the identity provider.
    assert fetch_token(emulator, application["client_id"], application["client_secret"])


def test_delete_of_a_missing_principal_succeeds(provider, created, client):
    id_, outs = created
    ServicePrincipalsApi(client).delete(id_, outs["application_id"])
    provider.delete(id_, outs)


# --- adoption ------------------------------------------------------------------------


def test_create_adopts_a_principal_left_by_an_interrupted_create(provider, props, client):
    existing = ServicePrincipalsApi(client).create(
        {
            "schemas": [SCIM_SCHEMA],
            "applicationId": props["application_id"],
            "displayName": "half made",
            "entitlements": [{"value": "allow-instance-pool-create"}],
        },
    )
    result = provider.create(props)
    assert result.id == existing["id"]
    [principal] = principals_of(client, props["application_id"])
    assert principal["displayName"] == "etl pipeline"
    assert not provider.diff(result.id, result.outs, props).changes


def test_create_answered_409_looks_up_and_adopts(provider, props, client, monkeypatch):
    existing = ServicePrincipalsApi(client).create(
        {"schemas": [SCIM_SCHEMA], "applicationId": props["application_id"]}
    )
    real_find = ServicePrincipalProvider._find
    lookups: list[str] = []

    def counted_find(client, application_id):
        lookups.append(application_id)
        return real_find(client, application_id)

    monkeypatch.setattr(ServicePrincipalProvider, "_find", staticmethod(counted_find))
    result = provider.create(props)
    # Created first; the 409 alone leads to the one look-up.
    assert lookups == [props["application_id"]]
    assert result.id == existing["id"]
    assert len(principals_of(client, props["application_id"])) == 1


def test_fresh_create_makes_one_call(provider, props, client, monkeypatch):
    lookups: list[str] = []
    monkeypatch.setattr(
        ServicePrincipalProvider, "_find", staticmethod(lambda c, a: lookups.append(a))
    )
    result = provider.create(props)
    assert lookups == []
    assert ServicePrincipalsApi(client).get(result.id)["applicationId"] == props["application_id"]
    assert result.outs["application_id"] == props["application_id"]


# --- the resource (program side) ---------------------------------------------------------


def test_resource_registers_typed_args(provider, props, connection):
    args = ServicePrincipalArgs(
        application_id=props["application_id"],
        display_name="etl pipeline",
        entitlements=["workspace-access"],
        groups=[DATA_ENGINEERS],
    )
    inputs, outputs = register(
        lambda: ServicePrincipal("etl", args, connection=connection), read=("groups",)
    )
    assert provider.check({}, inputs).failures == []
    assert outputs["groups"] == [DATA_ENGINEERS]
    assert "active" not in inputs  # left to the provider's default


class RecordingPut:
    """Stands in for the client and its principals area where the service under test cannot
    show the case: the emulator has no nested groups, so no indirect memberships."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    @property
    def service_principals(self) -> RecordingPut:
        return self

    def replace(self, principal_id: str, resource: dict[str, Any]) -> dict[str, Any]:
        self.bodies.append(resource)
        return resource


@pytest.mark.usefixtures("fake_areas")
def test_update_without_declared_groups_puts_back_direct_memberships_only():
    current = {
        "id": "42",
        "applicationId": "00000000-0000-0000-0000-000000000001",
        "displayName": "sp",
        "groups": [
            {"value": "100", "display": "engineers", "type": "direct", "$ref": "Groups/100"},
            {"value": "200", "display": "everyone", "type": "indirect", "$ref": "Groups/200"},
        ],
        "meta": {"resourceType": "ServicePrincipal"},
    }
    spec = {"application_id": current["applicationId"], "active": True, "display_name": "new"}
    client = RecordingPut()
    ServicePrincipalProvider._replace(client, current, spec)  # type: ignore[arg-type]
    (body,) = client.bodies
    assert body["groups"] == [{"value": "100"}]
    assert body["displayName"] == "new"
    assert "meta" not in body


# --- without an application id (AWS, GCP: the service assigns it) ------------------------------


@pytest.fixture
def named_props(connection: dict[str, Any]) -> dict[str, Any]:
    """A principal declared by a display name of its own alone."""
    return {
        "display_name": f"ci-{uuid.uuid4().hex[:10]}",
        "entitlements": ["workspace-access"],
        CONNECTION_KEY: connection,
    }


def named(client: WorkspaceClient, display_name: str) -> list[dict]:
    return ServicePrincipalsApi(client).named(display_name)


def test_a_principal_by_display_name_gets_an_application_id_that_stays(
    provider, named_props, client
):
    result = provider.create(named_props)
    [principal] = named(client, named_props["display_name"])
    assert principal["id"] == result.id
    assert GUID.match(result.outs["application_id"])
    assert result.outs["application_id"] == principal["applicationId"]
    # The assigned id is no change, with the last inputs known or not, and reads the same.
    assert not provider.diff(result.id, result.outs, named_props).changes
    assert not provider.diff(result.id, result.outs, named_props, old_inputs=named_props).changes
    assert provider.read(result.id, result.outs).outs == result.outs
    # Declaring it later is no change either; another one replaces.
    declared = {**named_props, "application_id": result.outs["application_id"]}
    assert not provider.diff(result.id, result.outs, declared, old_inputs=named_props).changes


def test_a_new_display_name_renames_the_principal_in_place(provider, named_props, client):
    created = provider.create(named_props)
    renamed = {**named_props, "display_name": named_props["display_name"] + "-v2"}
    diff = provider.diff(created.id, created.outs, renamed, old_inputs=named_props)
    assert diff.changes and not diff.replaces
    updated = provider.update(created.id, created.outs, renamed)
    principal = ServicePrincipalsApi(client).get(created.id)
    assert principal["displayName"] == renamed["display_name"]
    assert updated.outs["application_id"] == created.outs["application_id"]
    assert not provider.diff(created.id, updated.outs, renamed, old_inputs=renamed).changes


def test_a_create_whose_answer_was_lost_is_adopted_by_its_display_name(
    provider, named_props, client
):
    left = ServicePrincipalsApi(client).create(
        {"schemas": [SCIM_SCHEMA], "displayName": named_props["display_name"]}
    )
    result = provider.create(named_props)
    assert result.id == left["id"]
    assert result.outs["application_id"] == left["applicationId"]
    [principal] = named(client, named_props["display_name"])
    assert [e["value"] for e in principal["entitlements"]] == ["workspace-access"]


def test_several_principals_of_the_display_name_are_refused(provider, named_props, client):
    for _ in range(2):
        ServicePrincipalsApi(client).create(
            {"schemas": [SCIM_SCHEMA], "displayName": named_props["display_name"]}
        )
    with pytest.raises(AmbiguousDisplayName, match="declare application_id"):
        provider.create(named_props)
    assert len(named(client, named_props["display_name"])) == 2


def test_a_principal_by_display_name_is_deleted_in_either_wire_form(
    provider, named_props, client
):
    created = provider.create(named_props)
    provider.delete(created.id, created.outs)
    assert named(client, named_props["display_name"]) == []
