"""CatalogBinding against the catalogs of the emulator's initial data, in both wire forms."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

import pytest
from pulumi.output import Unknown

from providers import CatalogBinding, CatalogBindingArgs, WorkspaceBindingArgs
from providers.client import NotFound, TemporarilyUnavailable, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN
from providers.unity_catalog.bindings_api import BindingsApi
from providers.unity_catalog.catalog_binding import CatalogBindingProvider
from providers.unity_catalog.catalogs_api import CATALOGS_PATH, CatalogsApi
from providers.unity_catalog.external_locations_api import ExternalLocationsApi
from providers.unity_catalog.storage_credentials_api import StorageCredentialsApi
from tests.providers.resource_mocks import register
from tests.providers.support import failures

CATALOG = "finance"  # OPEN in the initial data, without bindings
HOME = 1234567890123456  # the emulated workspace
OTHER, THIRD, FOURTH = 2345678901234567, 3456789012345678, 4567890123456789
READ_WRITE: Final = "BINDING_TYPE_READ_WRITE"
READ_ONLY: Final = "BINDING_TYPE_READ_ONLY"


@pytest.fixture
def provider() -> CatalogBindingProvider:
    return CatalogBindingProvider()


@pytest.fixture
def client(client: WorkspaceClient) -> Iterator[WorkspaceClient]:
    yield client
    # Put the shared initial data back: open, no bindings.
    CatalogsApi(client).update_isolation(CATALOG, "OPEN")
    for binding in bindings_of(client):
        CatalogsApi(client).unbind(CATALOG, [binding["workspace_id"]], binding["binding_type"])


@pytest.fixture
def props(connection: dict[str, Any], client: WorkspaceClient) -> dict[str, Any]:
    return {
        "catalog_name": CATALOG,
        "bindings": [
            {"workspace_id": HOME},
            {"workspace_id": str(OTHER), "binding_type": READ_ONLY},
        ],
        CONNECTION_KEY: connection,
    }


def bindings_of(client: WorkspaceClient, catalog: str = CATALOG) -> list[dict]:
    return CatalogsApi(client).get_bindings(catalog)


def bound(client: WorkspaceClient) -> dict[int, str]:
    return {b["workspace_id"]: b["binding_type"] for b in bindings_of(client)}


def isolation_of(client: WorkspaceClient) -> str:
    return CatalogsApi(client).get(CATALOG)["isolation_mode"]


def bind_by_hand(client: WorkspaceClient, workspace_id: int, binding_type: str = READ_WRITE):
    CatalogsApi(client).bind(CATALOG, [workspace_id], binding_type)


# --- check ---------------------------------------------------------------------------


def test_valid_input_passes_check(provider, props):
    assert failures(provider, props) == {}
    assert failures(provider, {**props, "catalog_name": "Finance_2024-q1"}) == {}
    assert failures(provider, {**props, "isolation_mode": "OPEN", "bindings": []}) == {}


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        ({"catalog_name": ""}, "catalog_name"),
        ({"catalog_name": "finance data"}, "catalog_name"),
        ({"catalog_name": "main.finance"}, "catalog_name"),
        ({"catalog_name": "x" * 256}, "catalog_name"),
        ({"isolation_mode": "CLOSED"}, "isolation_mode"),
        ({"bindings": [{"workspace_id": 0}]}, "bindings.0.workspace_id"),
        ({"bindings": [{"workspace_id": HOME}, {"workspace_id": -4}]}, "bindings.1.workspace_id"),
        ({"bindings": [{"workspace_id": "12ab"}]}, "bindings.0.workspace_id"),
        ({"bindings": [{"workspace_id": 2**63}]}, "bindings.0.workspace_id"),
        ({"bindings": [{"workspace_id": 1.5}]}, "bindings.0.workspace_id"),
        ({"bindings": [{"workspace_id": True}]}, "bindings.0.workspace_id"),
        ({"bindings": [{}]}, "bindings.0.workspace_id"),
        (
            {"bindings": [{"workspace_id": HOME, "binding_type": "BINDING_TYPE_OWNER"}]},
            "bindings.0.binding_type",
        ),
        ({"bindings": [{"workspace_id": HOME}, {"workspace_id": str(HOME)}]}, "bindings"),
        ({"catalog": CATALOG}, "catalog"),
    ],
)
def test_check_names_the_bad_field(provider, props, changes, path):
    assert list(failures(provider, {**props, **changes})) == [path]


@pytest.mark.parametrize("unknown", [UNKNOWN, Unknown()], ids=["sentinel", "engine"])
def test_check_does_not_judge_unknown_values(provider, props, unknown):
    unknowns = {"catalog_name": unknown, "bindings": [{"workspace_id": unknown}]}
    assert failures(provider, {**props, **unknowns}) == {}


# --- diff ----------------------------------------------------------------------------


def test_diff_same_input_is_no_change(provider, props, created):
    id_, outs = created
    assert not provider.diff(id_, outs, props).changes


def test_diff_normal_forms_are_no_change(provider, props, created):
    id_, outs = created
    same = {
        **props,
        "catalog_name": "FINANCE",
        "isolation_mode": "ISOLATED",
        "bindings": [
            {"workspace_id": OTHER, "binding_type": READ_ONLY},
            {"workspace_id": str(HOME), "binding_type": READ_WRITE},
        ],
    }
    assert not provider.diff(id_, outs, same).changes


def test_diff_isolation_and_bindings_update_in_place(provider, props, created):
    id_, outs = created
    for changes in (
        {"isolation_mode": "OPEN"},
        {"bindings": [{"workspace_id": HOME}]},
        {"bindings": [{"workspace_id": HOME}, {"workspace_id": OTHER}]},
    ):
        diff = provider.diff(id_, outs, {**props, **changes})
        assert diff.changes and not diff.replaces, changes


def test_diff_another_catalog_replaces(provider, props, created):
    id_, outs = created
    diff = provider.diff(id_, outs, {**props, "catalog_name": "sandbox"})
    assert diff.replaces == ["catalog_name"]
    assert not diff.delete_before_replace


@pytest.mark.parametrize("unknown", [UNKNOWN, Unknown()], ids=["sentinel", "engine"])
def test_diff_tolerates_unknown_values(provider, props, created, unknown):
    id_, outs = created
    diff = provider.diff(id_, outs, {**props, "bindings": [{"workspace_id": unknown}]})
    assert diff.changes and not diff.replaces
    diff = provider.diff(id_, outs, {**props, "catalog_name": "FINANCE", "isolation_mode": unknown})
    assert diff.changes and not diff.replaces
    diff = provider.diff(id_, outs, {**props, "catalog_name": unknown})
    assert diff.replaces == ["catalog_name"]


# --- create, read, update, delete ------------------------------------------------------


def test_create_isolates_and_binds(provider, props, created, client):
    id_, outs = created
    assert id_ == CATALOG
    assert isolation_of(client) == "ISOLATED"
    assert bound(client) == {HOME: READ_WRITE, OTHER: READ_ONLY}
    assert {k: v for k, v in outs.items() if k != CONNECTION_KEY} == {
        "catalog_name": CATALOG,
        "isolation_mode": "ISOLATED",
        "bindings": [
            {"workspace_id": str(HOME), "binding_type": READ_WRITE},
            {"workspace_id": str(OTHER), "binding_type": READ_ONLY},
        ],
        "previous_isolation_mode": "OPEN",
        "preexisting_bindings": [],
    }


def test_create_on_an_unknown_catalog_fails_with_the_service_message(provider, props):
    with pytest.raises(NotFound, match="Catalog 'no_such_catalog' does not exist"):
        provider.create({**props, "catalog_name": "no_such_catalog"})


def test_read_equals_what_create_recorded(provider, created):
    id_, outs = created
    read = provider.read(id_, outs)
    assert (read.id, read.outs) == (id_, outs)


def test_read_shows_out_of_band_changes_of_declared_state_only(provider, props, created, client):
    id_, outs = created
    CatalogsApi(client).unbind(CATALOG, [OTHER], READ_ONLY)
    bind_by_hand(client, THIRD)
    read = provider.read(id_, outs)
    assert read.outs["bindings"] == [{"workspace_id": str(HOME), "binding_type": READ_WRITE}]
    assert provider.diff(id_, read.outs, props).changes


def test_read_of_a_missing_catalog_is_gone(provider, created):
    _, outs = created
    assert provider.read("no_such_catalog", outs).id is None


def test_update_changes_only_the_difference(provider, props, created, client):
    id_, outs = created
    bind_by_hand(client, FOURTH)  # someone else's binding
    news = {
        **props,
        "bindings": [{"workspace_id": HOME, "binding_type": READ_ONLY}, {"workspace_id": THIRD}],
    }
    result = provider.update(id_, outs, news)
    assert bound(client) == {HOME: READ_ONLY, THIRD: READ_WRITE, FOURTH: READ_WRITE}
    assert not provider.diff(id_, result.outs, news).changes


def test_update_opens_the_catalog(provider, props, created, client):
    id_, outs = created
    provider.update(id_, outs, {**props, "isolation_mode": "OPEN"})
    assert isolation_of(client) == "OPEN"
    assert bound(client) == {HOME: READ_WRITE, OTHER: READ_ONLY}


def test_delete_unbinds_its_own_and_restores_the_isolation_mode(provider, created, client):
    id_, outs = created
    bind_by_hand(client, FOURTH)
    provider.delete(id_, outs)
    assert isolation_of(client) == "OPEN"
    assert bound(client) == {FOURTH: READ_WRITE}


def test_delete_restores_an_isolated_catalog(provider, props, client):
    CatalogsApi(client).update_isolation(CATALOG, "ISOLATED")
    result = provider.create({**props, "isolation_mode": "OPEN"})
    assert isolation_of(client) == "OPEN"
    provider.delete(result.id, result.outs)
    assert isolation_of(client) == "ISOLATED"


def test_bindings_made_before_by_someone_else_survive(provider, props, client):
    bind_by_hand(client, OTHER, READ_WRITE)  # declared below as READ_ONLY
    bind_by_hand(client, THIRD)  # declared below, then dropped by an update
    declared = {**props, "bindings": [*props["bindings"], {"workspace_id": THIRD}]}
    result = provider.create(declared)
    assert result.outs["preexisting_bindings"] == [
        {"workspace_id": str(OTHER), "binding_type": READ_WRITE},
        {"workspace_id": str(THIRD), "binding_type": READ_WRITE},
    ]
    updated = provider.update(result.id, result.outs, props)
    assert bound(client) == {HOME: READ_WRITE, OTHER: READ_ONLY, THIRD: READ_WRITE}
    provider.delete(result.id, updated.outs)
    assert bound(client) == {OTHER: READ_WRITE, THIRD: READ_WRITE}


def test_create_again_after_an_interrupted_create_converges(provider, props, client):
    bind_by_hand(client, HOME)  # the first try got this far
    result = provider.create(props)
    assert bound(client) == {HOME: READ_WRITE, OTHER: READ_ONLY}
    assert not provider.diff(result.id, result.outs, props).changes


def test_delete_of_a_missing_catalog_succeeds(provider, created):
    _, outs = created
    provider.delete("no_such_catalog", outs)


# --- the resource (program side) ---------------------------------------------------------


def test_resource_registers_typed_args(provider, connection):
    args = CatalogBindingArgs(
        catalog_name=CATALOG,
        bindings=[WorkspaceBindingArgs(workspace_id=HOME, binding_type=READ_ONLY)],
    )
    inputs, outputs = register(
        lambda: CatalogBinding("finance", args, connection=connection),
        read=("previous_isolation_mode", "bindings"),
        computed={"previous_isolation_mode": "OPEN", "preexisting_bindings": []},
    )
    assert provider.check({}, inputs).failures == []
    assert inputs["bindings"] == [{"workspace_id": HOME, "binding_type": READ_ONLY}]
    assert outputs["previous_isolation_mode"] == "OPEN"


def unavailable(path: str) -> TemporarilyUnavailable:
    return TemporarilyUnavailable(
        status=503, code="TEMPORARILY_UNAVAILABLE", message="try later", method="PATCH", path=path
    )


def test_a_failed_create_undoes_its_bindings_so_the_next_records_the_initial_state(
    provider, props, client, monkeypatch
):
    """Isolating fails after the bindings were made: the create unbinds them before failing,
    so the retried create records OPEN and no preexisting bindings, and its delete leaves
    the catalog as it was in the initial data."""

    def isolation_unavailable(self, securable_type, name, isolation_mode):
        raise unavailable(f"{CATALOGS_PATH}/{name}")

    with monkeypatch.context() as patched:
        patched.setattr(BindingsApi, "update_isolation", isolation_unavailable)
        with pytest.raises(TemporarilyUnavailable):
            provider.create(props)
    assert bindings_of(client) == []
    assert isolation_of(client) == "OPEN"

    result = provider.create(props)
    assert result.outs["previous_isolation_mode"] == "OPEN"
    assert result.outs["preexisting_bindings"] == []
    provider.delete(result.id, result.outs)
    assert bindings_of(client) == []
    assert isolation_of(client) == "OPEN"


# --- other bindable securables ---------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "path", "reason"),
    [
        ({"securable_type": "volume"}, "securable_type", "'catalog', 'external_location'"),
        ({"securable_type": "external_location"}, "catalog_name", "securable_name"),
        ({"catalog_name": None}, "catalog_name", "catalog_name or securable_name"),
        ({"catalog_name": None, "securable_type": "storage_credential"}, "securable_name",
         "required"),
        ({"catalog_name": None, "securable_type": "credential", "securable_name": "svc"},
         "bindings.1.binding_type", "bound BINDING_TYPE_READ_WRITE only"),
    ],
)
def test_check_names_the_securable(provider, props, changes, path, reason):
    found = failures(provider, {k: v for k, v in {**props, **changes}.items() if v is not None})
    assert reason in found[path], found


def test_an_external_location_is_isolated_and_bound(provider, connection, client):
    from tests.providers.uc_support import ACCESS_CONNECTOR, fresh_name

    credential, location = fresh_name("cred"), fresh_name("Loc")
    StorageCredentialsApi(client).create(
        {"name": credential, "azure_managed_identity": {"access_connector_id": ACCESS_CONNECTOR}}
    )
    ExternalLocationsApi(client).create({
        "name": location, "credential_name": credential,
        "url": f"abfss://c@emulatedstorage.dfs.core.windows.net/{location}"})
    props = {"securable_type": "EXTERNAL-LOCATION", "securable_name": location,
             "isolation_mode": "ISOLATION_MODE_ISOLATED",
             "bindings": [{"workspace_id": HOME}], CONNECTION_KEY: connection}
    assert failures(provider, props) == {}
    made = provider.create(props)
    assert made.id == f"external_location/{location}"
    assert made.outs["previous_isolation_mode"] == "OPEN"
    found = ExternalLocationsApi(client).get(location)
    assert found["isolation_mode"] == "ISOLATION_MODE_ISOLATED"
    assert [b["workspace_id"] for b in BindingsApi(client).get("external_location", location)] == [
        HOME]
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes
    assert provider.diff(made.id, read.outs, {**props, "securable_name": "x"}).replaces
    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert imported.outs["securable_name"] == location
    provider.delete(made.id, made.outs)
    assert ExternalLocationsApi(client).get(location)["isolation_mode"] == "ISOLATION_MODE_OPEN"
    assert BindingsApi(client).get("external_location", location) == []
    StorageCredentialsApi(client).delete(credential, force=True)


def test_a_service_credential_is_isolated_and_bound(provider, connection, client):
    from tests.providers.uc_support import ACCESS_CONNECTOR, fresh_name

    name = fresh_name("Svc")
    client.post("/api/2.1/unity-catalog/credentials", {
        "name": name, "purpose": "SERVICE",
        "azure_managed_identity": {"access_connector_id": ACCESS_CONNECTOR}})
    props = {"securable_type": "credential", "securable_name": name,
             "bindings": [{"workspace_id": HOME}, {"workspace_id": OTHER}],
             CONNECTION_KEY: connection}
    assert failures(provider, props) == {}
    made = provider.create(props)
    assert made.id == f"credential/{name}"
    assert made.outs["previous_isolation_mode"] == "OPEN"
    assert BindingsApi(client).get_securable("credential", name)["isolation_mode"] == "ISOLATED"
    assert {b["workspace_id"]: b["binding_type"] for b in BindingsApi(client).get(
        "credential", name)} == {HOME: READ_WRITE, OTHER: READ_WRITE}
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes
    fewer = {**props, "bindings": [{"workspace_id": HOME}]}
    changed = provider.update(made.id, read.outs, fewer)
    assert [b["workspace_id"] for b in BindingsApi(client).get("credential", name)] == [HOME]
    imported = provider.read(made.id, {CONNECTION_KEY: connection})
    assert imported.outs["securable_type"] == "credential"
    assert imported.outs["securable_name"] == name
    provider.delete(made.id, changed.outs)
    assert BindingsApi(client).get_securable("credential", name)["isolation_mode"] == "OPEN"
    assert BindingsApi(client).get("credential", name) == []
    client.request("DELETE", f"/api/2.1/unity-catalog/credentials/{name}")
