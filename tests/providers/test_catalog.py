"""Catalog against the emulator, in both wire forms: create, read, update in place, the
replacements, delete with and without force_destroy, import, and adopting what an
interrupted create left."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import AlreadyExists, InvalidState, WorkspaceClient
from providers.client.workspace import writes_sent
from providers.core.lifecycle import CONNECTION_KEY
from providers.unity_catalog.catalog import CatalogProvider
from providers.unity_catalog.catalogs_api import CATALOGS_PATH, CatalogsApi
from providers.unity_catalog.schemas_api import SchemasApi
from tests.conftest import emulator_client, emulator_connection, fresh_emulator
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_left_out_settings_cleared_or_kept
from tests.providers.unity_catalog import external_location, fresh, make_schema
from workspace_emulator.initial_data import default_initial_data_path
from workspace_emulator.testing import EmulatorInfo

FOREIGN = "pg_sales"  # a foreign catalog of the initial data below: none can be created here


@pytest.fixture
def provider() -> CatalogProvider:
    return CatalogProvider()


@pytest.fixture
def props(connection: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": fresh("Sales"),  # declared in mixed case: the service folds it
        "comment": "sales data",
        "properties": {"team": "data"},
        CONNECTION_KEY: connection,
    }


def exists(client: WorkspaceClient, name: str) -> bool:
    return any(c["name"] == name.lower() for c in CatalogsApi(client).list())


def test_create_read_update_delete(provider, props, client) -> None:
    made = provider.create(props)
    name = props["name"].lower()
    assert made.id == name
    found = CatalogsApi(client).get(name)
    assert (found["comment"], found["properties"]) == ("sales data", {"team": "data"})
    # Folded names and what the service fills in (owner, metastore id, ...) are no change.
    assert made.outs["name"] == name and "owner" not in made.outs
    assert made.outs["full_name"] == name and made.outs["metastore_id"]
    assert not provider.diff(made.id, made.outs, props).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {
        **props,
        "comment": "sales, curated",
        "properties": {"team": "data", "tier": "gold"},
        "owner": "data-engineers",
        "isolation_mode": "ISOLATED",
    }
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {"comment", "properties", "owner", "isolation_mode"}
    assert not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    found = CatalogsApi(client).get(name)
    assert (found["comment"], found["owner"], found["isolation_mode"]) == (
        "sales, curated", "data-engineers", "ISOLATED"
    )
    assert found["properties"] == {"team": "data", "tier": "gold"}
    assert not provider.diff(made.id, updated.outs, changed).changes

    provider.delete(made.id, updated.outs)  # only its `default` schema: no force needed
    assert not exists(client, name)
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)  # gone already: deleted


def test_a_changed_root_or_name_replaces(provider, props, emulator) -> None:
    root = external_location(emulator)
    rooted = {**props, "storage_root": f"{root}/sales/"}
    made = provider.create(rooted)
    assert made.outs["storage_root"] == f"{root}/sales"  # the service's spelling, no slash
    assert made.outs["storage_location"].startswith(f"{root}/sales/")
    assert not provider.diff(made.id, made.outs, rooted).changes

    moved = provider.diff(made.id, made.outs, {**rooted, "storage_root": f"{root}/other"})
    assert moved.replaces == ["storage_root"] and moved.delete_before_replace
    renamed = provider.diff(made.id, made.outs, {**rooted, "name": fresh("sales")})
    assert renamed.replaces == ["name"] and not renamed.delete_before_replace
    provider.delete(made.id, made.outs)


def test_a_non_empty_catalog_is_deleted_only_with_force_destroy(provider, props, client) -> None:
    made = provider.create(props)
    schema = make_schema(client, made.id)
    with pytest.raises(InvalidState, match="force_destroy: true") as refused:
        provider.delete(made.id, made.outs)
    assert schema.split(".")[1] in str(refused.value)
    assert exists(client, made.id)

    forced = {**props, "force_destroy": True}
    diff = provider.diff(made.id, made.outs, forced)
    assert diff.changed_keys == ["force_destroy"] and not diff.replaces
    before = writes_sent(client.connection.base_url)
    updated = provider.update(made.id, made.outs, forced)
    assert writes_sent(client.connection.base_url) == before  # our own field: nothing sent
    assert updated.outs["force_destroy"] is True
    provider.delete(made.id, updated.outs)
    assert not exists(client, made.id)


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create(props)
    CatalogsApi(client).update(made.id, {"comment": "changed by hand", "owner": "data-engineers"})
    read = provider.read(made.id, made.outs)
    # The owner was never declared: not a change.
    assert provider.diff(made.id, read.outs, props).changed_keys == ["comment"]
    provider.delete(made.id, made.outs)


def test_import_by_name(provider, props, client) -> None:
    made = provider.create({**props, "owner": "data-engineers"})
    imported = provider.read(made.id.upper(), {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["name"] == made.id
    assert imported.outs["owner"] == "data-engineers"
    assert imported.outs["force_destroy"] is False
    declared = {**props, "owner": "data-engineers"}
    assert not provider.diff(made.id, imported.outs, declared, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_a_user_owner_matches_without_regard_to_case(provider, props, client) -> None:
    owned = {**props, "owner": "Bob@Example.com"}
    made = provider.create(owned)
    assert CatalogsApi(client).get(made.id)["owner"].lower() == "bob@example.com"
    assert made.outs["owner"] == "Bob@Example.com"
    assert not provider.diff(made.id, provider.read(made.id, made.outs).outs, owned).changes
    provider.delete(made.id, made.outs)


def test_create_adopts_after_a_lost_answer(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, CATALOGS_PATH)
    made = provider.create({**props, "isolation_mode": "ISOLATED"})
    assert lost == [CATALOGS_PATH]
    assert CatalogsApi(client).get(made.id)["isolation_mode"] == "ISOLATED"
    provider.delete(made.id, made.outs)


def test_delete_goes_on_when_the_default_schema_delete_lost_its_answer(
        provider, props, client, monkeypatch) -> None:
    # The schema was deleted but the answer was lost: the retried DELETE finds it gone (404).
    real_delete = SchemasApi.delete

    def delete_then_retry(self: SchemasApi, full_name: str, force: bool = False) -> None:
        real_delete(self, full_name, force)
        real_delete(self, full_name, force)

    made = provider.create(props)
    monkeypatch.setattr(SchemasApi, "delete", delete_then_retry)
    provider.delete(made.id, made.outs)
    assert not exists(client, made.id)


def test_create_adopts_what_an_interrupted_run_made(provider, props, client) -> None:
    # The earlier run's create went through; its answer never reached the state.
    CatalogsApi(client).create({"name": props["name"], "comment": props["comment"],
                            "properties": props["properties"]})
    made = provider.create({**props, "owner": "data-engineers"})
    assert made.id == props["name"].lower()
    assert CatalogsApi(client).get(made.id)["owner"] == "data-engineers"
    provider.delete(made.id, made.outs)


def test_a_catalog_in_use_is_not_adopted(provider, props, client) -> None:
    CatalogsApi(client).create({"name": props["name"], "comment": props["comment"],
                            "properties": props["properties"]})
    make_schema(client, props["name"].lower())
    with pytest.raises(AlreadyExists, match="import it"):
        provider.create(props)
    CatalogsApi(client).delete(props["name"].lower(), force=True)


def test_a_catalog_declared_otherwise_is_not_adopted(provider, props, client) -> None:
    CatalogsApi(client).create({"name": props["name"], "comment": "someone else's"})
    with pytest.raises(AlreadyExists, match="import it"):
        provider.create(props)
    CatalogsApi(client).delete(props["name"].lower(), force=True)


@pytest.fixture(scope="module")
def with_foreign_catalog(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmulatorInfo]:
    """An emulator whose initial data holds a foreign catalog (the emulator has no
    connections, so none can be created through the API)."""
    initial = json.loads(default_initial_data_path().read_text())
    initial["catalogs"].append({"name": FOREIGN, "connection_name": "postgres",
                                "options": {"database": "sales"}})
    path = tmp_path_factory.mktemp("foreign") / "initial_data.json"
    path.write_text(json.dumps(initial))
    with fresh_emulator(initial_data=path) as info:
        yield info


def test_a_foreign_catalogs_options_change_in_place(provider, with_foreign_catalog) -> None:
    connection = emulator_connection(with_foreign_catalog).to_props()
    client = emulator_client(with_foreign_catalog)
    imported = provider.read(FOREIGN, {CONNECTION_KEY: connection})
    assert imported.outs["options"] == {"database": "sales"}
    assert imported.outs["connection_name"] == "postgres"
    declared = {"name": FOREIGN, "connection_name": "postgres",
                "options": {"database": "sales"}, CONNECTION_KEY: connection}
    assert provider.check({}, declared).failures == []
    # An import records what the service shows (its owner, isolation mode): no change.
    assert not provider.diff(FOREIGN, imported.outs, declared, old_inputs={}).changes

    changed = {**declared, "options": {"database": "sales_v2"},
               "enable_predictive_optimization": "DISABLE"}
    diff = provider.diff(FOREIGN, imported.outs, changed, old_inputs={})
    assert set(diff.changed_keys) == {"options", "enable_predictive_optimization"}
    assert not diff.replaces
    updated = provider.update(FOREIGN, imported.outs, changed)
    found = CatalogsApi(client).get(FOREIGN)
    assert found["options"] == {"database": "sales_v2"}
    assert found["enable_predictive_optimization"] == "DISABLE"
    assert found["connection_name"] == "postgres"
    assert not provider.diff(FOREIGN, updated.outs, changed, old_inputs=changed).changes
    read = provider.read(FOREIGN, updated.outs)
    assert not provider.diff(FOREIGN, read.outs, changed, old_inputs=changed).changes
    # Another connection is another catalog: a replacement, as documented.
    assert provider.diff(FOREIGN, read.outs, {**changed, "connection_name": "mysql"},
                         old_inputs=changed).replaces


def test_predictive_optimization_is_set_after_the_create(provider, props, client) -> None:
    declared = {**props, "enable_predictive_optimization": "ENABLE"}
    made = provider.create(declared)
    assert CatalogsApi(client).get(made.id)["enable_predictive_optimization"] == "ENABLE"
    assert not provider.diff(made.id, made.outs, declared).changes
    provider.delete(made.id, made.outs)


def test_settings_left_out_of_the_config_are_cleared_or_kept(provider, props, client) -> None:
    """A comment or map no longer declared is cleared in the service; an owner, isolation
    mode or read-only flag no longer declared stays as it is, and is no change."""
    assert_left_out_settings_cleared_or_kept(
        provider, {**props, "owner": "Bob@example.com", "isolation_mode": "ISOLATED"},
        CatalogsApi(client).get,
        cleared={"comment": "", "properties": {}},
        kept={"owner": "Bob@example.com", "isolation_mode": "ISOLATED"},
    )
