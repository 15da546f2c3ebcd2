"""The official SDK, unchanged, against the emulator with a token from its identity
provider."""

from __future__ import annotations

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    InvalidParameterValue,
    NotFound,
    ResourceAlreadyExists,
    ResourceConflict,
)
from databricks.sdk.service import catalog, compute, iam, jobs

from tests.emulator.support import OTHER_WORKSPACE_IDS, unique
from workspace_emulator.testing import fetch_token, register_application, request_log, set_faults

SP_SCHEMA = iam.ServicePrincipalSchema.URN_IETF_PARAMS_SCIM_SCHEMAS_CORE_2_0_SERVICE_PRINCIPAL


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


def _python_job(name: str) -> dict:
    return dict(name=name, tasks=[jobs.Task(
        task_key="main",
        spark_python_task=jobs.SparkPythonTask(python_file="dbfs:/jobs/main.py"),
        new_cluster=compute.ClusterSpec(spark_version="13.3.x-scala2.12",
                                        node_type_id="Standard_DS3_v2", num_workers=1))])


def test_clusters(sdk):
    states = {c.cluster_id: c.state for c in sdk.clusters.list()}
    assert compute.State.RUNNING in states.values()
    cluster = "0101-120000-etl00002"
    details = sdk.clusters.start_and_wait(cluster)
    assert details.state == compute.State.RUNNING
    assert sdk.clusters.get(cluster).state == compute.State.RUNNING
    assert sdk.clusters.delete_and_wait(cluster).state == compute.State.TERMINATED


def test_jobs_lifecycle(sdk):
    name = unique("sdk-job")
    created = sdk.jobs.create(**_python_job(name))
    job = sdk.jobs.get(created.job_id)
    assert job.settings.name == name and job.settings.tasks[0].task_key == "main"
    assert created.job_id in {j.job_id for j in sdk.jobs.list(name=name)}
    sdk.jobs.reset(created.job_id, new_settings=jobs.JobSettings(
        name=name + "-reset", tasks=job.settings.tasks))
    assert sdk.jobs.get(created.job_id).settings.name == name + "-reset"
    run = sdk.jobs.run_now_and_wait(created.job_id, python_params=["x"])
    assert run.state.result_state == jobs.RunResultState.SUCCESS
    fetched = sdk.jobs.get_run(run.run_id)
    assert fetched.state.life_cycle_state == jobs.RunLifeCycleState.TERMINATED
    failed = sdk.jobs.get_run(sdk.jobs.run_now(created.job_id, python_params=["--fail"]).run_id)
    assert failed.state.result_state == jobs.RunResultState.FAILED
    sdk.jobs.delete(created.job_id)
    with pytest.raises(NotFound):
        sdk.jobs.get(created.job_id)


def test_jobs_list_follows_pages(sdk):
    name = unique("sdk-paged")
    ids = {sdk.jobs.create(name=name).job_id for _ in range(3)}
    assert {j.job_id for j in sdk.jobs.list(name=name, limit=1)} == ids


def test_job_permissions(sdk, emulator):
    job_id = str(sdk.jobs.create(**_python_job(unique("sdk-perm"))).job_id)
    acl = sdk.jobs.get_permissions(job_id).access_control_list
    owner = next(a for a in acl if a.all_permissions[0].permission_level ==
                 jobs.JobPermissionLevel.IS_OWNER)
    assert owner.service_principal_name == emulator.client_id
    sdk.jobs.update_permissions(job_id, access_control_list=[jobs.JobAccessControlRequest(
        group_name="analysts", permission_level=jobs.JobPermissionLevel.CAN_VIEW)])
    replaced = sdk.jobs.set_permissions(job_id, access_control_list=[
        jobs.JobAccessControlRequest(group_name="data-engineers",
                                     permission_level=jobs.JobPermissionLevel.CAN_MANAGE)])
    groups = {a.group_name for a in replaced.access_control_list if a.group_name}
    assert groups == {"data-engineers", "admins"}
    with pytest.raises(InvalidParameterValue):
        sdk.jobs.update_permissions(job_id, access_control_list=[jobs.JobAccessControlRequest(
            user_name="ghost@example.com", permission_level=jobs.JobPermissionLevel.CAN_VIEW)])


