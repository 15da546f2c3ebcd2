"""Adoption's per-kind conversion without a workspace: an observed spec (what an import
reads) to the item that declares it, what the item leaves out, its verification, the
problems, which kinds and objects are adopted, and the references."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from providers.core.registry import kind_named, kinds
from stacks import adoption
from stacks.adoption import (
    Candidate,
    adoptable_kinds,
    candidate_of,
    declares_exactly,
    differences,
    item_of,
    listed,
    not_adoptable,
    references_of,
    secret_value_command,
)

APP_ID = "9f0c1e2d-3b4a-4c5d-8e6f-7a8b9c0d1e2f"
# Stands for a WorkspaceClient where the provider's read is replaced.
NO_CLIENT: Any = SimpleNamespace()


# --- which kinds -----------------------------------------------------------------------


def test_every_importable_object_kind_is_adoptable_but_repo_branches_and_volume_files() -> None:
    adoptable = {kind.name for kind in adoptable_kinds()}
    assert adoptable == {
        "ServicePrincipal", "ServicePrincipalSecret", "SecretScope", "Secret", "SecretAcl",
        "Job", "JobPermissions", "Permissions", "CatalogBinding", "ClusterPolicy", "Cluster",
        "InstancePool", "SqlWarehouse",
        "Group", "GroupMember", "Repo", "IpAccessList", "User",
        "Catalog", "Schema", "Volume",
        "StorageCredential", "ExternalLocation", "ServiceCredential", "Grants",
        "GitCredential", "WorkspaceConf", "Directory", "Notebook", "WorkspaceFile",
        "AccessControlRuleSet", "Pipeline", "Query", "Alert", "Dashboard",
        "ServingEndpoint", "App", "RegisteredModel", "Experiment",
        "Metastore", "MetastoreAssignment", "MetastoreDataAccess", "Connection",
        # The typed workspace settings, where one differs from a new workspace's:
        "DefaultNamespaceSetting", "DefaultWarehouseIdSetting", "RestrictWorkspaceAdminsSetting",
        "DisableLegacyAccessSetting", "DisableLegacyDbfsSetting", "SqlResultsDownloadSetting",
        "DashboardEmailSubscriptionsSetting", "LlmProxyPartnerPoweredSetting",
        "DashboardEmbeddingPolicySetting", "DashboardEmbeddingDomainsSetting",
        "AutomaticClusterUpdateSetting", "ComplianceSecurityProfileSetting",
        "EnhancedSecurityMonitoringSetting", "NotificationDestination",
        # The account's, through its connection (workspace:accountHost, accountId), and the
        # entitlements of its groups assigned to the workspace.
        "AccountGroup", "WorkspaceAssignment", "Entitlements",
    }
    refused = not_adoptable()
    assert set(refused) == {"ClusterState", "JobRun", "PipelineUpdate", "RepoBranch", "Grant",
                            "VolumeFile", "Token"}
    assert "action" in refused["JobRun"] and "action" in refused["ClusterState"]
    assert "action" in refused["PipelineUpdate"]
    assert "Repo item" in refused["RepoBranch"]
    # A volume's files are mostly data no stack made: none is listed, each is imported.
    assert "import: <its path>" in refused["VolumeFile"]
    # In the registry's order: a kind after the kinds its references point into.
    order = [kind.name for kind in kinds()]
    assert [k.name for k in adoptable_kinds()] == [n for n in order if n in adoptable]


def test_every_adoptable_kind_is_audited_too() -> None:
    """The audit reports every kind adopt adopts (issue 33, point 5)."""
    from stacks.audit import audited_kinds

    audited = {kind.name for kind in audited_kinds().values()}
    assert {kind.name for kind in adoptable_kinds()} <= audited


# --- items -------------------------------------------------------------------------------


def test_an_ip_access_list_leaves_out_enabled_true_and_verifies() -> None:
    kind = kind_named("IpAccessList")
    observed = {
        "label": "office", "list_type": "ALLOW",
        "ip_addresses": ["10.0.0.0/16", "192.0.2.1"], "enabled": True,
    }
    item = item_of(kind, observed, {"address_count": 2})
    assert item == {"label": "office", "list_type": "ALLOW",
                    "ip_addresses": ["10.0.0.0/16", "192.0.2.1"]}
    assert declares_exactly(kind, item, observed)
    disabled = {**observed, "enabled": False}
    assert item_of(kind, disabled, {})["enabled"] is False


def test_a_catalog_binding_leaves_out_defaults_at_every_depth() -> None:
    kind = kind_named("CatalogBinding")
    observed = {
        "catalog_name": "finance",
        "isolation_mode": "ISOLATED",
        "bindings": [
            {"workspace_id": "1234567890123456", "binding_type": "BINDING_TYPE_READ_WRITE"},
            {"workspace_id": "2345678901234567", "binding_type": "BINDING_TYPE_READ_ONLY"},
        ],
    }
    item = item_of(kind, observed, {})
    assert item == {
        "catalog_name": "finance",
        "bindings": [
            {"workspace_id": "1234567890123456"},
            {"workspace_id": "2345678901234567", "binding_type": "BINDING_TYPE_READ_ONLY"},
        ],
    }
    assert declares_exactly(kind, item, observed)
    opened = {"catalog_name": "sandbox", "isolation_mode": "OPEN", "bindings": []}
    assert item_of(kind, opened, {}) == {"catalog_name": "sandbox", "isolation_mode": "OPEN"}


def test_a_service_principal_takes_its_application_id_and_leaves_groups_to_members() -> None:
    kind = kind_named("ServicePrincipal")
    observed = {"display_name": "etl", "active": True, "entitlements": ["workspace-access"],
                "groups": ["100000000000003"]}
    computed = {"application_id": APP_ID}
    item = item_of(kind, observed, computed)
    assert item == {"application_id": APP_ID, "display_name": "etl",
                    "entitlements": ["workspace-access"]}
    assert declares_exactly(kind, item, observed, computed)
    # Another application id is another principal: the kind's diff replaces it.
    other = {**item, "application_id": "00000000-0000-4000-8000-000000000000"}
    assert differences(kind, other, observed, computed) == ["application_id"]


def test_a_job_leaves_out_the_run_as_the_service_filled_and_keeps_another() -> None:
    kind = kind_named("Job")
    settings = {
        "name": "nightly",
        "tasks": [{"task_key": "main", "existing_cluster_id": "0101-120000-shared01",
                   "spark_python_task": {"python_file": "dbfs:/etl.py"}}],
        "run_as": {"service_principal_name": APP_ID},
    }
    creator = {"creator_user_name": APP_ID, "job_id": 7}
    item = item_of(kind, settings, creator)
    assert "run_as" not in item
    assert declares_exactly(kind, item, settings, creator)
    someone = {**settings, "run_as": {"user_name": "alice@example.com"}}
    assert item_of(kind, someone, creator)["run_as"] == {"user_name": "alice@example.com"}


def test_a_cluster_leaves_out_its_state_and_what_the_service_filled() -> None:
    kind = kind_named("Cluster")
    observed = {
        "cluster_name": "shared", "spark_version": "13.3.x-scala2.12",
        "node_type_id": "Standard_DS3_v2", "driver_node_type_id": "Standard_DS3_v2",
        "num_workers": 2, "enable_elastic_disk": True, "policy_id": "ABC123",
        "state": "RUNNING", "pinned": False,
    }
    item = item_of(kind, observed, {"cluster_id": "0101-1"})
    assert item == {"cluster_name": "shared", "spark_version": "13.3.x-scala2.12",
                    "node_type_id": "Standard_DS3_v2", "num_workers": 2,
                    "policy_id": "ABC123"}
    assert declares_exactly(kind, item, observed)
    assert references_of(kind, item) == {"policy_id": "ABC123"}
    pinned = item_of(kind, {**observed, "pinned": True, "enable_elastic_disk": False}, {})
    assert pinned["pinned"] is True and pinned["enable_elastic_disk"] is False


def test_a_spot_bid_the_service_answers_as_an_integer_is_the_declared_float() -> None:
    """The kind's model holds spot_bid_max_price as a float (-1.0) where the service answers
    -1: one number, so the cluster is adopted, not refused as a setting it cannot express."""
    kind = kind_named("Cluster")
    observed = {
        "cluster_name": "bi-serving", "spark_version": "13.3.x-scala2.12",
        "node_type_id": "Standard_DS3_v2", "num_workers": 1, "state": "TERMINATED",
        "azure_attributes": {"availability": "SPOT_WITH_FALLBACK_AZURE",
                             "first_on_demand": 1, "spot_bid_max_price": -1},
    }
    item = item_of(kind, observed, {"cluster_id": "0101-1"})
    assert item["azure_attributes"]["spot_bid_max_price"] == -1
    assert differences(kind, item, observed, {"cluster_id": "0101-1"}) == []
    other_bid = {**item, "azure_attributes": {**item["azure_attributes"],
                                              "spot_bid_max_price": -1.5}}
    assert differences(kind, other_bid, observed, {}) == ["azure_attributes"]


def test_a_policy_of_a_family_leaves_out_the_familys_definition() -> None:
    kind = kind_named("ClusterPolicy")
    observed = {"name": "small", "policy_family_id": "personal-vm",
                "policy_family_definition_overrides": {"autotermination_minutes": {
                    "type": "fixed", "value": 30}},
                "definition": {"spark_version": {"type": "fixed", "value": "x"}}}
    item = item_of(kind, observed, {"policy_id": "P1"})
    assert "definition" not in item and item["policy_family_id"] == "personal-vm"
    assert declares_exactly(kind, item, observed)


def test_permissions_keep_the_owner_and_reference_nothing_they_cannot() -> None:
    kind = kind_named("JobPermissions")
    observed = {"job_id": 42, "access_controls": [
        {"group_name": "analysts", "permission_level": "CAN_VIEW"}]}
    item = item_of(kind, observed, {})
    assert item == observed
    assert declares_exactly(kind, item, observed)
    assert references_of(kind, item) == {"job_id": "42"}
    permissions = kind_named("Permissions")
    seen = {"object_type": "warehouses", "object_id": "5a1e", "access_controls": [
        {"user_name": "bob@example.com", "permission_level": "CAN_USE"}],
        "owner": {"service_principal_name": APP_ID}}
    assert item_of(permissions, seen, {}) == seen
    assert declares_exactly(permissions, seen, seen)


def test_a_group_keeps_its_empty_entitlements_whose_absence_means_unmanaged() -> None:
    kind = kind_named("Group")
    observed = {"display_name": "data-engineers", "entitlements": []}
    item = item_of(kind, observed, {})
    assert item == observed and declares_exactly(kind, item, observed)
    member = kind_named("GroupMember")
    membership = {"group_id": "100000000000003", "member_id": "200000000000001"}
    assert references_of(member, item_of(member, membership, {})) == {
        "group_id": "100000000000003"}


def test_a_repo_branch_item_drops_the_default_on_delete() -> None:
    kind = kind_named("RepoBranch")
    observed = {"repo_id": "3000000000000001", "branch": "main", "on_delete": "restore"}
    item = item_of(kind, observed, {"previous_branch": None})
    assert item == {"repo_id": "3000000000000001", "branch": "main"}
    assert declares_exactly(kind, item, observed)


# --- verification and problems ---------------------------------------------------------


def test_an_item_that_differs_is_named_field_by_field() -> None:
    kind = kind_named("IpAccessList")
    observed = {"label": "office", "list_type": "ALLOW", "ip_addresses": ["10.0.0.1"],
                "enabled": True}
    assert differences(kind, {**observed, "label": "home"}, observed, {}) == ["label"]
    assert not declares_exactly(kind, {**observed, "enabled": False}, observed)
    # Declaring nothing of a setting the object has is no exact declaration either.
    assert differences(kind_named("Group"), {"display_name": "g"},
                       {"display_name": "g", "external_id": "x"}, {}) == ["external_id"]


def test_a_setting_the_kind_cannot_express_becomes_a_problem(monkeypatch) -> None:
    """An IPv6 address: the service (another version of it) may hold one; the kind takes
    IPv4 only, so no item declares the list."""
    kind = kind_named("IpAccessList")
    observed = {"label": "v6", "list_type": "BLOCK", "ip_addresses": ["2001:db8::1"],
                "enabled": True}
    monkeypatch.setattr(kind.provider, "read_object", lambda self, c, i, r: (observed, {}))
    candidate = candidate_of(NO_CLIENT, kind, "list-1", "v6")
    assert isinstance(candidate, Candidate)
    assert candidate.item is None
    assert candidate.problem is not None
    assert candidate.problem.startswith("a setting the IpAccessList kind cannot express: "
                                        "ip_addresses")
    assert "auditIgnore" in candidate.problem and "ip_access_list:list-1" in candidate.problem


def test_a_secret_is_never_an_item_and_says_how_to_declare_its_value(monkeypatch) -> None:
    kind = kind_named("Secret")
    monkeypatch.setattr(
        kind.provider, "read_object",
        lambda self, c, i, r: ({"scope": "etl", "key": "token"},
                               {"value_digest": "s:d", "last_updated_timestamp": 1}),
    )
    candidate = candidate_of(NO_CLIENT, kind, "etl/token", "etl/token")
    assert candidate is not None and candidate.item is None
    assert candidate.references == {"scope": "etl"}
    assert candidate.problem is not None
    assert "never returns a secret's value" in candidate.problem
    assert ("pulumi config set --secret --path 'workspace:secrets[<i>].string_value' <value>"
            in candidate.problem)
    # With its import id: the up imports it, never writes the value again.
    assert '{"import": "etl/token", "scope": "etl", "key": "token"}' in candidate.problem
    assert secret_value_command(kind, 3) == (
        "pulumi config set --secret --path 'workspace:secrets[3].string_value' <value>")


def test_a_git_credential_is_never_an_item_and_says_where_its_token_goes(monkeypatch) -> None:
    """The hint names the token, not a Secret's string_value or bytes_value."""
    kind = kind_named("GitCredential")
    monkeypatch.setattr(kind.provider, "read_object", lambda self, c, i, r: (
        {"git_provider": "gitHub", "git_username": "deploy-bot"}, {}))
    candidate = candidate_of(NO_CLIENT, kind, "93488329053511", "gitHub")
    assert candidate is not None and candidate.item is None
    assert candidate.problem is not None
    assert ("pulumi config set --secret --path "
            "'workspace:gitCredentials[<i>].personal_access_token' <value>" in candidate.problem)
    assert "personal access token" in candidate.problem
    assert "string_value" not in candidate.problem and "bytes_value" not in candidate.problem
    assert ('{"import": "93488329053511", "git_provider": "gitHub", '
            '"git_username": "deploy-bot"} with that `name`' in candidate.problem)
    # The item's resource name is the credential's own name setting, which it lacks.
    assert "It has no `name` either" in candidate.problem
    assert "give it one in the workspace first" in candidate.problem


