"""Adoption against the emulator, in both wire forms: for every adoptable kind, an object
made through the API (as a team's script or the UI makes it) becomes a candidate whose item
verifies, and declaring that item shows no change, as the engine judges it: the kind's diff
of the item against what an import reads, with nothing declared before (the import) and
with the item declared before (every preview after). A secret yields the value problem; a
setting the kind cannot express yields a problem naming it; the service's own objects and
the stack's own principal are left out."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.client import WorkspaceClient
from providers.compute.cluster_policies_api import ClusterPoliciesApi
from providers.compute.clusters_api import ClustersApi
from providers.compute.instance_pools_api import InstancePoolsApi
from providers.core.kind import Kind
from providers.core.lifecycle import CONNECTION_KEY
from providers.core.registry import kind_named
from providers.identity.access_control_api import AccessControlApi
from providers.identity.groups_api import GroupsApi
from providers.identity.service_principal_secrets_api import ServicePrincipalSecretsApi
from providers.identity.service_principals_api import SCIM_SCHEMA, ServicePrincipalsApi
from providers.jobs.job_permissions_api import job_permissions_api
from providers.jobs.jobs_api import JobsApi
from providers.ml.experiments_api import ExperimentsApi
from providers.ml.registered_models_api import RegisteredModelsApi
from providers.pipelines.pipelines_api import PipelinesApi
from providers.secrets.secret_scopes_api import KeyVault, SecretScopesApi
from providers.secrets.secrets_api import SecretsApi
from providers.sql.sql_warehouses_api import SqlWarehousesApi
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.connections_api import ConnectionsApi
from providers.unity_catalog.grants_api import GrantsApi
from providers.unity_catalog.metastores_api import MetastoresApi
from providers.unity_catalog.schemas_api import SchemasApi
from providers.unity_catalog.storage_credentials_api import StorageCredentialsApi
from providers.unity_catalog.volumes_api import VolumesApi
from providers.workspace.ip_access_lists_api import IpAccessListsApi
from providers.workspace.repos_api import ReposApi
from providers.workspace.workspace_objects import source_roots
from providers.workspace.workspace_objects_api import WorkspaceObjectsApi
from stacks.adoption import (
    Candidate,
    adoptable_kinds,
    candidate_of,
    candidates,
    declares_exactly,
    listed,
)
from tests.providers.uc_support import catalog  # noqa: F401
from workspace_emulator.testing import EmulatorInfo, register_application

SPARK = "15.4.x-scala2.12"
NODE = "Standard_DS3_v2"
ENGINEERS = "100000000000003"  # data-engineers, in the initial data
ADMINS = "100000000000001"
REPO_URL = "https://github.com/example-org/data-pipelines.git"
HOME, OTHER = 1234567890123456, 2345678901234567
CATALOG = "sandbox"  # OPEN in the initial data, without bindings


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def adopted(
    client: WorkspaceClient, connection: dict[str, Any], kind_name: str, import_id: str
) -> Candidate:
    """The object's candidate, asserted to verify and to show no change when declared."""
    kind = kind_named(kind_name)
    assert import_id in {found.import_id for found in listed(client, kind)}, (
        f"{kind_name} {import_id} is not listed"
    )
    candidate = candidate_of(client, kind, import_id, import_id)
    assert candidate is not None
    assert candidate.problem is None, candidate.problem
    assert candidate.item is not None
    # `name` is the resource name, but where the kind has an input of that name (a scope's,
    # a policy's), which the config item's `name` then is.
    assert "import" not in candidate.item
    assert "name" not in candidate.item or "name" in kind.model.model_fields
    assert_no_change(kind, connection, import_id, candidate.item)
    return candidate


def assert_no_change(
    kind: Kind, connection: dict[str, Any], import_id: str, item: dict[str, Any]
) -> None:
    provider = kind.provider()
    read = provider.read(import_id, {CONNECTION_KEY: connection})  # what an import records
    assert read.id == import_id and read.outs is not None
    news = {**item, CONNECTION_KEY: connection}
    assert provider.check({}, news).failures == []
    for old_inputs in ({}, item):  # the import's preview, then every preview after it
        diff = provider.diff(import_id, read.outs, news, old_inputs=old_inputs)
        assert not diff.changes, (kind.name, diff.changed_keys, item, read.outs)
    observed = {k: v for k, v in read.outs.items() if k != CONNECTION_KEY}
    computed = {k: observed.pop(k) for k in list(observed) if k in kind.computed_keys}
    assert declares_exactly(kind, item, observed, computed)


# --- principals, groups, members ------------------------------------------------------


@pytest.fixture
def principal(client: WorkspaceClient, emulator: EmulatorInfo) -> Iterator[dict[str, Any]]:
    application = register_application(emulator, unique("adopted-app"))
    made = ServicePrincipalsApi(client).create({
        "schemas": [SCIM_SCHEMA],
        "applicationId": application["client_id"],
        "displayName": unique("etl"),
        "entitlements": [{"value": "allow-cluster-create"}],
        "groups": [{"value": ENGINEERS}],
    })
    yield made
    ServicePrincipalsApi(client).delete(str(made["id"]), made["applicationId"])


