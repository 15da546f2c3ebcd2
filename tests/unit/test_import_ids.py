"""Import ids judged by each kind's rule before any request (issue 41, L20): a `.` or `..`
segment (percent-encoded too) would be removed by the HTTP stack as a dot segment and send
the request to another endpoint (`clusters/..` -> `/api/2.0/permissions`), so every kind
refuses one; ids that are one URL path segment refuse `/`, `?`, `#`, `%`; numeric ids are
numbers; workspace paths are paths. Refused by the config check, the provider host's import
read and adopt, each before any HTTP call."""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

import pytest
import responses

from providers.core import import_ids
from providers.core.host import ImportRefused, WorkspaceProviderHost
from providers.core.registry import kind_named
from providers.workspace.workspace_objects import path_id_problem
from stacks.adoption import candidate_of
from stacks.config import file_values
from stacks.config_rules import problems
from stacks.pulumi_cli import REPO_ROOT

PERMISSIONS_URN = ("urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:Permissions"
                   "::cluster-access")
GROUP_URN = "urn:pulumi:dev::workspace::pulumi-python:dynamic/workspace:Group::admins"
LOCAL = "http://127.0.0.1:8765"
CONNECTION = {"base_url": LOCAL, "auth_url": LOCAL, "tenant_id": "t", "client_id": "c",
              "client_secret": "s3cret", "resource": "2ff814a6-3304-4ab8-85cb-cd0e6f879c1d",
              "allow_insecure_http": True}


@pytest.mark.parametrize("id_", [
    "..", ".", "clusters/..", "clusters/.", "a/../b", "%2e%2e", "clusters/%2E%2e",
    "clusters/%252e%252e", "a\\..\\b", "x\ny", "x\x00",
])
def test_dot_segments_and_control_characters_are_refused_by_every_rule(id_: str) -> None:
    for rule in (import_ids.no_dot_segments, import_ids.one_segment, import_ids.numeric,
                 path_id_problem):
        assert rule(id_) is not None, (rule, id_)


@pytest.mark.parametrize("id_", ["a/b", "a?b", "a#b", "a%20b", "a\\b"])
def test_one_segment_refuses_what_changes_the_url_path(id_: str) -> None:
    assert import_ids.one_segment(id_) == (
        "must not hold '/', '?', '#', '%' or '\\' (it is one segment of the URL path)")


@pytest.mark.parametrize(("kind", "id_"), [
    ("Cluster", "0101-120000-abcd01"), ("Group", "400000000000001"), ("Job", "42"),
    ("Repo", "1234"), ("Notebook", "/Shared/etl/daily"), ("Directory", "/Workspace/Shared"),
    ("Permissions", "clusters/0101-120000-abcd01"), ("Permissions", "authorization/tokens"),
    ("Permissions", "notebook_path:/Workspace/Shared/etl"), ("Secret", "etl/token"),
    ("GroupMember", "400000000000001|400000000000002"), ("Grants", "catalog/main"),
    ("Schema", "main.sales"), ("SecretScope", "etl-secrets"),
    ("AccessControlRuleSet", "accounts/acc/servicePrincipals/app/ruleSets/default"),
    ("WorkspaceConf", "enableIpAccessLists,maxTokenLifetimeDays"),
])
def test_the_ids_kinds_use_are_accepted(kind: str, id_: str) -> None:
    assert kind_named(kind).import_id_problem(id_) is None


@pytest.mark.parametrize(("kind", "id_", "says"), [
    ("Permissions", "clusters/..", "'.' or '..' segment"),
    ("Permissions", "clusters/a%2Fb", "a clusters id is letters, digits and '-'"),
    ("Permissions", "notebook_path:/Shared/../x", "'.' or '..' segment"),
    ("Job", "..", "must be a numeric id"),
    ("Cluster", "0101/../x", "'.' or '..' segment"),
    ("Group", "1?x=2", "one segment of the URL path"),
    ("Notebook", "Shared/etl", "must be an absolute workspace path"),
    ("Secret", "etl/..", "'.' or '..' segment"),
])
def test_each_kind_refuses_ids_outside_its_rule(kind: str, id_: str, says: str) -> None:
    problem = kind_named(kind).import_id_problem(id_)
    assert problem is not None and problem.startswith(f"import id {id_!r} (")
    assert says in problem


def test_the_config_check_names_the_import_id() -> None:
    values = copy.deepcopy(file_values(REPO_ROOT / "Pulumi.local.yaml")[0])
    values["permissions"][0]["import"] = "clusters/.."
    assert problems(values, {"clientSecret"}) == [
        "workspace:permissions[0].import: import id 'clusters/..' (<object type>/<object id>, "
        "or <path field>:<workspace path>) must not hold a '.' or '..' segment (it would name "
        "another endpoint of the API)"
    ]


@pytest.mark.parametrize(("urn", "id_"), [(PERMISSIONS_URN, "clusters/.."),
                                          (PERMISSIONS_URN, "clusters/%2e%2e"),
                                          (GROUP_URN, "..")])
def test_the_hosts_import_read_refuses_before_any_http_call(urn: str, id_: str) -> None:
    host = WorkspaceProviderHost()
    host.connection = dict(CONNECTION)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        with pytest.raises(ImportRefused, match=r"must not hold a '\.' or '\.\.' segment"):
            host._read_for_import(urn, id_)
        assert len(mock.calls) == 0
        # A well-formed id goes on to the workspace (here nothing answers): the refusal
        # above was the rule's, not the network's.
        with pytest.raises(Exception):  # noqa: B017, PT011 - whatever the transport raises
            host._read_for_import(PERMISSIONS_URN, "clusters/0101-120000-abcd01")
        assert len(mock.calls) >= 1


def test_adopt_refuses_a_listed_id_outside_the_rule_without_reading_it(monkeypatch) -> None:
    kind = kind_named("Group")

    def never(*args: Any) -> None:
        raise AssertionError("read an object whose id breaks the kind's rule")

    monkeypatch.setattr(kind.provider, "read_object", never)
    candidate = candidate_of(SimpleNamespace(), kind, "..", "dots")  # type: ignore[arg-type]
    assert candidate is not None and candidate.item is None
    assert (candidate.problem or "").startswith("import id '..' (the group's SCIM id) must not")
