"""The audit's pure parts: managed ids from a stack export, ignore patterns, the table,
connection settings from the stack's config."""

from __future__ import annotations

import io

import pytest
import responses
from responses import matchers

from providers.client import WorkspaceClient
from providers.core.registry import kind_named
from providers.identity.tokens_api import TokensApi
from stacks import adoption, audit
from stacks.audit import (
    AuditError,
    AuditReport,
    WorkspaceObject,
    connection_of,
    is_ignored,
    managed_ids,
    parse_pattern,
    render_table,
    workspace_objects,
)
from tests.unit.client_support import (
    BASE_URL,
    connection,
)


def export_of(*resources: dict) -> dict:
    return {"version": 3, "deployment": {"resources": list(resources)}}


def test_managed_ids_take_the_three_kinds_and_skip_pending_deletes() -> None:
    deployment = export_of(
        {"type": "pulumi:pulumi:Stack", "urn": "s"},
        {"type": "pulumi-python:dynamic/workspace:Job", "id": "42"},
        {"type": "pulumi-python:dynamic/workspace:ServicePrincipal", "id": "4000000000000007"},
        {"type": "pulumi-python:dynamic/workspace:SecretScope", "id": "etl"},
        {"type": "pulumi-python:dynamic/workspace:SecretScope", "id": "old", "delete": True},
        {"type": "pulumi-python:dynamic/workspace:RepoBranch", "id": "7"},
    )
    assert managed_ids(deployment) == {
        ("job", "42"), ("service_principal", "4000000000000007"), ("secret_scope", "etl")}
    assert managed_ids({"deployment": {}}) == set()


def test_the_acl_a_scopes_create_grants_all_users_is_the_scopes() -> None:
    """A key vault scope is created with `initial_manage_principal: users` (a plain one
    where it says so): that MANAGE is made by the scope, so the audit does not report it
    and adopt does not take it over apart; another principal's ACL stays unmanaged."""
    scope = "pulumi-python:dynamic/workspace:SecretScope"
    deployment = export_of(
        {"type": scope, "id": "vault", "outputs": {
            "name": "vault", "keyvault": {"dns_name": "https://kv.vault.azure.net/"}}},
        {"type": scope, "id": "shared", "outputs": {
            "name": "shared", "initial_manage_principal": "users"}},
        {"type": scope, "id": "plain", "outputs": {"name": "plain"}},
    )
    assert {found for found in managed_ids(deployment) if found[0] == "secret_acl"} == {
        ("secret_acl", "vault/users"), ("secret_acl", "shared/users")}
    # Where the ACLs' kind is not among those asked about, none is given.
    assert managed_ids(deployment, of=[kind_named("SecretScope")]) == {
        ("secret_scope", "vault"), ("secret_scope", "shared"), ("secret_scope", "plain")}


def test_a_principals_declared_groups_and_a_shared_securable_are_the_stacks() -> None:
    """A principal's `groups` are its memberships (no GroupMember item declares them); a
    securable an additive Grant grants on is not reported whole as Grants, nor adopted so."""
    deployment = export_of(
        {"type": "pulumi-python:dynamic/workspace:ServicePrincipal", "id": "4000000000000003",
         "outputs": {"groups": ["100000000000003"]}},
        {"type": "pulumi-python:dynamic/workspace:ServicePrincipal", "id": "4000000000000004",
         "outputs": {}},
        {"type": "pulumi-python:dynamic/workspace:Grant", "id": "catalog/Sales/analysts",
         "outputs": {"securable_type": "catalog", "full_name": "Sales"}},
    )
    found = managed_ids(deployment)
    assert {f for f in found if f[0] == "group_member"} == {
        ("group_member", "100000000000003|4000000000000003")}
    assert ("grants", "catalog/sales") in found


