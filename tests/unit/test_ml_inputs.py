"""The offline rules of RegisteredModel and Experiment: each bad input refused before any
call, the failure naming its path and what to give instead."""

from __future__ import annotations

from typing import Any

import pytest

from providers.core.kind import Reference, reference_for
from providers.core.registry import kind_named
from providers.ml.experiment import ExperimentModel, ExperimentProvider
from providers.ml.registered_model import RegisteredModelModel, RegisteredModelProvider
from stacks.config_rules import problems

MODEL = {"catalog_name": "Sales", "schema_name": "ML", "name": "Churn"}
EXPERIMENT = {"name": "/Shared/ml/churn"}


def failures(provider: Any, inputs: dict[str, Any]) -> list[tuple[str, str]]:
    return [(f.property, f.reason) for f in provider.input_failures(inputs)]


def test_a_model_is_named_and_folded_as_the_service_stores_it() -> None:
    args = RegisteredModelModel.model_validate(
        {**MODEL, "aliases": {"Champion": 2, "b": 1}, "storage_location": "s3://b/m/"})
    assert args.full_name == "sales.ml.churn"
    assert args.aliases == {"b": 1, "champion": 2}
    assert args.storage_location == "s3://b/m"
    assert failures(RegisteredModelProvider, MODEL) == []
    by_full_name = RegisteredModelModel.model_validate({"name": "Sales.ML.Churn"})
    assert by_full_name.full_name == "sales.ml.churn"
    assert RegisteredModelProvider().spec(by_full_name) == RegisteredModelProvider().spec(
        RegisteredModelModel.model_validate(MODEL))


@pytest.mark.parametrize(("inputs", "path", "says"), [
    ({"schema_name": "ml", "name": "m"}, "catalog_name",
     "required (or give name as the model's full name, catalog.schema.model)"),
    ({"catalog_name": "sales", "name": "m"}, "schema_name", "required (or give name as"),
    ({"name": "sales.ml.m", "schema_name": "raw"}, "schema_name",
     "'raw' is not the schema of name 'sales.ml.m'"),
    ({"name": "sales.ml.m", "catalog_name": "lake"}, "catalog_name",
     "'lake' is not the catalog of name 'sales.ml.m'"),
    ({**MODEL, "name": "a.b"}, "name", "'a.b' has 2 parts; give the model's name or its full "
                                       "name, catalog.schema.model"),
    ({**MODEL, "name": "a.b c.d"}, "name", "'a.b c.d': 'b c' holds ' '"),
    ({**MODEL, "schema_name": "my schema"}, "schema_name", "holds ' '"),
    ({**MODEL, "catalog_name": ""}, "catalog_name", "must not be empty"),
    ({**MODEL, "name": "m" * 256}, "name", "has 256 characters; a name has at most 255"),
    ({**MODEL, "storage_location": "bucket/path"}, "storage_location",
     "is not a storage URL (e.g. abfss://"),
    ({**MODEL, "owner": "  "}, "owner", "must not be empty"),
    ({**MODEL, "aliases": {"latest": 1}}, "aliases",
     "alias 'latest' is reserved by the service"),
    ({**MODEL, "aliases": {"V2": 1}}, "aliases", "alias 'V2' is reserved"),
    ({**MODEL, "aliases": {"the champion": 1}}, "aliases",
     "alias 'the champion': an alias holds letters, digits, '_' and '-' only"),
    ({**MODEL, "aliases": {"a": 1, "A": 2}}, "aliases", "alias 'A' is given twice"),
    ({**MODEL, "aliases": {"a": 0}}, "aliases", "alias 'a': 0 is no version number"),
    ({**MODEL, "aliases": {"a": "one"}}, "aliases.a", "valid integer"),
    ({**MODEL, "force_destroy": "yes"}, "force_destroy", "valid boolean"),
    ({**MODEL, "versions": [1]}, "versions", "Extra inputs are not permitted"),
])
def test_each_bad_model_input_is_named(inputs, path, says) -> None:
    found = failures(RegisteredModelProvider, inputs)
    assert [p for p, _ in found] == [path], found
    assert says in found[0][1]


def test_an_experiment_is_an_absolute_workspace_path() -> None:
    args = ExperimentModel.model_validate(
        {"name": "/Shared/ml/churn/", "artifact_location": "dbfs:/mlflow/churn/",
         "tags": {"b": "2", "a": "1"}})
    assert (args.name, args.artifact_location) == ("/Shared/ml/churn", "dbfs:/mlflow/churn")
    assert list(args.tags or {}) == ["a", "b"]
    assert failures(ExperimentProvider, EXPERIMENT) == []


