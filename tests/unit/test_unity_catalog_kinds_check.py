"""Catalog, Schema and Volume: every rule of their inputs, each failure naming its path,
before any call; the normal forms (folded names, full names, empty is none); and the stack
config's references from a schema to a catalog and from a volume to a schema."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from providers.core.lifecycle import UNKNOWN, WorkspaceProvider
from providers.unity_catalog.catalog import CatalogProvider
from providers.unity_catalog.schema import SchemaProvider
from providers.unity_catalog.volume import VolumeProvider
from stacks.config import file_values
from stacks.config_rules import problems
from stacks.pulumi_cli import REPO_ROOT

ROOT = "abfss://lake@account.dfs.core.windows.net/sales"
CATALOG = {"name": "sales", "comment": "c", "properties": {"team": "data"}}
SCHEMA = {"name": "raw", "catalog_name": "sales"}
VOLUME = {"name": "files", "catalog_name": "sales", "schema_name": "raw", "volume_type": "MANAGED"}


def failures(provider: type[WorkspaceProvider], inputs: dict[str, Any]) -> dict[str, str]:
    return {f.property: f.reason for f in provider.input_failures(inputs)}


def with_change(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in {**base, **change}.items() if v is not None}


def assert_names(provider, base, change, path, reason) -> None:
    found = failures(provider, with_change(base, change))
    assert path in found, found
    assert reason in found[path], found[path]


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        ({"name": ""}, "name", "must not be empty"),
        ({"name": "sales.eu"}, "name", "holds '.'"),
        ({"name": "sales eu"}, "name", "holds ' '"),
        ({"name": "sales/eu"}, "name", "holds '/'"),
        ({"name": "s\x01"}, "name", "control character"),
        ({"name": "s" * 256}, "name", "at most 255"),
        ({"comment": 5}, "comment", "valid string"),
        ({"properties": {"team": 1}}, "properties.team", "valid string"),
        ({"storage_root": "lake/sales"}, "storage_root", "not a storage URL"),
        ({"storage_root": "abfss://"}, "storage_root", "not a storage URL"),
        ({"owner": " "}, "owner", "must not be empty"),
        ({"isolation_mode": "PRIVATE"}, "isolation_mode", "'OPEN' or 'ISOLATED'"),
        ({"force_destroy": "yes"}, "force_destroy", "valid boolean"),
        ({"catalog_name": "x"}, "catalog_name", "Extra inputs"),
        ({"provider_name": "acme"}, "share_name", "required with provider_name"),
        ({"share_name": "orders"}, "provider_name", "required with share_name"),
        (
            {"connection_name": "pg", "provider_name": "acme", "share_name": "orders"},
            "connection_name",
            "not both",
        ),
        ({"connection_name": "pg", "storage_root": ROOT}, "storage_root", "only a managed"),
        ({"provider_name": "a", "share_name": "b", "storage_root": ROOT}, "storage_root",
         "only a managed"),
        ({"options": {"database": "orders"}}, "options", "only a foreign catalog"),
        ({"connection_name": " "}, "connection_name", "must not be empty"),
    ],
)
def test_catalog_rules(change, path, reason) -> None:
    assert_names(CatalogProvider, CATALOG, change, path, reason)


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        ({"name": ""}, "name", "must not be empty"),
        ({"name": "a.b.c"}, "name", "has 3 parts"),
        ({"name": "sales.r w"}, "name", "holds ' '"),
        ({"name": "information_schema"}, "name", "the service keeps"),
        ({"name": "sales.INFORMATION_SCHEMA", "catalog_name": None}, "name", "service keeps"),
        ({"catalog_name": None}, "catalog_name", "required (or give name as"),
        ({"catalog_name": "sales.eu"}, "catalog_name", "holds '.'"),
        ({"name": "finance.raw"}, "catalog_name", "'sales' is not the catalog of name"),
        ({"storage_root": "raw"}, "storage_root", "not a storage URL"),
        ({"properties": ["a"]}, "properties", "valid dictionary"),
        ({"owner": ""}, "owner", "must not be empty"),
        ({"force_destroy": 1}, "force_destroy", "valid boolean"),
        ({"volume_type": "MANAGED"}, "volume_type", "Extra inputs"),
    ],
)
def test_schema_rules(change, path, reason) -> None:
    assert_names(SchemaProvider, SCHEMA, change, path, reason)


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        ({"name": "sales.files"}, "name", "has 2 parts"),
        ({"name": "files/x"}, "name", "holds '/'"),
        ({"volume_type": "DELTA"}, "volume_type", "'MANAGED' or 'EXTERNAL'"),
        ({"volume_type": None}, "volume_type", "Field required"),
        ({"volume_type": "EXTERNAL"}, "storage_location", "required for an EXTERNAL volume"),
        ({"storage_location": f"{ROOT}/files"}, "storage_location", "not taken by a MANAGED"),
        ({"volume_type": "EXTERNAL", "storage_location": "files"}, "storage_location",
         "not a storage URL"),
        ({"schema_name": None}, "schema_name", "required (or give name as"),
        ({"catalog_name": None}, "catalog_name", "required (or give schema_name"),
        ({"schema_name": "a.b.c"}, "schema_name", "has 3 parts"),
        ({"schema_name": "finance.raw"}, "catalog_name", "'sales' is not the catalog of "
         "schema_name 'finance.raw'"),
        ({"name": "sales.bronze.files"}, "schema_name", "'raw' is not the schema of name"),
        ({"name": "finance.raw.files", "schema_name": None}, "catalog_name",
         "is not the catalog of name"),
        ({"owner": " "}, "owner", "must not be empty"),
        ({"force_destroy": True}, "force_destroy", "Extra inputs"),
    ],
)
def test_volume_rules(change, path, reason) -> None:
    assert_names(VolumeProvider, VOLUME, change, path, reason)


@pytest.mark.parametrize(
    ("provider", "inputs"),
    [
        (CatalogProvider, CATALOG),
        (CatalogProvider, {"name": "shared", "provider_name": "acme", "share_name": "orders"}),
        (CatalogProvider, {"name": "pg", "connection_name": "pg", "options": {"database": "x"}}),
        (CatalogProvider, {**CATALOG, "storage_root": ROOT, "isolation_mode": "ISOLATED",
                           "owner": "data-engineers", "force_destroy": True}),
        (SchemaProvider, SCHEMA),
        (SchemaProvider, {"name": "sales.raw"}),
        (SchemaProvider, {"name": "Sales.Raw", "catalog_name": "SALES", "storage_root": ROOT}),
        (VolumeProvider, VOLUME),
        (VolumeProvider, {"name": "sales.raw.files", "volume_type": "MANAGED"}),
        (VolumeProvider, {"name": "files", "schema_name": "sales.raw", "volume_type": "MANAGED"}),
        (VolumeProvider, {**VOLUME, "volume_type": "EXTERNAL", "storage_location": ROOT}),
        # Unknown values (a reference not resolved yet) are not judged.
        (SchemaProvider, {"name": "raw", "catalog_name": UNKNOWN}),
        (VolumeProvider, {"name": "files", "schema_name": UNKNOWN, "volume_type": "MANAGED"}),
    ],
)
def test_valid_inputs_pass(provider, inputs) -> None:
    assert failures(provider, inputs) == {}


def spec(provider: type[WorkspaceProvider], inputs: dict[str, Any]) -> dict[str, Any]:
    kind = provider()
    return kind.spec(kind.args_model.model_validate(inputs))


def test_normal_forms_fold_names_and_drop_empty_values() -> None:
    assert spec(CatalogProvider, {"name": "Sales", "comment": "", "properties": {}}) == {
        "name": "sales",
        "force_destroy": False,
    }
    assert spec(CatalogProvider, {**CATALOG, "storage_root": f"{ROOT}/"})["storage_root"] == ROOT
    by_parts = spec(SchemaProvider, {"name": "Raw", "catalog_name": "Sales"})
    by_full_name = spec(SchemaProvider, {"name": "SALES.raw"})
    assert by_parts == by_full_name == {
        "name": "sales.raw",
        "catalog_name": "sales",
        "force_destroy": False,
    }
    expected = {
        "name": "sales.raw.files",
        "catalog_name": "sales",
        "schema_name": "sales.raw",
        "volume_type": "MANAGED",
    }
    assert spec(VolumeProvider, VOLUME) == expected
    assert spec(VolumeProvider, {"name": "Sales.Raw.Files", "volume_type": "MANAGED"}) == expected
    assert spec(VolumeProvider, {"name": "files", "schema_name": "sales.RAW",
                                 "volume_type": "MANAGED"}) == expected


def test_a_changed_force_destroy_is_an_update_not_a_replacement() -> None:
    recorded = spec(CatalogProvider, CATALOG)
    diff = CatalogProvider().diff("sales", recorded, {**CATALOG, "force_destroy": True})
    assert diff.changed_keys == ["force_destroy"] and not diff.replaces


# --- the stack config: references by resource name ---------------------------------------


@pytest.fixture()
def local() -> dict[str, Any]:
    values = copy.deepcopy(file_values(REPO_ROOT / "Pulumi.local.yaml")[0])
    del values["clientSecret"]
    return values


def test_schemas_and_volumes_name_items_of_the_stack(local: dict[str, Any]) -> None:
    local["catalogs"] = [{"name": "sales"}]
    local["schemas"] = [
        {"name": "sales.raw", "catalog": "sales"},
        {"name": "curated", "catalog": "slaes"},
        {"name": "both", "catalog": "sales", "catalog_name": "sales"},
        {"name": "neither"},
    ]
    local["volumes"] = [
        {"name": "files", "schema": "sales.raw", "volume_type": "MANAGED"},
        {"name": "other", "schema": "sales.curated", "volume_type": "MANAGED"},
        {"name": "loose", "volume_type": "MANAGED"},
    ]
    found = [p for p in problems(local) if "schemas" in p or "volumes" in p]
    assert found == [
        "workspace:schemas[1].catalog: no catalog named 'slaes' in workspace:catalogs "
        "(did you mean 'sales'?)",
        "workspace:schemas[2]: give either catalog or catalog_name, not both",
        "workspace:schemas[3].catalog_name: required (or give name as the schema's full name, "
        "catalog.schema)",
        "workspace:volumes[1].schema: no schema named 'sales.curated' in workspace:schemas "
        "(did you mean 'sales.raw'?)",
        "workspace:volumes[2].schema_name: required (or give name as the volume's full name, "
        "catalog.schema.volume)",
    ], found