def test_a_service_principal_its_secret_and_its_membership(client, connection, principal):
    found = adopted(client, connection, "ServicePrincipal", str(principal["id"]))
    assert found.item == {
        "application_id": principal["applicationId"],
        "display_name": principal["displayName"],
        "entitlements": ["allow-cluster-create"],
    }  # active (the default) and groups (GroupMember items) left out
    member = adopted(client, connection, "GroupMember", f"{ENGINEERS}|{principal['id']}")
    assert member.item == {"group_id": ENGINEERS, "member_id": str(principal["id"])}
    assert member.references == {"group_id": ENGINEERS}

    secret = ServicePrincipalSecretsApi(client).create(str(principal["id"]))
    oauth = adopted(
        client, connection, "ServicePrincipalSecret", f"{principal['id']}/{secret['id']}"
    )
    assert oauth.item is not None
    assert oauth.item["service_principal_id"] == str(principal["id"])
    assert oauth.references == {"service_principal_id": str(principal["id"])}


def test_a_group_with_entitlements_and_a_nested_group(client, connection):
    outer = GroupsApi(client).create({
        "displayName": unique("platform"), "entitlements": [{"value": "workspace-access"}],
    })
    inner = GroupsApi(client).create({"displayName": unique("platform-oncall")})
    try:
        GroupsApi(client).add_member(str(outer["id"]), str(inner["id"]))
        found = adopted(client, connection, "Group", str(outer["id"]))
        assert found.item == {
            "display_name": outer["displayName"], "entitlements": ["workspace-access"],
        }
        nested = adopted(client, connection, "GroupMember", f"{outer['id']}|{inner['id']}")
        assert nested.references == {"group_id": str(outer["id"])}
    finally:
        GroupsApi(client).delete(str(outer["id"]))
        GroupsApi(client).delete(str(inner["id"]))


def test_the_services_own_and_the_stacks_own_principal_are_left_out(client):
    me = str(client.me()["id"])
    principals = {f.import_id: f.left_out for f in listed(client, kind_named("ServicePrincipal"))}
    assert "signs in as" in (principals[me] or "")
    assert me not in {c.import_id for c in candidates(client, kind_named("ServicePrincipal"))}
    members = {f.import_id: f.left_out for f in listed(client, kind_named("GroupMember"))}
    assert "signs in as" in (members[f"{ADMINS}|{me}"] or "")
    groups = {f.display_name for f in listed(client, kind_named("Group"))}
    assert not groups & {"admins", "users"}


def test_the_managing_acl_a_scope_gives_its_creator_is_left_out(client):
    """A scope made without an initial principal gives its creator MANAGE, named by its
    application id (not its SCIM id): the stack's own right, never adopted."""
    name = unique("created")
    SecretScopesApi(client).create(name)
    try:
        creator = str(client.me()["applicationId"])
        acls = {f.import_id: f.left_out for f in listed(client, kind_named("SecretAcl"))}
        assert "signs in as" in (acls[f"{name}/{creator}"] or "")
        adoptable = {c.import_id for c in candidates(client, kind_named("SecretAcl"))}
        assert f"{name}/{creator}" not in adoptable
    finally:
        SecretScopesApi(client).delete(name)


# --- scopes, secrets, ACLs -------------------------------------------------------------


@pytest.fixture
def scope(client: WorkspaceClient) -> Iterator[str]:
    name = unique("adopt")
    SecretScopesApi(client).create(name, initial_manage_principal="users")
    yield name
    SecretScopesApi(client).delete(name)


def test_a_scope_and_its_acls(client, connection, scope):
    found = adopted(client, connection, "SecretScope", scope)
    assert found.item == {"name": scope}  # the initial principal is its `users` ACL
    SecretsApi(client).put_acl(scope, "data-engineers", "READ")
    acl = adopted(client, connection, "SecretAcl", f"{scope}/data-engineers")
    assert acl.item == {"scope": scope, "principal": "data-engineers", "permission": "READ"}
    assert acl.references == {"scope": scope}
    everyone = adopted(client, connection, "SecretAcl", f"{scope}/users")
    assert everyone.item == {"scope": scope, "principal": "users", "permission": "MANAGE"}


def test_a_secret_yields_the_value_problem(client, scope):
    SecretsApi(client).put(scope, "api-token", string_value="s3cr3t-value")
    kind = kind_named("Secret")
    [candidate] = [c for c in candidates(client, kind) if c.import_id == f"{scope}/api-token"]
    assert candidate.item is None
    assert candidate.problem is not None
    assert "pulumi config set --secret --path 'workspace:secrets[<i>].string_value'" in (
        candidate.problem
    )
    assert "s3cr3t-value" not in candidate.problem
    assert candidate.references == {"scope": scope}


