"""The drill inventory's judges of the kinds not named by one identity field: Unity Catalog
grants, the workspace settings, notebooks by path, schemas and volumes by full name."""

from __future__ import annotations

from typing import Any

from tools.drills import inventory
from tools.drills.inventory import Inventory, judge


def held(**fields: Any) -> Inventory:
    return Inventory([], [], [], {}, {}, {}, **fields)


GRANTS = {"name": "demo-catalog", "securable_type": "catalog", "full_name": "demo",
          "privilege_assignments": [{"principal": "users", "privileges": ["USE_CATALOG"]}]}
PRINCIPAL_GRANT = {"name": "engineers", "securable_type": "storage_credential",
                   "full_name": "landing", "principal": "data-engineers",
                   "privileges": ["CREATE_EXTERNAL_TABLE"]}


def test_grants_are_judged_as_sets_of_privileges_per_principal() -> None:
    before = held(uc_grants={"storage_credential/landing": {"analysts": frozenset({"BROWSE"})}})
    objects = {"grants": [GRANTS], "principalGrants": [PRINCIPAL_GRANT]}
    exact = held(uc_grants={
        "catalog/demo": {"users": frozenset({"USE_CATALOG"})},
        "storage_credential/landing": {"analysts": frozenset({"BROWSE"}),
                                       "data-engineers": frozenset({"CREATE_EXTERNAL_TABLE"})},
    })
    assert judge(before, exact, objects, "").problems == []

    off = held(uc_grants={
        "catalog/demo": {"users": frozenset({"USE_CATALOG", "BROWSE"})},
        "storage_credential/landing": {"data-engineers": frozenset()},
    })
    verdict = judge(before, off, objects, "")
    assert sorted(verdict.problems) == [
        "catalog/demo: users BROWSE is not declared",
        "storage_credential/landing lost analysts BROWSE",
        "storage_credential/landing lost data-engineers CREATE_EXTERNAL_TABLE",
    ]
    assert (verdict.orphans, verdict.lost_permissions) == (1, 2)


def test_a_securable_with_declared_grants_that_is_not_there_is_missing() -> None:
    verdict = judge(held(), held(), {"grants": [GRANTS]}, "")
    assert verdict.problems == ["catalog/demo is missing (grants declared on it)"]


def test_workspace_settings_hold_the_declared_values_and_the_rest_their_old_ones() -> None:
    before = held(workspace_conf={"enableIpAccessLists": "false", "maxTokenLifetimeDays": None})
    objects = {"workspaceConf": [{"name": "s", "settings": {"enableIpAccessLists": "true"}}]}
    assert judge(before, held(workspace_conf={"enableIpAccessLists": "true"}),
                 objects, "").problems == []
    verdict = judge(before, held(workspace_conf={"enableIpAccessLists": "false",
                                                 "maxTokenLifetimeDays": "90"}), objects, "")
    assert verdict.problems == [
        "workspace setting enableIpAccessLists is 'false', not 'true'",
        "workspace setting maxTokenLifetimeDays is '90', not None",
    ]
    assert (verdict.missing, verdict.orphans) == (1, 1)


def test_notebooks_are_judged_by_path() -> None:
    # By the tree, or by the Notebook kind's inventory where it has one: the same verdicts.
    def tree(*notebooks: str) -> Inventory:
        return held(workspace_tree={"/Shared": "DIRECTORY",
                                    **{path: "NOTEBOOK" for path in notebooks}},
                    objects={"Notebook": [(path, path) for path in notebooks]})

    objects = {"notebooks": [{"name": "n", "path": "/Shared/report"}]}
    assert judge(tree(), tree("/Shared/report"), objects, "").problems == []
    assert judge(tree(), tree("/Shared/report", "/Shared/other"), objects, "").problems == [
        "notebook /Shared/other is not declared"]
    assert judge(tree(), tree(), objects, "").problems == [
        "notebook /Shared/report exists 0 times"]


def test_schemas_and_volumes_are_judged_by_full_name() -> None:
    assert inventory.uc_full_name({"name": "landing", "catalog": "demo"}, "catalog", 2) \
        == "demo.landing"
    assert inventory.uc_full_name({"name": "demo.landing.files"}, "schema", 3) \
        == "demo.landing.files"
    objects = {"schemas": [{"name": "landing", "catalog_name": "demo"}],
               "volumes": [{"name": "files", "schema": "demo.landing"}]}
    before = held(objects={"Schema": [("demo.default", "demo.default")], "Volume": []})
    twice = held(objects={
        "Schema": [("demo.default", "demo.default"), ("demo.landing", "demo.landing"),
                   ("demo.extra", "demo.extra")],
        "Volume": [("demo.landing.files", "demo.landing.files")] * 2,
    })
    verdict = judge(before, twice, objects, "")
    assert sorted(verdict.problems) == ["schema demo.extra is not declared",
                                        "volume demo.landing.files exists 2 times"]


def test_a_new_catalogs_own_schemas_are_not_undeclared() -> None:
    objects = {"catalogs": [{"name": "demo"}], "schemas": [{"name": "demo.landing"}]}
    made = held(objects={"Catalog": [("demo", "demo")], "Schema": [
        ("demo.default", "demo.default"), ("demo.landing", "demo.landing")]})
    assert judge(held(objects={"Catalog": [], "Schema": []}), made, objects, "").problems == []
