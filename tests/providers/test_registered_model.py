"""RegisteredModel against the emulator, in both wire forms: create, read, update in place
(comment, owner, aliases), drift, import with no diff, delete (refused while the model holds
versions, unless force_destroy), replacement, and adopting what an interrupted create left.
Versions are registered as a training run does (the MLflow client's path)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.ml.registered_model import RegisteredModelProvider
from providers.ml.registered_models_api import MODELS_PATH, RegisteredModelsApi
from providers.unity_catalog.catalogs_api import CatalogsApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_left_out_settings_cleared_or_kept
from tests.providers.unity_catalog import external_location, fresh, make_catalog, make_schema

VERSIONS_PATH = "/api/2.0/mlflow/unity-catalog/model-versions/create"


@pytest.fixture
def provider() -> RegisteredModelProvider:
    return RegisteredModelProvider()


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
        "catalog_name": catalog,
        "schema_name": name.upper(),
        "name": fresh("Churn"),
        "comment": "churn model",
        CONNECTION_KEY: connection,
    }


def register_version(client: WorkspaceClient, full_name: str) -> int:
    """A version of the model, registered as a training run registers one."""
    made = client.post(VERSIONS_PATH, {"name": full_name, "source": "dbfs:/runs/1/model"})
    return int(made["model_version"]["version"])


def aliases_of(client: WorkspaceClient, full_name: str) -> dict[str, int]:
    found = RegisteredModelsApi(client).get(full_name)
    return {a["alias_name"]: a["version_num"] for a in found.get("aliases") or []}


def test_create_read_update_delete(provider, props, client, schema) -> None:
    made = provider.create(props)
    assert made.id == f"{schema}.{props['name'].lower()}"
    found = RegisteredModelsApi(client).get(made.id)
    assert found["comment"] == "churn model"
    assert (made.outs["schema_name"], made.outs["full_name"]) == (schema.split(".")[1], made.id)
    assert "storage_location" not in made.outs  # a managed model's is the service's
    assert not provider.diff(made.id, made.outs, props).changes
    by_full_name = {CONNECTION_KEY: props[CONNECTION_KEY], "name": made.id.upper(),
                    "comment": "churn model"}
    assert not provider.diff(made.id, made.outs, by_full_name).changes
    read = provider.read(made.id, made.outs)
    assert not provider.diff(made.id, read.outs, props).changes

    changed = {**props, "comment": "scores churn", "owner": "data-engineers"}
    diff = provider.diff(made.id, made.outs, changed)
    assert set(diff.changed_keys) == {"comment", "owner"} and not diff.replaces
    updated = provider.update(made.id, made.outs, changed)
    found = RegisteredModelsApi(client).get(made.id)
    assert (found["comment"], found["owner"]) == ("scores churn", "data-engineers")

    provider.delete(made.id, updated.outs)
    assert RegisteredModelsApi(client).list(*schema.split(".")) == []
    assert provider.read(made.id, updated.outs).id is None
    provider.delete(made.id, updated.outs)


def test_aliases_set_moved_and_deleted_the_declared_ones_only(provider, props, client) -> None:
    made = provider.create(props)
    one, two = register_version(client, made.id), register_version(client, made.id)
    RegisteredModelsApi(client).set_alias(made.id, "theirs", one)
    with_alias = {**props, "aliases": {"Champion": one}}
    diff = provider.diff(made.id, made.outs, with_alias)
    assert diff.changed_keys == ["aliases"] and not diff.replaces
    updated = provider.update(made.id, made.outs, with_alias)
    assert updated.outs["aliases"] == {"champion": one}
    assert aliases_of(client, made.id) == {"champion": one, "theirs": one}
    assert not provider.diff(made.id, provider.read(made.id, updated.outs).outs,
                             with_alias).changes

    moved = {**props, "aliases": {"champion": two}}
    updated = provider.update(made.id, updated.outs, moved)
    assert aliases_of(client, made.id) == {"champion": two, "theirs": one}
    updated = provider.update(made.id, updated.outs, props)
    assert aliases_of(client, made.id) == {"theirs": one}
    assert [v["version"] for v in RegisteredModelsApi(client).versions(made.id)] == [2, 1]
    provider.delete(made.id, {**updated.outs, "force_destroy": True})


def test_an_alias_naming_a_missing_version_is_refused_before_any_change(
        provider, props, client) -> None:
    with pytest.raises(ValueError, match=r"aliases\.champion: version 1 of .* does not "
                                         r"exist \(a new model has no versions"):
        provider.create({**props, "aliases": {"champion": 1}})
    assert RegisteredModelsApi(client).list(props["catalog_name"]) == []
    made = provider.create({**props, "comment": "other"})
    register_version(client, made.id)
    refused = {**props, "aliases": {"champion": 3}}
    with pytest.raises(ValueError, match=r"aliases\.champion: version 3 of .* \(its versions: 1;"):
        provider.update(made.id, made.outs, refused)
    assert RegisteredModelsApi(client).get(made.id)["comment"] == "other"
    provider.delete(made.id, {**made.outs, "force_destroy": True})


def test_a_model_holding_versions_is_deleted_only_with_force_destroy(
        provider, props, client) -> None:
    made = provider.create(props)
    register_version(client, made.id)
    with pytest.raises(ValueError, match="holds version.* 1, made by training runs.*"
                                         "force_destroy: true"):
        provider.delete(made.id, made.outs)
    assert RegisteredModelsApi(client).get(made.id)["full_name"] == made.id
    forced = {**props, "force_destroy": True}
    diff = provider.diff(made.id, made.outs, forced)
    assert diff.changed_keys == ["force_destroy"] and not diff.replaces
    updated = provider.update(made.id, made.outs, forced)
    provider.delete(made.id, updated.outs)
    assert provider.read(made.id, updated.outs).id is None


def test_drift_shows_in_refresh(provider, props, client) -> None:
    made = provider.create({**props, "aliases": None})
    version = register_version(client, made.id)
    declared = {**props, "aliases": {"champion": version}}
    updated = provider.update(made.id, made.outs, declared)
    RegisteredModelsApi(client).update(made.id, {"comment": "by hand"})
    RegisteredModelsApi(client).delete_alias(made.id, "champion")
    read = provider.read(made.id, updated.outs)
    assert provider.diff(made.id, read.outs, declared).changed_keys == ["aliases", "comment"]
    provider.delete(made.id, {**updated.outs, "force_destroy": True})


def test_import_by_full_name(provider, props, client) -> None:
    made = provider.create(props)
    version = register_version(client, made.id)
    RegisteredModelsApi(client).set_alias(made.id, "champion", version)
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.outs["aliases"] == {"champion": version} and imported.outs["owner"]
    assert "storage_location" not in imported.outs
    declared = {**props, "aliases": {"champion": version}}
    assert not provider.diff(made.id, imported.outs, declared, old_inputs={}).changes
    provider.delete(made.id, {**made.outs, "force_destroy": True})


def test_replacements(provider, props, client, emulator, schema) -> None:
    url = f"{external_location(emulator)}/models"
    external = {**props, "storage_location": f"{url}/"}
    made = provider.create(external)
    assert RegisteredModelsApi(client).get(made.id)["storage_location"] == url
    assert not provider.diff(made.id, made.outs, external).changes
    moved = provider.diff(made.id, made.outs, {**external, "storage_location": f"{url}2"})
    assert moved.replaces == ["storage_location"] and moved.delete_before_replace
    renamed = provider.diff(made.id, made.outs, {**external, "name": fresh("other")})
    assert renamed.replaces == ["name"] and not renamed.delete_before_replace
    other_schema = make_schema(client, schema.split(".")[0]).split(".")[1]
    elsewhere = provider.diff(made.id, made.outs, {**external, "schema_name": other_schema})
    assert elsewhere.replaces == ["schema_name"] and not elsewhere.delete_before_replace
    provider.delete(made.id, made.outs)


def test_create_adopts_after_a_lost_answer(provider, props, client, monkeypatch) -> None:
    lost = lose_the_answer_to(monkeypatch, MODELS_PATH)
    made = provider.create(props)
    assert lost == [MODELS_PATH]
    assert [m["full_name"] for m in RegisteredModelsApi(client).list(
        props["catalog_name"])] == [made.id]
    provider.delete(made.id, made.outs)


def test_create_adopts_what_an_interrupted_run_made(provider, props, client, schema) -> None:
    catalog, name = schema.split(".")
    RegisteredModelsApi(client).create({"catalog_name": catalog, "schema_name": name,
                                        "name": props["name"], "comment": props["comment"]})
    made = provider.create({**props, "owner": "data-engineers"})
    assert RegisteredModelsApi(client).get(made.id)["owner"] == "data-engineers"
    provider.delete(made.id, made.outs)


def test_a_model_declared_otherwise_is_not_adopted(provider, props, client, schema) -> None:
    catalog, name = schema.split(".")
    RegisteredModelsApi(client).create({"catalog_name": catalog, "schema_name": name,
                                        "name": props["name"], "comment": "someone else's"})
    with pytest.raises(AlreadyExists, match="import it"):
        provider.create(props)


def test_settings_left_out_of_the_config_are_cleared_or_kept(provider, props, client) -> None:
    assert_left_out_settings_cleared_or_kept(
        provider, {**props, "owner": "Bob@example.com"},
        RegisteredModelsApi(client).get,
        cleared={"comment": ""},
        kept={"owner": "bob@example.com"},
    )