def test_a_setting_the_kind_cannot_express_yields_a_problem(client):
    """A key vault the service took with a resource id the kind refuses (not a subscription
    GUID): no item could declare it, so adoption names the field instead."""
    name = unique("vault")
    SecretScopesApi(client).create(name, keyvault=KeyVault(
        "/subscriptions/not-a-guid/resourceGroups/dp/providers/Microsoft.KeyVault/vaults/kv1",
        "https://kv1.vault.azure.net/",
    ))
    try:
        candidate = candidate_of(client, kind_named("SecretScope"), name, name)
        assert candidate is not None and candidate.item is None
        assert candidate.problem is not None
        assert candidate.problem.startswith(
            "a setting the SecretScope kind cannot express: keyvault.resource_id"
        )
    finally:
        SecretScopesApi(client).delete(name)


# --- jobs and permissions ---------------------------------------------------------------

JOB: dict[str, Any] = {
    "tags": {"team": "data"},
    "max_concurrent_runs": 2,
    "timeout_seconds": 7200,
    "email_notifications": {"on_failure": ["alice@example.com"]},
    "schedule": {"quartz_cron_expression": "0 0 2 * * ?", "timezone_id": "UTC",
                 "pause_status": "PAUSED"},
    "parameters": [{"name": "date", "default": "today"}],
    "queue": {"enabled": True},
    "job_clusters": [{"job_cluster_key": "shared", "new_cluster": {
        "spark_version": SPARK, "node_type_id": NODE, "num_workers": 2,
        "spark_conf": {"spark.speculation": "true"},
    }}],
    "tasks": [
        {"task_key": "ingest", "job_cluster_key": "shared", "max_retries": 2,
         "spark_python_task": {"python_file": "dbfs:/etl/ingest.py",
                               "parameters": ["--date", "{{job.parameters.date}}"]},
         "libraries": [{"pypi": {"package": "requests==2.31.0"}}]},
        {"task_key": "transform", "depends_on": [{"task_key": "ingest"}],
         "job_cluster_key": "shared", "run_if": "ALL_SUCCESS",
         "notebook_task": {"notebook_path": "/Shared/transform"}},
    ],
}


@pytest.fixture
def job(client: WorkspaceClient) -> Iterator[int]:
    job_id = JobsApi(client).create({"name": unique("nightly"), **JOB})
    yield job_id
    JobsApi(client).delete(job_id)


def test_a_multi_task_job_and_its_permissions(client, connection, job):
    found = adopted(client, connection, "Job", str(job))
    item = found.item
    assert item is not None
    assert "queue" not in item  # the service's default
    assert item["max_concurrent_runs"] == 2 and item["tags"] == {"team": "data"}
    tasks = {task["task_key"]: task for task in item["tasks"]}
    assert set(tasks) == {"ingest", "transform"}
    assert "run_if" not in tasks["transform"]  # ALL_SUCCESS, the default
    assert tasks["ingest"]["max_retries"] == 2

    job_permissions_api(client).update(job, [
        {"group_name": "analysts", "permission_level": "CAN_VIEW"},
        {"user_name": "bob@example.com", "permission_level": "CAN_MANAGE_RUN"},
    ])
    permissions = adopted(client, connection, "JobPermissions", str(job))
    assert permissions.item == {"job_id": job, "access_controls": [
        {"group_name": "analysts", "permission_level": "CAN_VIEW"},
        {"user_name": "bob@example.com", "permission_level": "CAN_MANAGE_RUN"},
    ]}  # not the owner, not the admins' inherited CAN_MANAGE
    assert permissions.references == {"job_id": str(job)}


def test_a_job_without_entries_but_its_owners_has_no_permissions_to_adopt(client, job):
    listed_ids = {f.import_id for f in listed(client, kind_named("JobPermissions"))}
    assert str(job) not in listed_ids


# --- pipelines ----------------------------------------------------------------------------


def test_a_pipeline_is_adopted_as_read(client, connection):
    pipeline_id = PipelinesApi(client).create({
        "name": unique("sales"),
        "target": "sales",
        "channel": "CURRENT",  # the service's default
        "libraries": [{"notebook": {"path": "/Shared/etl/ingest"}}],
        "clusters": [{"label": "default", "num_workers": 2}],
        "configuration": {"source": "/Volumes/main/raw/sales"},
        "notifications": [{"alerts": ["on-update-failure"],
                           "email_recipients": ["ops@example.com"]}],
    })
    try:
        item = adopted(client, connection, "Pipeline", pipeline_id).item
        assert item is not None
        assert "channel" not in item and "storage" not in item  # the service's own
        assert item["clusters"] == [{"num_workers": 2}]  # label default: the default
        assert item["configuration"] == {"source": "/Volumes/main/raw/sales"}
        assert item["libraries"] == [{"notebook": {"path": "/Shared/etl/ingest"}}]
    finally:
        PipelinesApi(client).delete(pipeline_id)


# --- compute ------------------------------------------------------------------------------


