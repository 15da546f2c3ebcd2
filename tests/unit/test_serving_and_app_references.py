"""A serving endpoint's served entity and an app's resources and source folder name items
of the stack in place: a value naming an item is a reference to it (the program fills in
its id), any other value an id, name or path as the service gives it, kept as it is; the
config rules take both."""

from __future__ import annotations

from typing import Any

from providers.core.kind import Reference, with_nested_references
from providers.core.registry import kind_named
from stacks.config_rules import problems
from tests.unit.test_in_place_references import config

ENDPOINT = kind_named("ServingEndpoint")
APP = kind_named("App")
NAMES = {"registeredModels": {"churn_model"}, "sqlWarehouses": {"reporting"},
         "jobs": {"nightly"}, "servingEndpoints": {"churn"}, "secretScopes": {"app-secrets"},
         "volumes": {"landing"}, "directories": {"app-code"}}


def value_of(reference: Any, name: Any) -> Any:
    return f"id-of-{name}" if reference.names_item(name, NAMES) else name


def endpoint(entity_name: str) -> dict[str, Any]:
    return {"name": "churn", "config": {"served_entities": [{
        "entity_name": entity_name, "entity_version": "1", "workload_size": "Small",
        "scale_to_zero_enabled": True}]}}


def app(warehouse: str, job: str, serving: str, scope: str, volume: str,
        source: str) -> dict[str, Any]:
    return {"name": "orders-app", "source_code_path": source, "resources": [
        {"name": "w", "sql_warehouse": {"id": warehouse, "permission": "CAN_USE"}},
        {"name": "j", "job": {"id": job, "permission": "CAN_MANAGE_RUN"}},
        {"name": "e", "serving_endpoint": {"name": serving, "permission": "CAN_QUERY"}},
        {"name": "k", "secret": {"scope": scope, "key": "api", "permission": "READ"}},
        {"name": "v", "uc_securable": {"securable_full_name": volume, "securable_type": "VOLUME",
                                       "permission": "READ_VOLUME"}},
        {"name": "t", "uc_securable": {"securable_full_name": "landing",
                                       "securable_type": "TABLE", "permission": "SELECT"}},
    ]}


def test_a_served_entity_names_a_registered_model_item_or_a_model_by_its_full_name() -> None:
    by_item = with_nested_references(endpoint("churn_model"), ENDPOINT, value_of)
    pasted = with_nested_references(endpoint("main.ml.churn"), ENDPOINT, value_of)
    assert by_item["config"]["served_entities"][0]["entity_name"] == "id-of-churn_model"
    assert pasted["config"]["served_entities"][0]["entity_name"] == "main.ml.churn"


def test_an_apps_resources_name_items_of_their_lists_or_ids_as_given() -> None:
    made = with_nested_references(
        app("reporting", "nightly", "churn", "app-secrets", "landing", "app-code"), APP,
        value_of)
    assert [next(v for k, v in r.items() if k not in ("name", "description"))
            for r in made["resources"]] == [
        {"id": "id-of-reporting", "permission": "CAN_USE"},
        {"id": "id-of-nightly", "permission": "CAN_MANAGE_RUN"},
        {"name": "id-of-churn", "permission": "CAN_QUERY"},
        {"scope": "id-of-app-secrets", "key": "api", "permission": "READ"},
        {"securable_full_name": "id-of-landing", "securable_type": "VOLUME",
         "permission": "READ_VOLUME"},
        # A table is of no list of the stack: its name is kept as it is.
        {"securable_full_name": "landing", "securable_type": "TABLE", "permission": "SELECT"},
    ]
    pasted = with_nested_references(
        app("5a1e2b3c", "123", "other", "ops", "main.raw.files", "/Shared/x"), APP, value_of)
    assert pasted["resources"] == app("5a1e2b3c", "123", "other", "ops", "main.raw.files",
                                      "/Shared/x")["resources"]
    assert APP.item_references["source_code_path"] == Reference(
        "directories", "source_code_path", in_place=True)


def test_the_config_rules_take_items_and_pasted_ids_alike() -> None:
    for given in (("reporting", "nightly", "churn", "app-secrets", "landing", "/Shared/x"),
                  ("5a1e2b3c", "123", "other", "ops", "main.raw.files", "/Shared/y")):
        found = problems(config(apps=[app(*given)], servingEndpoints=[endpoint("main.ml.c")]))
        assert [p for p in found if p.startswith(("workspace:apps", "workspace:serving"))] \
            == [], (given, found)


def test_the_config_rules_name_a_plain_environment_variable_by_its_path() -> None:
    item = endpoint("main.ml.churn")
    item["config"]["served_entities"][0]["environment_vars"] = {"TOKEN": "dapi123"}
    found = problems(config(servingEndpoints=[item]))
    assert any(p.startswith("workspace:servingEndpoints[0].config.served_entities[0]."
                            "environment_vars") and "secret reference" in p
               for p in found), found
    assert not any("dapi123" in p for p in found), found