def test_service_principals(sdk, emulator):
    application = register_application(emulator, unique("sdk-sp"))
    created = sdk.service_principals.create(
        application_id=application["client_id"], display_name="sdk principal",
        groups=[iam.ComplexValue(value="100000000000003")], schemas=[SP_SCHEMA])
    assert created.id and created.application_id == application["client_id"]
    found = list(sdk.service_principals.list(
        filter=f'applicationId eq "{application["client_id"]}"'))
    assert [p.id for p in found] == [created.id]
    assert sdk.service_principals.get(created.id).display_name == "sdk principal"
    assert created.id in {p.id for p in sdk.service_principals.list()}
    with pytest.raises(ResourceConflict):
        sdk.service_principals.create(application_id=application["client_id"],
                                      schemas=[SP_SCHEMA])
    sdk.service_principals.delete(created.id)
    with pytest.raises(NotFound):
        sdk.service_principals.get(created.id)


def test_secret_scopes(sdk):
    name = unique("sdk-scope")
    sdk.secrets.create_scope(name)
    assert name in {s.name for s in sdk.secrets.list_scopes()}
    with pytest.raises(ResourceAlreadyExists):
        sdk.secrets.create_scope(name)
    sdk.secrets.delete_scope(name)
    assert name not in {s.name for s in sdk.secrets.list_scopes()}


def test_ip_access_lists(sdk):
    lists = list(sdk.ip_access_lists.list())
    assert {item.list_type.value for item in lists} == {"ALLOW", "BLOCK"}


def test_repos(sdk):
    repos = list(sdk.repos.list())  # two pages
    assert len(repos) == 3
    repo = next(r for r in repos if r.path == "/Repos/analytics/dashboards")
    sdk.repos.update(repo.id, branch="feature/new-kpis")
    updated = sdk.repos.get(repo.id)
    assert updated.branch == "feature/new-kpis" and updated.head_commit_id != repo.head_commit_id
    with pytest.raises(InvalidParameterValue):
        sdk.repos.update(repo.id, branch="no-such-branch")


def test_catalogs_and_bindings(sdk):
    sdk.catalogs.update("main", isolation_mode=catalog.CatalogIsolationMode.ISOLATED)
    assert sdk.catalogs.get("main").isolation_mode == catalog.CatalogIsolationMode.ISOLATED
    sdk.workspace_bindings.update("main", assign_workspaces=[OTHER_WORKSPACE_IDS[0]])
    assert OTHER_WORKSPACE_IDS[0] in sdk.workspace_bindings.get("main").workspaces
    read_only = catalog.WorkspaceBindingBindingType.BINDING_TYPE_READ_ONLY
    sdk.workspace_bindings.update_bindings("catalog", "main", add=[catalog.WorkspaceBinding(
        workspace_id=OTHER_WORKSPACE_IDS[1], binding_type=read_only)])
    bindings = {b.workspace_id: b.binding_type
                for b in sdk.workspace_bindings.get_bindings("catalog", "main")}
    assert bindings[OTHER_WORKSPACE_IDS[1]] == read_only
    sdk.workspace_bindings.update_bindings("catalog", "main", remove=[
        catalog.WorkspaceBinding(workspace_id=w) for w in OTHER_WORKSPACE_IDS[:2]])
    sdk.catalogs.update("main", isolation_mode=catalog.CatalogIsolationMode.OPEN)
    with pytest.raises(NotFound):
        sdk.catalogs.get("no-such-catalog")


def test_sdk_retries_injected_throttling(sdk, emulator):
    try:
        set_faults(emulator, rate_429=0.5, random_state=1,
                   paths=["/api/2.0/secrets/scopes/list"])
        for _ in range(2):
            sdk.secrets.list_scopes()
    finally:
        set_faults(emulator)
    throttled = [e for e in request_log(emulator)
                 if e["path"] == "/api/2.0/secrets/scopes/list" and e["status"] == 429]
    assert throttled