@pytest.fixture
def policy(client: WorkspaceClient) -> Iterator[str]:
    policy_id = ClusterPoliciesApi(client).create({
        "name": unique("small"),
        "definition": json.dumps({"num_workers": {"type": "range", "maxValue": 4}}),
        "description": "small clusters",
        "max_clusters_per_user": 3,
    })
    yield policy_id
    ClusterPoliciesApi(client).delete(policy_id)


def test_cluster_policies_own_and_of_a_family(client, connection, policy):
    found = adopted(client, connection, "ClusterPolicy", policy)
    assert found.item is not None
    assert found.item["definition"] == {"num_workers": {"type": "range", "maxValue": 4}}
    assert found.item["max_clusters_per_user"] == 3
    family = ClusterPoliciesApi(client).create({
        "name": unique("personal"), "policy_family_id": "personal-vm",
        "policy_family_definition_overrides": json.dumps(
            {"autotermination_minutes": {"type": "fixed", "value": 30}}),
    })
    try:
        inherited = adopted(client, connection, "ClusterPolicy", family)
        assert inherited.item is not None and "definition" not in inherited.item
    finally:
        ClusterPoliciesApi(client).delete(family)


def test_a_cluster_under_a_policy_and_its_permissions(client, connection, policy):
    cluster_id = ClustersApi(client).create({
        "cluster_name": unique("shared"), "spark_version": SPARK, "node_type_id": NODE,
        "num_workers": 2, "autotermination_minutes": 30, "policy_id": policy,
        "spark_conf": {"spark.sql.shuffle.partitions": "64"},
        "custom_tags": {"team": "data"},
    })
    try:
        found = adopted(client, connection, "Cluster", cluster_id)
        item = found.item
        assert item is not None
        assert "state" not in item and "enable_elastic_disk" not in item
        assert item["custom_tags"] == {"team": "data"}
        assert found.references == {"policy_id": policy}

        client.permissions("clusters").update(cluster_id, [
            {"group_name": "data-engineers", "permission_level": "CAN_RESTART"},
        ])
        entries = adopted(client, connection, "Permissions", f"clusters/{cluster_id}")
        assert entries.item is not None
        assert entries.item["object_type"] == "clusters"
        assert {"group_name": "data-engineers", "permission_level": "CAN_RESTART"} in (
            entries.item["access_controls"]
        )
    finally:
        ClustersApi(client).permanent_delete(cluster_id)


def permissions_listed(client: WorkspaceClient) -> set[str]:
    return {found.import_id for found in listed(client, kind_named("Permissions"))}


def test_a_pools_and_a_warehouses_access_lists_are_adopted_beyond_the_creators_own(
    client, connection
):
    """A list holding only what the service puts there (the creator's CAN_MANAGE on a
    pool; the owner of a warehouse) is nobody's to declare, and not listed; an entry
    someone added makes it a Permissions item of every direct entry (the owner declared
    where the type has one)."""
    me = client.me()["applicationId"]
    pool = InstancePoolsApi(client).create({"instance_pool_name": unique("pool"),
                                            "node_type_id": NODE})
    warehouse = SqlWarehousesApi(client).create({"name": unique("bi"),
                                                 "cluster_size": "2X-Small"})
    try:
        client.permissions("instance-pools").update(pool, [
            {"service_principal_name": me, "permission_level": "CAN_MANAGE"}])
        client.permissions("warehouses").update(warehouse, [
            {"service_principal_name": me, "permission_level": "IS_OWNER"}])
        assert {f"instance-pools/{pool}", f"warehouses/{warehouse}"}.isdisjoint(
            permissions_listed(client))

        client.permissions("instance-pools").update(pool, [
            {"group_name": "data-engineers", "permission_level": "CAN_ATTACH_TO"}])
        client.permissions("warehouses").update(warehouse, [
            {"group_name": "analysts", "permission_level": "CAN_USE"}])
        on_pool = adopted(client, connection, "Permissions", f"instance-pools/{pool}")
        assert on_pool.item == {"object_type": "instance-pools", "object_id": pool,
                                "access_controls": [
                                    {"group_name": "data-engineers",
                                     "permission_level": "CAN_ATTACH_TO"},
                                    {"service_principal_name": me,
                                     "permission_level": "CAN_MANAGE"}]}
        on_warehouse = adopted(client, connection, "Permissions", f"warehouses/{warehouse}")
        assert on_warehouse.item == {"object_type": "warehouses", "object_id": warehouse,
                                     "access_controls": [
                                         {"group_name": "analysts",
                                          "permission_level": "CAN_USE"}],
                                     "owner": {"service_principal_name": me}}
    finally:
        InstancePoolsApi(client).delete(pool)
        SqlWarehousesApi(client).delete(warehouse)