def test_a_credential_named_by_its_setting_is_shown_with_its_own_name(monkeypatch) -> None:
    kind = kind_named("StorageCredential")
    monkeypatch.setattr(kind.provider, "read_object", lambda self, c, i, r: ({
        "name": "lake-sp", "azure_service_principal": {
            "directory_id": "d", "application_id": "a"}}, {"credential_id": "1"}))
    candidate = candidate_of(NO_CLIENT, kind, "lake-sp", "lake-sp")
    assert candidate is not None and candidate.problem is not None
    assert ('{"import": "lake-sp", "name": "lake-sp", "azure_service_principal": '
            '{"directory_id": "d", "application_id": "a"}} (its `name`, the object\'s own, '
            'is its resource name too)' in candidate.problem), candidate.problem
    assert "with a `name`" not in candidate.problem and "no `name`" not in candidate.problem


def test_a_principals_oauth_secret_is_adopted_without_its_value(monkeypatch) -> None:
    kind = kind_named("ServicePrincipalSecret")
    observed = {"service_principal_id": "4000000000000007", "lifetime": "63072000s"}
    monkeypatch.setattr(kind.provider, "read_object", lambda self, c, i, r: (
        observed, {"secret_id": "9", "secret": None, "application_id": APP_ID}))
    candidate = candidate_of(NO_CLIENT, kind, "4000000000000007/9", "p: 9")
    assert candidate is not None and candidate.problem is None
    assert candidate.item == observed
    assert candidate.references == {"service_principal_id": "4000000000000007"}


