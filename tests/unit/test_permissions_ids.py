"""A Permissions object id is one path segment of the permissions API
(`/api/2.0/permissions/<type>/<id>`): `check` and the stack's config check refuse an id that
could land the request on another endpoint (`.`, `..`, `/`, `?`, `#`, `%`) or that is not of
the characters the type's ids are made of, naming the field (docs/permissions.md)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from providers.access.permissions import PermissionsProvider
from stacks.config import file_values
from stacks.config_rules import problems
from stacks.pulumi_cli import REPO_ROOT


def failures(object_type: str, object_id: Any) -> dict[str, str]:
    level = "CAN_USE" if object_type == "cluster-policies" else "CAN_MANAGE"
    entry = {"group_name": "analysts", "permission_level": level}
    inputs = {"object_type": object_type, "object_id": object_id, "access_controls": [entry]}
    return {f.property: f.reason for f in PermissionsProvider.input_failures(inputs)}


@pytest.mark.parametrize("object_id", [".", "..", "../../jobs/5", "a/b", "5?x=1", "5#x",
                                       "%2e%2e", "5%2F6", " 5", "5\n", "é"])
@pytest.mark.parametrize("object_type", ["clusters", "notebooks", "warehouses", "jobs",
                                         "registered-models", "apps", "gizmos"])
def test_ids_that_are_no_plain_path_segment_are_refused(object_type: str, object_id: str) -> None:
    assert "object_id" in failures(object_type, object_id)


@pytest.mark.parametrize(
    ("object_type", "object_id"),
    [
        ("jobs", 5), ("jobs", "5"), ("notebooks", "1710000000000001"),
        ("directories", "1710000000000002"), ("repos", "3000000000000001"),
        ("experiments", "4471"), ("clusters", "0101-120000-abcd01"),
        ("instance-pools", "0101-120000-pool9-pool-abcd0123"),
        ("cluster-policies", "D96308F1BF0003A7"), ("warehouses", "5a1e2b3c4d5e6f70"),
        ("sql/warehouses", "5a1e2b3c4d5e6f70"),
        ("pipelines", "6c2c7a5e-21f4-4d6d-9b5a-52c1e3a5f1b2"),
        ("registered-models", "9d3c1ba4c7ad4b5f"), ("registered-models", "churn_model.v2"),
        ("serving-endpoints", "churn-endpoint_1"), ("apps", "sales-dashboard"),
        ("vector-search-endpoints", "docs_index-1"),
    ],
)
def test_the_ids_each_type_uses_are_accepted(object_type: str, object_id: Any) -> None:
    assert failures(object_type, object_id) == {}


def test_a_numeric_type_takes_digits_only() -> None:
    assert failures("notebooks", "0101-120000-abcd01") == {
        "object_id": "a notebooks id is digits (a numeric id)"
    }


@pytest.mark.parametrize("object_id", [".", ".."])
def test_the_config_check_names_the_dot_segment_id(object_id: str) -> None:
    values = copy.deepcopy(file_values(REPO_ROOT / "Pulumi.local.yaml")[0])
    values["permissions"][0]["object_id"] = object_id
    assert problems(values, {"clientSecret"}) == [
        "workspace:permissions[0].object_id: a clusters id is letters, digits and '-' "
        "(such as 0101-120000-abcd01)"
    ]