def test_a_pipelines_access_list_is_adopted_beyond_its_owner(client, connection):
    """A pipeline's list holding only its creator, its owner, is not listed; a group's entry
    makes it a Permissions item, the owner declared (pipelines have one)."""
    me = client.me()["applicationId"]
    pipeline = PipelinesApi(client).create({"name": unique("orders"), "development": True})
    try:
        assert f"pipelines/{pipeline}" not in permissions_listed(client)
        client.permissions("pipelines").update(pipeline, [
            {"group_name": "analysts", "permission_level": "CAN_VIEW"}])
        on_pipeline = adopted(client, connection, "Permissions", f"pipelines/{pipeline}")
        assert on_pipeline.item == {"object_type": "pipelines", "object_id": pipeline,
                                    "access_controls": [
                                        {"group_name": "analysts",
                                         "permission_level": "CAN_VIEW"}],
                                    "owner": {"service_principal_name": me}}
    finally:
        PipelinesApi(client).delete(pipeline)


def test_access_lists_of_a_notebook_a_folder_and_a_file_are_adopted_by_path(
    client, connection
):
    """Addressed by path (`notebook_path`, ...), as the kind prefers: an object uploaded
    anew at that path keeps the item. The signed-in principal's CAN_MANAGE alone (the
    service's gift to an object's maker) and `users` managing /Shared list nothing."""
    me = client.me()["applicationId"]
    objects = WorkspaceObjectsApi(client)
    folder = f"/Shared/{unique('acl')}"
    objects.mkdirs(folder)
    objects.import_(f"{folder}/report", b"# Databricks notebook source\nprint(1)\n",
                    format="SOURCE", language="PYTHON")
    objects.import_(f"{folder}/rules.yml", b"retries: 2\n", format="RAW")
    ids = {entry["path"]: str(entry["object_id"]) for entry in objects.list(folder)}
    folder_id = str(objects.status(folder)["object_id"])
    shared_id = str(objects.status("/Shared")["object_id"])
    try:
        client.permissions("notebooks").update(ids[f"{folder}/report"], [
            {"service_principal_name": me, "permission_level": "CAN_MANAGE"}])
        client.permissions("directories").update(shared_id, [
            {"group_name": "users", "permission_level": "CAN_MANAGE"}])
        found = permissions_listed(client)
        assert f"notebook_path:{folder}/report" not in found
        assert "directory_path:/Shared" not in found

        client.permissions("notebooks").update(ids[f"{folder}/report"], [
            {"group_name": "analysts", "permission_level": "CAN_RUN"}])
        client.permissions("directories").update(folder_id, [
            {"group_name": "data-engineers", "permission_level": "CAN_EDIT"}])
        client.permissions("files").update(ids[f"{folder}/rules.yml"], [
            {"group_name": "analysts", "permission_level": "CAN_READ"}])
        notebook = adopted(client, connection, "Permissions",
                           f"notebook_path:{folder}/report")
        assert notebook.item == {"notebook_path": f"{folder}/report", "access_controls": [
            {"group_name": "analysts", "permission_level": "CAN_RUN"},
            {"service_principal_name": me, "permission_level": "CAN_MANAGE"}]}
        directory = adopted(client, connection, "Permissions", f"directory_path:{folder}")
        assert directory.item == {"directory_path": folder, "access_controls": [
            {"group_name": "data-engineers", "permission_level": "CAN_EDIT"}]}
        file = adopted(client, connection, "Permissions",
                       f"workspace_file_path:{folder}/rules.yml")
        assert file.item == {"workspace_file_path": f"{folder}/rules.yml",
                             "access_controls": [
                                 {"group_name": "analysts", "permission_level": "CAN_READ"}]}
    finally:
        client.permissions("directories").set(shared_id, [])
        objects.delete(folder, recursive=True)


def test_an_ip_access_list(client, connection):
    made = IpAccessListsApi(client).create(unique("known-bad"), "BLOCK", ["192.0.2.0/28"])
    try:
        found = adopted(client, connection, "IpAccessList", str(made["list_id"]))
        assert found.item == {"label": made["label"], "list_type": "BLOCK",
                              "ip_addresses": ["192.0.2.0/28"]}  # enabled: the default
    finally:
        IpAccessListsApi(client).delete(str(made["list_id"]))


# --- repos and catalogs ---------------------------------------------------------------


def test_a_repo_on_a_branch_and_its_branch_alone(client, connection):
    path = f"/Repos/adopt/{uuid.uuid4().hex[:10]}"
    repo = ReposApi(client).create(REPO_URL, "gitHub", path)
    try:
        ReposApi(client).update(repo["id"], branch="develop")
        found = adopted(client, connection, "Repo", str(repo["id"]))
        assert found.item == {"url": REPO_URL, "provider": "gitHub", "path": path,
                              "branch": "develop"}
        # RepoBranch is not adopted beside it, but can be, where the repo is not.
        branch = candidate_of(client, kind_named("RepoBranch"), str(repo["id"]), path)
        assert branch is not None and branch.problem is None
        assert branch.item == {"repo_id": str(repo["id"]), "branch": "develop"}
        assert_no_change(kind_named("RepoBranch"), connection, str(repo["id"]), branch.item)
    finally:
        ReposApi(client).delete(repo["id"])