def test_an_object_gone_since_the_listing_is_no_candidate(monkeypatch) -> None:
    kind = kind_named("Group")
    monkeypatch.setattr(kind.provider, "read_object", lambda self, c, i, r: None)
    assert candidate_of(NO_CLIENT, kind, "1", "g") is None


# --- which objects ---------------------------------------------------------------------


class _Groups:
    def list(self) -> list[dict[str, Any]]:
        return [
            {"id": "100000000000002", "displayName": "users", "members": [
                {"value": "200000000000001", "display": "alice"}]},
            {"id": "100000000000003", "displayName": "etl", "members": [
                {"value": "200000000000001", "display": "alice"},
                {"value": "400000000000001", "display": "iac"}]},
        ]


def _client(me: dict[str, Any]) -> Any:
    return SimpleNamespace(groups=_Groups(), me=lambda: me)


@pytest.mark.usefixtures("fake_areas")
def test_memberships_of_users_and_of_the_stacks_own_principal_are_left_out() -> None:
    found = list(listed(_client({"id": "400000000000001"}), kind_named("GroupMember")))
    by_id = {f.import_id: f for f in found}
    assert set(by_id) == {"100000000000003|200000000000001", "100000000000003|400000000000001"}
    assert by_id["100000000000003|200000000000001"].left_out is None
    assert by_id["100000000000003|200000000000001"].display_name == "etl: alice"
    assert by_id["100000000000003|400000000000001"].left_out == adoption.OWN_PRINCIPAL