def test_patterns_match_id_or_name_within_a_kind() -> None:
    patterns = [parse_pattern("service_principal:iac-*"), parse_pattern("*:17")]
    assert is_ignored(WorkspaceObject("service_principal", "400", "iac-bootstrap"), patterns)
    assert is_ignored(WorkspaceObject("job", "17", "nightly"), patterns)
    assert not is_ignored(WorkspaceObject("secret_scope", "iac-x", "iac-x"), patterns)


@pytest.mark.parametrize("pattern", ["job", "job_run:x", "job:", ":x"])
def test_bad_pattern_names_itself(pattern: str) -> None:
    with pytest.raises(AuditError, match="KIND:PATTERN"):
        parse_pattern(pattern)


def test_table_lists_unmanaged_objects_or_says_nothing() -> None:
    counts = {"job": 1, "service_principal": 0, "secret_scope": 2}
    found = AuditReport("https://ws", ["dev"], counts,
                        [WorkspaceObject("job", "42", "hand-made")], [])
    text = render_table(found)
    assert "42" in text and "hand-made" in text and "1 unmanaged object(s)" in text
    assert "1 job" in text and "2 secret_scope" in text
    clean = AuditReport("https://ws", ["dev"], counts, [],
                        [WorkspaceObject("job", "9", "legacy")])
    assert "nothing unmanaged" in render_table(clean)
    assert "1 ignored by pattern" in render_table(clean)


def values(**overrides: str) -> dict:
    base = {
        "workspace:baseUrl": "http://127.0.0.1:8765",
        "workspace:authUrl": "http://127.0.0.1:8766",
        "workspace:tenantId": "t",
        "workspace:clientId": "c",
        "workspace:resource": "2ff814a6-3304-4ab8-85cb-cd0e6f879c1d",
        "workspace:allowInsecureHttp": "true",
    }
    base.update(overrides)
    return base


def test_connection_takes_the_secret_from_the_stack_config() -> None:
    with pytest.raises(AuditError, match="workspace:clientSecret: required"):
        connection_of(values())
    configured = connection_of(values(**{"workspace:clientSecret": "from-config"}))
    assert configured.secret_values() == ("from-config",)


def test_missing_connection_key_is_named() -> None:
    broken = values(**{"workspace:clientSecret": "s"})
    del broken["workspace:tenantId"]
    with pytest.raises(AuditError, match="workspace:tenantId: required"):
        connection_of(broken)


def test_the_account_id_names_the_rule_sets_or_a_note_says_they_are_not_listed() -> None:
    settings = values(**{"workspace:clientSecret": "s"})
    notes = io.StringIO()
    client = audit.account_client(connection_of(settings), settings, notes)
    assert client.account_id is None
    assert "set workspace:accountId" in notes.getvalue()
    known = {**settings, "workspace:accountId": "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"}
    notes = io.StringIO()
    client = audit.account_client(connection_of(known), known, notes)
    assert client.account_id == "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"
    # The rule sets are listed; the account's own kinds need the account host too.
    assert "rule sets" not in notes.getvalue()
    assert "set workspace:accountHost" in notes.getvalue()
    bad = {**settings, "workspace:accountId": "accounts/x"}
    with pytest.raises(AuditError, match="workspace:accountId must be the account's id"):
        audit.account_client(connection_of(bad), bad)


# The kinds the audit listed before it listed every kind adopt adopts; their list calls are
# mocked below.
FIRST_EIGHT = ("service_principal", "secret_scope", "job", "cluster_policy", "cluster", "group",
               "repo", "ip_access_list")