@pytest.fixture
def isolated(client: WorkspaceClient) -> Iterator[str]:
    CatalogsApi(client).update_isolation(CATALOG, "ISOLATED")
    CatalogsApi(client).bind(CATALOG, [HOME])
    CatalogsApi(client).bind(CATALOG, [OTHER], "BINDING_TYPE_READ_ONLY")
    yield CATALOG
    CatalogsApi(client).update_isolation(CATALOG, "OPEN")
    for binding in CatalogsApi(client).get_bindings(CATALOG):
        CatalogsApi(client).unbind(CATALOG, [binding["workspace_id"]], binding["binding_type"])


def test_a_catalogs_isolation_and_bindings(client, connection, isolated):
    found = adopted(client, connection, "CatalogBinding", isolated)
    assert found.item == {"catalog_name": CATALOG, "bindings": [
        {"workspace_id": str(HOME)},
        {"workspace_id": str(OTHER), "binding_type": "BINDING_TYPE_READ_ONLY"},
    ]}  # ISOLATED and READ_WRITE: the kind's defaults


def test_open_catalogs_without_bindings_are_not_listed(client):
    names = {f.import_id for f in listed(client, kind_named("CatalogBinding"))}
    assert "finance" not in names and "main" not in names


# --- storage credentials -------------------------------------------------------------


def test_a_storage_credential_of_a_managed_identity_is_adopted_as_read(client, connection):
    """Only a service principal's credential holds a secret: one of a managed identity is
    an item like any other (it was refused as a secret, every storage credential was)."""
    name = unique("Identity")
    StorageCredentialsApi(client).create({"name": name, "azure_managed_identity": {
        "access_connector_id": "/subscriptions/0/resourceGroups/rg/providers/"
                               "Microsoft.Databricks/accessConnectors/adopted"}})
    found = adopted(client, connection, "StorageCredential", name)
    assert found.item is not None and found.item["name"] == name
    assert "azure_service_principal" not in found.item


def test_a_storage_credential_of_a_service_principal_yields_the_secret_problem(client):
    name = unique("Principal")
    StorageCredentialsApi(client).create({"name": name, "azure_service_principal": {
        "directory_id": "00000000-0000-0000-0000-000000000001",
        "application_id": "00000000-0000-0000-0000-000000000002",
        "client_secret": "cr3d-s3cret"}})
    kind = kind_named("StorageCredential")
    [candidate] = [c for c in candidates(client, kind) if c.import_id == name]
    assert candidate.item is None and candidate.problem is not None
    assert ("--path 'workspace:storageCredentials[<i>].azure_service_principal.client_secret'"
            in candidate.problem), candidate.problem
    assert "client secret of the credential's service principal" in candidate.problem
    assert "secret_scope" not in candidate.problem and "cr3d-s3cret" not in candidate.problem


# --- metastores and connections ---------------------------------------------------------


def test_the_metastore_and_this_workspaces_assignment_are_adopted_as_read(client, connection):
    initial = "9ce88c25-f4f8-47ae-80f8-5d90271e193b"
    found = adopted(client, connection, "Metastore", initial)
    assert found.item is not None and found.item["region"] == "westeurope"
    assignment = adopted(client, connection, "MetastoreAssignment", str(HOME))
    assert assignment.item is not None
    # The default catalog is the kind's default (hive_metastore): left out.
    assert assignment.item == {"workspace_id": str(HOME), "metastore_id": initial}


def test_a_metastores_root_credential_is_adopted_as_read(client, connection):
    credential = StorageCredentialsApi(client).create({
        "name": unique("root"), "azure_managed_identity": {
            "access_connector_id": "/subscriptions/0/resourceGroups/rg/providers/"
                                   "Microsoft.Databricks/accessConnectors/root"}})
    metastore = MetastoresApi(client).create({"name": unique("adopted")})["metastore_id"]
    MetastoresApi(client).update(metastore, {"storage_root_credential_id": credential["id"]})
    found = adopted(client, connection, "MetastoreDataAccess", metastore)
    assert found.item == {"metastore_id": metastore,
                          "storage_root_credential_id": credential["id"]}
    MetastoresApi(client).delete(metastore)


def test_a_connection_yields_the_secret_problem(client):
    name = unique("pg").replace("-", "_")
    ConnectionsApi(client).create({"name": name, "connection_type": "POSTGRESQL", "options": {
        "host": "db.example.com", "user": "u", "password": "c0nn-s3cret"}})
    kind = kind_named("Connection")
    [candidate] = [c for c in candidates(client, kind) if c.import_id == name]
    assert candidate.item is None and candidate.problem is not None
    assert ("pulumi config set --secret --path 'workspace:connections[<i>].options.password'"
            in candidate.problem), candidate.problem
    assert "c0nn-s3cret" not in candidate.problem
    ConnectionsApi(client).delete(name)


# --- the whole workspace ---------------------------------------------------------------