@pytest.mark.usefixtures("fake_areas")
def test_a_workspace_that_does_not_say_who_signs_in_leaves_nothing_out() -> None:
    from providers.client import WorkspaceError

    def me() -> dict[str, Any]:
        raise WorkspaceError(status=404, code="NOT_FOUND", message="no", method="GET", path="/Me")

    client: Any = SimpleNamespace(groups=_Groups(), me=me)
    assert all(f.left_out is None for f in listed(client, kind_named("GroupMember")))


@pytest.mark.usefixtures("fake_areas")
def test_built_in_policies_are_the_services(monkeypatch) -> None:
    kind = kind_named("ClusterPolicy")
    policies = [{"policy_id": "A", "name": "Personal Compute"},
                {"policy_id": "B", "name": "team-small"}]
    client: Any = SimpleNamespace(cluster_policies=SimpleNamespace(list=lambda: policies),
                             me=lambda: {"id": "1"})
    assert [f.import_id for f in listed(client, kind)] == ["B"]
    monkeypatch.setattr(adoption, "candidate_of",
                        lambda client, kind, i, n: Candidate(kind, i, n, {}, None, {}))
    assert [c.import_id for c in adoption.candidates(client, kind)] == ["B"]


@pytest.mark.parametrize("kind", adoptable_kinds(), ids=lambda kind: kind.name)
def test_each_adoptable_kind_can_list_its_objects(kind) -> None:
    assert adoption.listing_of(kind) is not None
    assert kind.config_key


