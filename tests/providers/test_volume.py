"""Volume against the emulator, in both wire forms: a managed and an external volume's
create, read, update in place, the replacements, delete, import, and adopting what an
interrupted create left."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.volume import VolumeProvider
from providers.unity_catalog.volumes_api import VOLUMES_PATH, VolumesApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_left_out_settings_cleared_or_kept
from tests.providers.unity_catalog import external_location, fresh, make_catalog, make_schema


@pytest.fixture
def provider() -> VolumeProvider:
    return VolumeProvider()


@pytest.fixture
def schema(client: WorkspaceClient) -> Iterator[str]:
    """The full name of a schema made for the test."""
    catalog = make_catalog(client)
    yield make_schema(client, catalog)
    CatalogsApi(client).delete(catalog, force=True)


@pytest.fixture
def props(connection: dict[str, Any], schema: str) -> dict[str, Any]:
    catalog, name = schema.split(".")
    return {
        "name": fresh("Files"),
        "catalog_name": catalog,
        "schema_name": name.upper(),
        "volume_type": "MANAGED",
        "comment": "landing files",
        CONNECTION_KEY: connection,
    }


def volumes_of(client: WorkspaceClient, schema: str) -> set[str]:
    return {v["name"] for v in VolumesApi(client).list(*schema.split("."))}


def test_managed_create_read_update_delete(provider, props, client, schema) -> None:
    made = provider.create(props)
    assert made.id == f"{schema}.{props['name'].lower()}"
    found = VolumesApi(client).get(made.id)
    assert (found["volume_type"], found["comment"]) == ("MANAGED", "landing files")
    # The recorded names are full names; the managed location is the service's.
    assert (made.outs["name"], made.outs["schema_name"]) == (made.id, schema)
    assert "storage_location" not in made.outs and made.outs["volume_id"]
    assert not provider.diff(made.id, made.outs, props).changes
    by_full_name = {CONNECTION_KEY: props[CONNECTION_KEY], "name": made.id,
                    "volume_type": "MANAGED", "comment": "landing files"}
    assert not provider.diff(made.id, made.outs, by_full_name).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "comment": "files", "owner": "data-engineers"}
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {"comment", "owner"} and not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    found = VolumesApi(client).get(made.id)
    assert (found["comment"], found["owner"]) == ("files", "data-engineers")

    provider.delete(made.id, updated.outs)
    assert volumes_of(client, schema) == set()
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)


def test_external_volume_and_replacements(provider, props, client, emulator, schema) -> None:
    url = f"{external_location(emulator)}/files"
    external = {**props, "volume_type": "EXTERNAL", "storage_location": f"{url}/"}
    made = provider.create(external)
    assert VolumesApi(client).get(made.id)["storage_location"] == url
    assert made.outs["storage_location"] == url
    assert not provider.diff(made.id, made.outs, external).changes

    moved = provider.diff(made.id, made.outs, {**external, "storage_location": f"{url}2"})
    assert moved.replaces == ["storage_location"] and moved.delete_before_replace
    managed = provider.diff(made.id, made.outs, props)
    assert set(managed.replaces) == {"storage_location", "volume_type"}
    renamed = provider.diff(made.id, made.outs, {**external, "name": fresh("other")})
    assert renamed.replaces == ["name"] and not renamed.delete_before_replace
    other_schema = make_schema(client, schema.split(".")[0])
    elsewhere = provider.diff(made.id, made.outs, {**external, "schema_name": other_schema})
    assert set(elsewhere.replaces) == {"name", "schema_name"}
    provider.delete(made.id, made.outs)


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create(props)
    VolumesApi(client).update(made.id, {"comment": "by hand", "owner": "data-engineers"})
    read = provider.read(made.id, made.outs)
    assert provider.diff(made.id, read.outs, props).changed_keys == ["comment"]
    provider.delete(made.id, made.outs)


def test_import_by_full_name(provider, props) -> None:
    made = provider.create(props)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["name"] == made.id and imported.outs["owner"]
    assert "storage_location" not in imported.outs  # a managed volume's is the service's
    assert not provider.diff(made.id, imported.outs, props, old_inputs={}).changes
    provider.delete(made.id, made.outs)


def test_create_adopts_after_a_lost_answer(provider, props, client, monkeypatch, schema) -> None:
    lost = lose_the_answer_to(monkeypatch, VOLUMES_PATH)
    made = provider.create(props)
    assert lost == [VOLUMES_PATH]
    assert volumes_of(client, schema) == {props["name"].lower()}
    provider.delete(made.id, made.outs)


def test_create_adopts_what_an_interrupted_run_made(provider, props, client, schema) -> None:
    catalog, name = schema.split(".")
    VolumesApi(client).create({"catalog_name": catalog, "schema_name": name, "name": props["name"],
                           "volume_type": "MANAGED", "comment": props["comment"]})
    made = provider.create({**props, "owner": "data-engineers"})
    assert VolumesApi(client).get(made.id)["owner"] == "data-engineers"
    provider.delete(made.id, made.outs)


def test_a_volume_declared_otherwise_is_not_adopted(provider, props, client, schema) -> None:
    catalog, name = schema.split(".")
    VolumesApi(client).create({"catalog_name": catalog, "schema_name": name, "name": props["name"],
                           "volume_type": "MANAGED", "comment": "someone else's"})
    with pytest.raises(AlreadyExists, match="import it"):
        provider.create(props)


def test_settings_left_out_of_the_config_are_cleared_or_kept(provider, props, client) -> None:
    """A comment or map no longer declared is cleared in the service; an owner, isolation
    mode or read-only flag no longer declared stays as it is, and is no change."""
    assert_left_out_settings_cleared_or_kept(
        provider, {**props, "owner": "Bob@example.com"},
        VolumesApi(client).get,
        cleared={"comment": ""},
        kept={"owner": "bob@example.com"},
    )