def test_every_candidate_of_the_workspace_is_an_exact_item_or_a_problem(client):
    """The emulator's initial objects (and whatever tests before made): each one verified,
    or refused with the reason; secrets always refused."""
    for kind in adoptable_kinds():
        for candidate in candidates(client, kind):
            assert (candidate.item is None) != (candidate.problem is None), candidate
            if kind.name == "Secret":
                assert candidate.item is None
            elif candidate.item is None:
                problem = candidate.problem or ""
                # Or a storage credential's client secret (made by a test before).
                held = bool(kind.secrets) and "never returns a secret's value" in problem
                assert "cannot express" in problem or held, candidate


# --- a workspace filled like a team's -----------------------------------------------------


@pytest.fixture(scope="module")
def filled() -> Iterator[Any]:
    """A fresh emulator filled by tools/fill_workspace.py through the official SDK (every
    kind, multi-task jobs of every family of settings, nested groups, scopes with ACLs)."""
    from tests.conftest import fresh_emulator
    from tests.fill_support import fill_emulator

    with fresh_emulator() as info:
        yield fill_emulator(info)


def test_every_object_of_a_filled_workspace_is_adopted_exactly(filled, tmp_path):
    """In both wire forms, on one fill: every object made is a candidate; every candidate
    but a secret verifies and shows no change declared (a notebook's or file's with its
    exported content written where its `source` names it); every secret says how to
    declare its value."""
    from tests.conftest import emulator_connection

    for wire_form in ("public", "legacy"):
        connection = emulator_connection(filled.info, wire_form)
        client = WorkspaceClient(connection)
        props = connection.to_props()
        for kind in adoptable_kinds():
            found = {c.import_id: c for c in candidates(client, kind)}
            made = set(filled.filled.ids(kind.name)) if kind.name in filled.filled.made else set()
            assert made <= set(found), (wire_form, kind.name, sorted(made - set(found)))
            for candidate in found.values():
                if kind.name == "Secret":
                    assert candidate.item is None and candidate.problem is not None
                    continue
                assert candidate.problem is None, (wire_form, candidate.problem)
                assert candidate.item is not None
                written(candidate, tmp_path)
                with source_roots(tmp_path):
                    assert_no_change(kind, props, candidate.import_id, candidate.item)


# --- workspace objects and grants under Unity Catalog ------------------------------------


def written(candidate: Candidate, project: Path) -> None:
    """The candidate's exported files written where its item's `source` names them."""
    for name, content in candidate.files.items():
        path = project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def test_a_notebook_and_a_file_are_adopted_with_their_content_as_project_files(
    client, connection, tmp_path
):
    folder = f"/Shared/{unique('adopted')}"
    notebook_text = b"-- Databricks notebook source\nSELECT 1\n"
    WorkspaceObjectsApi(client).mkdirs(folder)
    WorkspaceObjectsApi(client).import_(f"{folder}/daily", notebook_text, format="SOURCE",
                                     language="SQL")
    WorkspaceObjectsApi(client).import_(f"{folder}/settings.json", b'{"retries": 2}\n',
                                     format="RAW")
    try:
        with source_roots(tmp_path):
            notebook = adopted_with_files(client, connection, "Notebook", f"{folder}/daily",
                                          tmp_path)
            assert notebook.item == {"path": f"{folder}/daily",
                                     "source": f"{folder[1:]}/daily.sql"}
            assert notebook.files == {f"{folder[1:]}/daily.sql": notebook_text}
            file = adopted_with_files(client, connection, "WorkspaceFile",
                                      f"{folder}/settings.json", tmp_path)
            assert file.item == {"path": f"{folder}/settings.json",
                                 "source": f"{folder[1:]}/settings.json"}
            assert file.files == {f"{folder[1:]}/settings.json": b'{"retries": 2}\n'}
        # The folder holds what it holds: made by them, it is no Directory to adopt.
        assert folder not in {f.import_id for f in listed(client, kind_named("Directory"))}
    finally:
        WorkspaceObjectsApi(client).delete(folder, recursive=True)


def adopted_with_files(
    client: WorkspaceClient, connection: dict[str, Any], kind_name: str, path: str,
    project: Path,
) -> Candidate:
    kind = kind_named(kind_name)
    assert path in {found.import_id for found in listed(client, kind)}
    candidate = candidate_of(client, kind, path, path)
    assert candidate is not None and candidate.problem is None, candidate
    assert candidate.item is not None
    written(candidate, project)
    assert_no_change(kind, connection, path, candidate.item)
    return candidate


def test_an_empty_folder_is_a_directory_and_home_folders_and_repos_are_not_listed(
    client, connection
):
    folder = f"/Shared/{unique('empty')}"
    home = f"/Users/{unique('someone')}@example.com"
    WorkspaceObjectsApi(client).mkdirs(folder)
    WorkspaceObjectsApi(client).mkdirs(home)
    WorkspaceObjectsApi(client).import_(f"{home}/scratch", b"print(1)\n", format="SOURCE",
                                     language="PYTHON")
    try:
        found = adopted(client, connection, "Directory", folder)
        assert found.item == {"path": folder}  # delete_recursive: the default
        notebooks = {f.import_id for f in listed(client, kind_named("Notebook"))}
        folders = {f.import_id for f in listed(client, kind_named("Directory"))}
        assert not any(p.startswith(("/Users/", "/Repos/")) for p in notebooks | folders)
    finally:
        WorkspaceObjectsApi(client).delete(folder, recursive=True)
        WorkspaceObjectsApi(client).delete(home, recursive=True)