@pytest.mark.parametrize(
    ("acl", "listed_as_entries"),
    [
        ([], False),
        ([{"group_name": "admins", "all_permissions": [
            {"permission_level": "CAN_MANAGE", "inherited": True}]}], False),
        ([{"user_name": "a@x", "all_permissions": [
            {"permission_level": "IS_OWNER", "inherited": False}]}], False),
        ([{"user_name": "a@x", "all_permissions": [
            {"permission_level": "IS_OWNER", "inherited": False},
            {"permission_level": "CAN_MANAGE", "inherited": False}]}], False),
        ([{"group_name": "g", "all_permissions": [
            {"permission_level": "CAN_VIEW", "inherited": False}]}], True),
    ],
)
def test_the_inventories_list_permissions_as_the_kinds_read_them(acl, listed_as_entries):
    """An object's permissions are listed where the kinds' read finds a direct entry
    besides the owner's (the inventory is in the kind's module, beside that read)."""
    from providers.access.acl import OWNER, direct_entries, with_entries

    answer = {"access_control_list": acl}
    found = [e for e in direct_entries(answer).values() if e["permission_level"] != OWNER]
    assert with_entries(answer) is bool(found) is listed_as_entries


def test_an_object_the_principal_cannot_read_is_a_problem_not_a_crash(monkeypatch) -> None:
    from providers.client import PermissionDenied

    kind = kind_named("Job")

    def refuse(self: Any, client: Any, id_: str, recorded: Any) -> None:
        raise PermissionDenied(status=403, code="PERMISSION_DENIED", message="no read",
                               method="GET", path="/api/2.2/jobs/get")

    monkeypatch.setattr(kind.provider, "read_object", refuse)
    candidate = candidate_of(NO_CLIENT, kind, "7", "nightly")
    assert candidate is not None and candidate.item is None
    assert candidate.problem is not None
    assert candidate.problem.startswith("could not be read (") and "job:7" in candidate.problem
