"""API name fields as references (providers/core/service_names.py): a name field naming an
object the same stack declares resolves to that item, matched by the object's name as the
service writes it (case folded where Unity Catalog folds it, the holder's parents included);
any other name stays a plain name. The offline check refuses two items of one object, and
`--explain` says what each name field resolved to. (Under the engine:
tests/e2e/test_api_field_names.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from providers.core.kind import NameReference, dotted_name
from providers.core.registry import by_config_key, kind_named, kinds
from providers.core.service_names import (
    NameMatch,
    StackNames,
    declaration_order,
    targets_of,
    with_names,
)
from stacks import cli
from stacks.config_rules import explained, problems

CATALOGS = [{"name": "sales"}, {"name": "finance"}]
SCHEMAS = [{"name": "raw", "catalog_name": "sales"}, {"name": "ledger", "catalog": "finance"}]
PRINCIPAL_LISTS = {
    "groups": [{"name": "analysts-group", "display_name": "analysts"}],
    "users": [{"name": "ana", "user_name": "ana@example.com"}],
    "servicePrincipals": [{"name": "etl-sp", "display_name": "etl",
                           "application_id": "11111111-2222-3333-4444-555555555555"}],
}


def stack(**lists: list[dict[str, Any]]) -> StackNames:
    return StackNames(kinds(), {"catalogs": CATALOGS, "schemas": SCHEMAS, **PRINCIPAL_LISTS,
                                **lists})


def targets(kind: str, item: dict[str, Any], names: StackNames | None = None) -> dict[str, Any]:
    """Name field path -> (config key, item name) it resolved to, or None (a plain name)."""
    found = (names or stack()).matches(kind_named(kind), item)
    return {match.where: match.target for match in found}


def test_a_dotted_name_takes_parents_from_the_fields_before_or_from_the_value_itself() -> None:
    fields = ("catalog_name", "schema_name", "name")
    assert dotted_name({"catalog_name": "sales", "schema_name": "raw", "name": "v"},
                       fields) == "sales.raw.v"
    assert dotted_name({"schema_name": "sales.raw", "name": "v"}, fields) == "sales.raw.v"
    assert dotted_name({"name": "sales.raw.v"}, fields) == "sales.raw.v"
    assert dotted_name({"schema_name": "raw", "name": "v"}, fields) is None
    assert dotted_name({"catalog_name": "a", "name": "x.y.z.w"}, fields) is None
    assert dotted_name({"user_name": "ana@example.com"}, ("user_name",)) == "ana@example.com"


def test_a_volumes_names_resolve_to_its_catalog_and_the_schema_of_that_catalog() -> None:
    volume = {"name": "landing", "catalog_name": "sales", "schema_name": "raw"}
    assert targets("Volume", volume) == {
        "catalog_name": ("catalogs", "sales"),
        "schema_name": ("schemas", "raw"),
    }


def test_unity_catalog_names_match_without_regard_to_case() -> None:
    volume = {"name": "landing", "catalog_name": "SALES", "schema_name": "Raw"}
    assert targets("Volume", volume) == {
        "catalog_name": ("catalogs", "sales"),
        "schema_name": ("schemas", "raw"),
    }


def test_a_schema_of_the_same_name_in_another_catalog_is_not_matched() -> None:
    volume = {"name": "landing", "catalog_name": "marketing", "schema_name": "raw"}
    assert targets("Volume", volume) == {"catalog_name": None, "schema_name": None}


def test_a_schema_declared_by_item_key_is_named_by_its_catalogs_name() -> None:
    # `ledger` is declared with `catalog: finance` (an item key): its name is finance.ledger.
    volume = {"name": "journal", "catalog_name": "finance", "schema_name": "ledger"}
    assert targets("Volume", volume)["schema_name"] == ("schemas", "ledger")
    full = {"name": "journal", "schema_name": "finance.ledger"}
    assert targets("Volume", full) == {"schema_name": ("schemas", "ledger")}


def test_a_field_an_item_key_fills_is_left_to_that_key() -> None:
    volume = {"name": "landing", "catalog": "sales", "schema_name": "raw"}
    assert targets("Volume", volume) == {"schema_name": ("schemas", "raw")}


def test_a_full_name_names_the_object_of_its_securable_type() -> None:
    names = stack(
        volumes=[{"name": "landing", "catalog_name": "sales", "schema_name": "raw"}],
        storageCredentials=[{"name": "lake-cred"}],
        externalLocations=[{"name": "lake", "credential_name": "lake-cred"}],
    )
    assert targets("Grants", {"securable_type": "SCHEMA", "full_name": "sales.raw",
                              "privilege_assignments": []}, names) == {
        "full_name": ("schemas", "raw")}
    assert targets("Grant", {"securable_type": "volume", "full_name": "Sales.Raw.Landing",
                             "principal": "nobody"}, names) == {
        "full_name": ("volumes", "landing"), "principal": None}
    assert targets("Grants", {"securable_type": "external-location", "full_name": "lake",
                              "privilege_assignments": []}, names) == {
        "full_name": ("externalLocations", "lake")}
    # A type no list declares (a table) names nothing of the stack.
    assert targets("Grants", {"securable_type": "table", "full_name": "sales.raw",
                              "privilege_assignments": []}, names) == {"full_name": None}
    # Another type of the same name is not that object.
    assert targets("Grants", {"securable_type": "catalog", "full_name": "raw",
                              "privilege_assignments": []}, names) == {"full_name": None}


def test_principals_in_nested_entries_resolve_to_groups_users_and_service_principals() -> None:
    grants = {
        "securable_type": "catalog",
        "full_name": "sales",
        "privilege_assignments": [
            {"principal": "analysts", "privileges": ["USE_CATALOG"]},
            {"principal": "Ana@Example.com", "privileges": ["USE_CATALOG"]},
            {"principal": "11111111-2222-3333-4444-555555555555", "privileges": ["BROWSE"]},
            {"principal": "someone-else", "privileges": ["BROWSE"]},
            {"principal": "Analysts", "privileges": ["BROWSE"]},
        ],
    }
    assert targets("Grants", grants) == {
        "full_name": ("catalogs", "sales"),
        "privilege_assignments[0].principal": ("groups", "analysts-group"),
        "privilege_assignments[1].principal": ("users", "ana"),
        "privilege_assignments[2].principal": ("servicePrincipals", "etl-sp"),
        "privilege_assignments[3].principal": None,
        # Group names keep their case.
        "privilege_assignments[4].principal": None,
    }


def test_access_lists_and_run_as_name_principals_by_their_own_field() -> None:
    permissions = {"object_type": "jobs", "object_id": "1", "access_controls": [
        {"group_name": "analysts", "permission_level": "CAN_VIEW"},
        {"user_name": "ana@example.com", "permission_level": "CAN_VIEW"},
        {"user_name": "analysts", "permission_level": "CAN_VIEW"},
    ]}
    assert targets("Permissions", permissions) == {
        "access_controls[0].group_name": ("groups", "analysts-group"),
        "access_controls[1].user_name": ("users", "ana"),
        # A user_name is a user's, never a group's.
        "access_controls[2].user_name": None,
    }
    job = {"name": "nightly", "run_as": {
        "service_principal_name": "11111111-2222-3333-4444-555555555555"}}
    assert targets("Job", job) == {"run_as.service_principal_name": ("servicePrincipals",
                                                                     "etl-sp")}


def test_a_list_the_stack_lacks_is_skipped() -> None:
    # `connections` is a kind other work adds; a catalog's connection_name names none here.
    assert targets("Catalog", {"name": "foreign", "connection_name": "pg"}) == {
        "connection_name": None}


def test_only_the_fields_naming_an_item_take_the_value_made_for_them() -> None:
    inputs: dict[str, Any] = {"securable_type": "catalog", "full_name": "sales",
                              "privilege_assignments": [
                                  {"principal": "analysts", "privileges": ["USE_CATALOG"]},
                                  {"principal": "someone-else", "privileges": ["USE_CATALOG"]},
                              ]}
    matches = stack().matches(kind_named("Grants"), inputs)
    made = with_names(inputs, matches, lambda match: ("output of", match.target, match.value))
    assert made == {"securable_type": "catalog",
                    "full_name": ("output of", ("catalogs", "sales"), "sales"),
                    "privilege_assignments": [
                        {"principal": ("output of", ("groups", "analysts-group"), "analysts"),
                         "privileges": ["USE_CATALOG"]},
                        {"principal": "someone-else", "privileges": ["USE_CATALOG"]},
                    ]}
    # The inputs themselves are not changed.
    assert inputs["privilege_assignments"][0]["principal"] == "analysts"
    assert inputs["full_name"] == "sales"


def test_plain_names_are_sent_as_they_are() -> None:
    inputs = {"name": "landing", "catalog_name": "other", "schema_name": "raw"}
    matches = [NameMatch("", "schema_name", "raw", "other.raw", None)]
    assert with_names(inputs, matches, lambda _: pytest.fail("asked")) == inputs


def test_every_kind_is_declared_after_the_lists_its_items_may_name() -> None:
    order = [kind.config_key for kind in declaration_order(kinds())]
    for kind in kinds():
        for target in targets_of(kind) & set(by_config_key()) - {kind.config_key}:
            assert order.index(target) < order.index(kind.config_key), (kind.name, target)


def test_every_name_field_ends_in_its_field_and_points_into_lists_of_named_kinds() -> None:
    for kind in kinds():
        for key, named in kind.names.items():
            assert key.rsplit(".", 1)[-1] == named.field
            lists = named.targets if isinstance(named, NameReference) else \
                tuple(named.targets.values())
            for target in lists:
                declared = by_config_key().get(target)
                if declared is None:
                    assert target == "connections"  # a kind other work adds
                else:
                    assert declared.named_as, (kind.name, key, target)


def config(**lists: list[dict[str, Any]]) -> dict[str, Any]:
    return {"baseUrl": "https://adb-1.azuredatabricks.net", "authType": "oauth-m2m",
            "clientId": "c", "clientSecret": "s", **lists}


def test_two_items_of_one_object_are_refused_naming_both() -> None:
    values = config(catalogs=[{"name": "sales"}],
                    schemas=[{"name": "raw", "catalog": "sales"},
                             {"name": "RAW", "catalog_name": "sales"}])
    found = problems(values, {"clientSecret"})
    assert found == ["workspace:schemas[1]: names the object 'sales.RAW' as schemas[0] does; "
                     "one resource per object (remove one item)"]


def test_a_name_declared_twice_is_said_once() -> None:
    values = config(catalogs=[{"name": "sales"}, {"name": "sales"}])
    found = problems(values, {"clientSecret"})
    assert found == [
        "workspace:catalogs[1].name: 'sales' is declared twice (first at catalogs[0])",
        "workspace:catalogs[1].name: 'sales' is also declared by catalogs[0]; one resource "
        "per object",
    ]


def test_explain_says_what_each_name_field_resolved_to() -> None:
    values = config(
        catalogs=[{"name": "sales"}],
        schemas=[{"name": "raw", "catalog_name": "sales"}],
        volumes=[{"name": "landing", "catalog_name": "Sales", "schema_name": "raw"}],
        grants=[{"securable_type": "volume", "full_name": "sales.raw.landing",
                 "privilege_assignments": [{"principal": "analysts",
                                            "privileges": ["READ_VOLUME"]}]}],
    )
    assert explained(values) == [
        "workspace:schemas[0].catalog_name: 'sales' -> catalogs item 'sales' (sales); "
        "waits for it",
        "workspace:volumes[0].catalog_name: 'Sales' -> catalogs item 'sales' (Sales); "
        "waits for it",
        "workspace:volumes[0].schema_name: 'raw' -> schemas item 'raw' (Sales.raw); "
        "waits for it",
        "workspace:grants[0].full_name: 'sales.raw.landing' -> volumes item 'landing' "
        "(sales.raw.landing); waits for it",
        "workspace:grants[0].privilege_assignments[0].principal: 'analysts' stays a plain "
        "name (no item of the stack)",
    ]


def test_check_explain_prints_each_files_name_fields(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: team\nruntime: python\n")
    values = config(catalogs=[{"name": "sales"}],
                    schemas=[{"name": "raw", "catalog_name": "sales"}])
    values["clientSecret"] = {"secure": "v1:abc"}
    document = {"config": {f"workspace:{k}": v for k, v in values.items()}}
    (tmp_path / "Pulumi.dev.yaml").write_text(yaml.safe_dump(document))
    monkeypatch.chdir(tmp_path)

    assert cli.main(["check", "--explain"]) == 0
    assert capsys.readouterr().out == (
        "Pulumi.dev.yaml: ok\n"
        "Pulumi.dev.yaml: workspace:schemas[0].catalog_name: 'sales' -> catalogs item "
        "'sales' (sales); waits for it\n"
    )
    assert cli.main(["check"]) == 0
    assert capsys.readouterr().out == "Pulumi.dev.yaml: ok\n"


def test_a_field_that_names_an_item_by_its_item_name_keeps_that_reference() -> None:
    names = stack(schemas=[{"name": "landing-schema", "catalog_name": "sales"},
                           {"name": "finance.ledger"}])
    # By item name (as before): the in-place references serve them, no name match is made.
    assert targets("Pipeline", {"name": "etl", "catalog": "sales",
                                "schema": "landing-schema"}, names) == {}
    # By the schema's own name in the pipeline's catalog (no item has that name): a name.
    assert targets("Pipeline", {"name": "etl", "catalog": "Finance", "schema": "ledger"},
                   names) == {"catalog": ("catalogs", "finance"),
                              "schema": ("schemas", "finance.ledger")}
    model = {"name": "churn", "catalog_name": "finance", "schema_name": "LEDGER"}
    assert targets("RegisteredModel", model, names) == {
        "schema_name": ("schemas", "finance.ledger")}


def test_an_apps_securable_names_the_volume_of_its_full_name() -> None:
    names = stack(volumes=[{"name": "landing", "catalog_name": "sales", "schema_name": "raw"}])
    app = {"name": "viewer", "resources": [
        {"name": "files", "uc_securable": {"securable_type": "VOLUME", "permission": "READ_VOLUME",
                                           "securable_full_name": "sales.raw.landing"}},
        {"name": "t", "uc_securable": {"securable_type": "TABLE", "permission": "SELECT",
                                       "securable_full_name": "sales.raw.landing"}},
    ]}
    assert targets("App", app, names) == {
        "resources[0].uc_securable.securable_full_name": ("volumes", "landing"),
        "resources[1].uc_securable.securable_full_name": None,
    }