def test_grants_on_a_schema_and_a_volume_are_adopted(client, connection, catalog):  # noqa: F811
    SchemasApi(client).create({"name": "sales", "catalog_name": catalog})
    VolumesApi(client).create({"name": "landing", "catalog_name": catalog, "schema_name": "sales",
                           "volume_type": "MANAGED"})
    GrantsApi(client).update("schema", f"{catalog}.sales", [
        {"principal": "analysts", "add": ["USE_SCHEMA", "SELECT"]}])
    GrantsApi(client).update("volume", f"{catalog}.sales.landing", [
        {"principal": "data-engineers", "add": ["READ_VOLUME"]}])
    schema = adopted(client, connection, "Grants", f"schema/{catalog}.sales")
    assert schema.item == {"securable_type": "schema", "full_name": f"{catalog}.sales",
                           "privilege_assignments": [
                               {"principal": "analysts", "privileges": ["SELECT", "USE_SCHEMA"]}]}
    volume = adopted(client, connection, "Grants", f"volume/{catalog}.sales.landing")
    assert volume.item is not None
    assert volume.item["privilege_assignments"] == [
        {"principal": "data-engineers", "privileges": ["READ_VOLUME"]}]


# --- access-control rule sets ------------------------------------------------------------

ACCOUNT = "8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c"  # the emulator's account (initial data)


def test_a_principals_rule_set_with_rules_is_adopted_naming_the_principal(
    client, connection, principal
):
    kind = kind_named("AccessControlRuleSet")
    name = (f"accounts/{ACCOUNT}/servicePrincipals/{principal['applicationId']}"
            "/ruleSets/default")
    assert list(listed(client, kind)) == []  # the account not known: nothing listed
    client.account_id = ACCOUNT
    assert name not in {f.import_id for f in listed(client, kind)}  # no rule yet
    etag = AccessControlApi(client).get_rule_set(name)["etag"]
    AccessControlApi(client).update_rule_set(name, [
        {"role": "roles/servicePrincipal.user",
         "principals": ["groups/data-engineers", "users/bob@example.com"]}], etag)
    found = adopted(client, connection, "AccessControlRuleSet", name)
    assert found.item == {
        "account_id": ACCOUNT,
        "service_principal_id": str(principal["id"]),
        "grant_rules": [{"role": "roles/servicePrincipal.user",
                         "principals": ["groups/data-engineers", "users/bob@example.com"]}],
    }
    # The principal's item, where the stack has one, is named instead of its id.
    assert found.references == {"service_principal_id": str(principal["id"])}


# --- registered models and experiments --------------------------------------------------------


def test_a_registered_model_with_an_alias_and_its_grants_are_adopted(
        client, connection, catalog):  # noqa: F811
    SchemasApi(client).create({"name": "ml", "catalog_name": catalog})
    full_name = f"{catalog}.ml.churn"
    RegisteredModelsApi(client).create({"catalog_name": catalog, "schema_name": "ml",
                                        "name": "churn", "comment": "scores churn"})
    client.post("/api/2.0/mlflow/unity-catalog/model-versions/create",
                {"name": full_name, "source": "dbfs:/runs/1/model"})
    RegisteredModelsApi(client).set_alias(full_name, "champion", 1)
    GrantsApi(client).update("function", full_name, [
        {"principal": "analysts", "add": ["EXECUTE"]}])
    model = adopted(client, connection, "RegisteredModel", full_name)
    assert model.item is not None
    assert {k: model.item[k] for k in ("catalog_name", "schema_name", "name", "comment",
                                       "aliases")} == {
        "catalog_name": catalog, "schema_name": "ml", "name": "churn",
        "comment": "scores churn", "aliases": {"champion": 1}}
    assert "storage_location" not in model.item  # the service's own
    grants = adopted(client, connection, "Grants", f"function/{full_name}")
    assert grants.item is not None and grants.item["privilege_assignments"] == [
        {"principal": "analysts", "privileges": ["EXECUTE"]}]
    RegisteredModelsApi(client).delete(full_name)


def test_an_experiment_is_adopted_without_the_services_default_location(client, connection):
    name = f"/Shared/{unique('adopted')}"
    experiment_id = ExperimentsApi(client).create(
        {"name": name, "tags": [{"key": "team", "value": "ml"}]})
    experiment = adopted(client, connection, "Experiment", experiment_id)
    assert experiment.item == {"name": name, "tags": {"team": "ml"}}
    ExperimentsApi(client).delete(experiment_id)
    assert experiment_id not in {found.import_id for found in
                                 listed(client, kind_named("Experiment"))}
