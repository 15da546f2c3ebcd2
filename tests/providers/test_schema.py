"""Schema against the emulator, in both wire forms: create, read, update in place, the
replacements, delete with and without force_destroy, import, and adopting what an
interrupted create left."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import AlreadyExists, InvalidState, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.schema import SchemaProvider
from providers.unity_catalog.schemas_api import SCHEMAS_PATH, SchemasApi
from providers.unity_catalog.volumes_api import VolumesApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_left_out_settings_cleared_or_kept
from tests.providers.unity_catalog import external_location, fresh, make_catalog


@pytest.fixture
def provider() -> SchemaProvider:
    return SchemaProvider()


@pytest.fixture
def catalog(client: WorkspaceClient) -> Iterator[str]:
    name = make_catalog(client)
    yield name
    CatalogsApi(client).delete(name, force=True)


@pytest.fixture
def props(connection: dict[str, Any], catalog: str) -> dict[str, Any]:
    return {
        "name": fresh("Raw"),  # declared in mixed case: the service folds it
        "catalog_name": catalog.upper(),
        "comment": "landed as is",
        "properties": {"layer": "bronze"},
        CONNECTION_KEY: connection,
    }


def full_name(props: dict[str, Any]) -> str:
    return f"{props['catalog_name']}.{props['name']}".lower()


def schemas_of(client: WorkspaceClient, catalog: str) -> set[str]:
    return {s["name"] for s in SchemasApi(client).list(catalog)}


def test_create_read_update_delete(provider, props, client, catalog) -> None:
    made = provider.create(props)
    assert made.id == full_name(props)
    found = SchemasApi(client).get(made.id)
    assert (found["comment"], found["properties"]) == ("landed as is", {"layer": "bronze"})
    # The recorded name is the full name; folded names and what the service fills in are
    # no change.
    assert (made.outs["name"], made.outs["catalog_name"]) == (made.id, catalog)
    assert made.outs["schema_id"] and made.outs["full_name"] == made.id
    assert "owner" not in made.outs
    assert not provider.diff(made.id, made.outs, props).changes
    by_full_name = {**props, "name": made.id.upper()}
    del by_full_name["catalog_name"]
    assert not provider.diff(made.id, made.outs, by_full_name).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {
        **props, "comment": "raw", "properties": {"layer": "raw"}, "owner": "Bob@example.com"
    }
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {"comment", "properties", "owner"} and not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    found = SchemasApi(client).get(made.id)
    assert (found["comment"], found["properties"], found["owner"]) == (
        "raw", {"layer": "raw"}, "bob@example.com"  # the service's spelling of the user
    )
    assert updated.outs["owner"] == "Bob@example.com"
    assert not provider.diff(made.id, provider.read(made.id, updated.outs).outs, changed).changes

    provider.delete(made.id, updated.outs)
    assert made.id.split(".")[1] not in schemas_of(client, catalog)
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)


def test_a_changed_catalog_root_or_name_replaces(provider, props, client, emulator) -> None:
    root = external_location(emulator)
    rooted = {**props, "storage_root": f"{root}/raw"}
    made = provider.create(rooted)
    assert made.outs["storage_location"].startswith(f"{root}/raw/")
    other = make_catalog(client)
    moved = provider.diff(made.id, made.outs, {**rooted, "catalog_name": other})
    assert set(moved.replaces) == {"catalog_name", "name"} and not moved.delete_before_replace
    renamed = provider.diff(made.id, made.outs, {**rooted, "name": fresh("raw")})
    assert renamed.replaces == ["name"] and not renamed.delete_before_replace
    rerooted = provider.diff(made.id, made.outs, {**rooted, "storage_root": f"{root}/raw2"})
    assert rerooted.replaces == ["storage_root"] and rerooted.delete_before_replace
    provider.delete(made.id, made.outs)
    CatalogsApi(client).delete(other, force=True)


def test_a_non_empty_schema_is_deleted_only_with_force_destroy(provider, props, client) -> None:
    made = provider.create(props)
    catalog, schema = made.id.split(".")
    VolumesApi(client).create({"catalog_name": catalog, "schema_name": schema, "name": "files",
                           "volume_type": "MANAGED"})
    with pytest.raises(InvalidState, match="force_destroy: true") as refused:
        provider.delete(made.id, made.outs)
    assert "volume(s) files" in str(refused.value)
    forced = provider.update(made.id, made.outs, {**props, "force_destroy": True})
    provider.delete(made.id, forced.outs)
    assert schema not in schemas_of(client, catalog)


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create(props)
    SchemasApi(client).update(made.id, {"properties": {"layer": "x"}, "owner": "data-engineers"})
    read = provider.read(made.id, made.outs)
    assert provider.diff(made.id, read.outs, props).changed_keys == ["properties"]
    provider.delete(made.id, made.outs)


def test_import_by_full_name(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["name"] == made.id and imported.outs["owner"]
    assert imported.outs["comment"] == props["comment"]
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_create_adopts_after_a_lost_answer(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, SCHEMAS_PATH)
    made = provider.create({**props, "owner": "data-engineers"})
    assert lost == [SCHEMAS_PATH]
    assert SchemasApi(client).get(made.id)["owner"] == "data-engineers"
    provider.delete(made.id, made.outs)


def test_create_adopts_what_an_interrupted_run_made(provider, props, client, catalog) -> None:
    SchemasApi(client).create({"name": props["name"], "catalog_name": catalog,
                           "comment": props["comment"], "properties": props["properties"]})
    made = provider.create(props)
    assert made.id == full_name(props)
    provider.delete(made.id, made.outs)
    # The `default` schema a stack's catalog comes with is adopted too.
    default = provider.create({"name": f"{catalog}.default", CONNECTION_KEY: props[CONNECTION_KEY]})
    assert default.id == f"{catalog}.default"


def test_a_schema_in_use_is_not_adopted(provider, props, client, catalog) -> None:
    made = SchemasApi(client).create({"name": props["name"], "catalog_name": catalog,
                                  "comment": props["comment"], "properties": props["properties"]})
    VolumesApi(client).create({"catalog_name": catalog, "schema_name": made["name"], "name": "v",
                           "volume_type": "MANAGED"})
    with pytest.raises(AlreadyExists, match="import it"):
        provider.create(props)


def test_settings_left_out_of_the_config_are_cleared_or_kept(provider, props, client) -> None:
    """A comment or map no longer declared is cleared in the service; an owner, isolation
    mode or read-only flag no longer declared stays as it is, and is no change."""
    assert_left_out_settings_cleared_or_kept(
        provider, {**props, "owner": "Bob@example.com"},
        SchemasApi(client).get,
        cleared={"comment": "", "properties": {}},
        kept={"owner": "bob@example.com"},
    )