@pytest.mark.parametrize(("inputs", "path", "says"), [
    ({}, "name", "Field required"),
    ({"name": "ml/churn"}, "name", "'ml/churn' is not an absolute workspace path"),
    ({"name": "/"}, "name", "is not an absolute workspace path"),
    ({"name": "/Shared//churn"}, "name", "is not an absolute workspace path"),
    ({"name": "/Shared/../churn"}, "name", "is not an absolute workspace path"),
    ({**EXPERIMENT, "artifact_location": "bucket/path"}, "artifact_location",
     "is not a storage URI (e.g. dbfs:/mlflow/churn"),
    ({**EXPERIMENT, "artifact_location": "s3:// x"}, "artifact_location", "storage URI"),
    ({**EXPERIMENT, "tags": {"mlflow.note": "x"}}, "tags",
     "the service sets the mlflow.* tags itself"),
    ({**EXPERIMENT, "tags": {"": "x"}}, "tags", "must have 1 to 250 characters"),
    ({**EXPERIMENT, "tags": {"k": "x" * 5001}}, "tags", "has 5001 characters"),
    ({**EXPERIMENT, "tags": {"k": 1}}, "tags.k", "valid string"),
    ({**EXPERIMENT, "lifecycle_stage": "active"}, "lifecycle_stage", "Extra inputs"),
])
def test_each_bad_experiment_input_is_named(inputs, path, says) -> None:
    found = failures(ExperimentProvider, inputs)
    assert [p for p, _ in found] == [path], found
    assert says in found[0][1]


def test_the_kinds_are_declared_for_the_stack() -> None:
    model, experiment = kind_named("RegisteredModel"), kind_named("Experiment")
    assert (model.config_key, experiment.config_key) == ("registeredModels", "experiments")
    assert model.import_id_problem("sales.ml.churn") is None
    assert experiment.import_id_problem("1234") is None
    assert experiment.import_id_problem("/Shared/ml/churn") is not None
    schema = model.references["schema_name"]
    assert isinstance(schema, Reference)
    assert schema.in_place and schema.from_id is not None
    assert schema.from_id("sales.ml") == "ml"


def config(**lists: Any) -> dict[str, Any]:
    return {
        "baseUrl": "http://127.0.0.1:8765",
        "authUrl": "http://127.0.0.1:8766",
        "tenantId": "dd523c38-5331-469f-bb30-6ee31e3da8ff",
        "clientId": "1251fa57-177d-41f0-84cd-847f7a048462",
        "resource": "2ff814a6-3304-4ab8-85cb-cd0e6f879c1d",
        "allowInsecureHttp": "true",
        **lists,
    }


def test_a_model_names_the_stacks_catalog_and_schema_in_place() -> None:
    stack = {"catalogs": [{"name": "sales"}],
             "schemas": [{"name": "sales.ml", "catalog": "sales"}]}
    named = {"name": "churn", "catalog_name": "sales", "schema_name": "sales.ml"}
    existing = {"name": "churn", "catalog_name": "lake", "schema_name": "ml"}
    for item in (named, existing):
        found = problems(config(**stack, registeredModels=[item]))
        assert [p for p in found if p.startswith("workspace:registeredModels")] == [], found
    # A full name that names no schemas item is a name the service takes none of.
    stray = {**named, "schema_name": "sales.other"}
    assert problems(config(**stack, registeredModels=[stray])) == [
        "workspace:registeredModels[0].schema_name: 'sales.other' holds '.': a name holds no "
        "'.', space, '/' or control character"]


def test_permissions_name_an_experiment_of_the_stack_in_place() -> None:
    permissions = kind_named("Permissions").item_references["object_id"]
    item = {"name": "p", "object_type": "experiments", "object_id": "/Shared/ml/churn",
            "access_controls": [{"group_name": "analysts", "permission_level": "CAN_READ"}]}
    assert reference_for(permissions, item) == Reference("experiments", "object_id",
                                                         in_place=True)
    stack = {"experiments": [{"name": "/Shared/ml/churn"}]}
    assert problems(config(**stack, permissions=[item])) == []
    pasted = {**item, "object_id": "1234567890"}
    assert problems(config(**stack, permissions=[pasted])) == []