def test_workspace_objects_follow_every_page(
    mocked: responses.RequestsMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    every = audit.audited_kinds()
    monkeypatch.setattr(audit, "audited_kinds", lambda: {k: every[k] for k in FIRST_EIGHT})
    # Who the stack signs in as (adoption.listed leaves its own objects out): no one listed.
    mocked.get(f"{BASE_URL}/api/2.0/preview/scim/v2/Me", json={"id": "4000000000000001"})
    jobs = f"{BASE_URL}/api/2.0/jobs/list"
    mocked.get(jobs, match=[matchers.query_param_matcher({"limit": "100"})],
               json={"jobs": [{"job_id": 2, "settings": {"name": "b"}}], "has_more": True,
                     "next_page_token": "t2"})
    mocked.get(jobs, match=[matchers.query_param_matcher({"limit": "100", "page_token": "t2"})],
               json={"jobs": [{"job_id": 1, "settings": {"name": "a"}}], "has_more": False})
    scim = f"{BASE_URL}/api/2.0/preview/scim/v2/ServicePrincipals"
    mocked.get(scim, match=[matchers.query_param_matcher({"startIndex": "1", "count": "100"})],
               json={"totalResults": 2, "Resources": [{"id": "7", "displayName": "p7"}]})
    mocked.get(scim, match=[matchers.query_param_matcher({"startIndex": "2", "count": "100"})],
               json={"totalResults": 2, "Resources": [{"id": "8", "applicationId": "app-8"}]})
    mocked.get(f"{BASE_URL}/api/2.0/secrets/scopes/list", json={"scopes": [{"name": "s"}]})
    groups = f"{BASE_URL}/api/2.0/preview/scim/v2/Groups"
    mocked.get(groups, match=[matchers.query_param_matcher({"startIndex": "1", "count": "100"})],
               json={"totalResults": 2, "Resources": [{"id": "5", "displayName": "users"},
                                                      {"id": "6", "displayName": "team"}]})
    mocked.get(f"{BASE_URL}/api/2.0/ip-access-lists",
               json={"ip_access_lists": [{"list_id": "l-1", "label": "office"}]})
    mocked.get(f"{BASE_URL}/api/2.0/clusters/list", json={"clusters": [
        {"cluster_id": "c-1", "cluster_name": "shared", "cluster_source": "UI"},
        {"cluster_id": "c-2", "cluster_name": "job-1-run-1", "cluster_source": "JOB"}]})
    mocked.get(f"{BASE_URL}/api/2.0/policies/clusters/list",
               json={"policies": [{"policy_id": "p-1", "name": "small"}]})
    mocked.get(f"{BASE_URL}/api/2.0/repos",
               json={"repos": [{"id": 3, "path": "/Repos/team/pipelines"}]})

    found = list(workspace_objects(WorkspaceClient(connection())))
    assert sorted(found, key=repr) == sorted([
        WorkspaceObject("job", "2", "b"),
        WorkspaceObject("job", "1", "a"),
        WorkspaceObject("service_principal", "7", "p7"),
        WorkspaceObject("service_principal", "8", "app-8"),
        WorkspaceObject("secret_scope", "s", "s"),
        WorkspaceObject("group", "6", "team"),  # not the workspace's own `users`
        WorkspaceObject("ip_access_list", "l-1", "office"),
        WorkspaceObject("cluster", "c-1", "shared"),  # not the job's cluster
        WorkspaceObject("cluster_policy", "p-1", "small"),
        WorkspaceObject("repo", "3", "/Repos/team/pipelines"),
    ], key=repr)


def test_the_audit_lists_every_kind_adopt_adopts() -> None:
    audited = audit.audited_kinds()
    assert {kind.audit_key for kind in adoption.adoptable_kinds()} <= set(audited)


def test_what_adoption_leaves_out_the_audit_does_not_report(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    """The audit lists a kind adopt adopts as adoption lists it: an object left out there
    (the stack's own principal's) is no more reported than adopted."""
    principal = audit.audited_kinds()["service_principal"]

    def listed(client: object, kind: object) -> list[adoption.Listed]:
        if kind is not principal:
            return []
        return [adoption.Listed("7", "deployer", adoption.OWN_PRINCIPAL),
                adoption.Listed("8", "reporting", None)]

    monkeypatch.setattr(adoption, "listed", listed)
    # The one kind audited but not adopted (a token's value cannot be read back) is listed
    # through its own inventory: none here.
    monkeypatch.setattr(TokensApi, "list", lambda self: [])
    found = list(workspace_objects(WorkspaceClient(connection())))
    assert found == [WorkspaceObject("service_principal", "8", "reporting")]
