"""The `local` stack's objects (every kind of Pulumi.local.yaml; its health gate has its own
tests) through the whole life of a stack under the real engine, against the emulator over
HTTP: up, a no-op up that writes nothing, a config change applied in place, and destroy
leaving the workspace as it was."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from providers.applications.apps_api import AppsApi
from providers.client import WorkspaceClient, normalise_job_settings
from providers.compute.cluster_policies_api import ClusterPoliciesApi
from providers.compute.clusters_api import ClustersApi
from providers.dashboards.lakeview_api import LakeviewApi
from providers.identity.groups_api import GroupsApi
from providers.identity.service_principals_api import ServicePrincipalsApi
from providers.jobs.job_permissions_api import job_permissions_api
from providers.jobs.jobs_api import JobsApi
from providers.ml.experiments_api import ExperimentsApi
from providers.ml.registered_models_api import RegisteredModelsApi
from providers.pipelines.pipelines_api import PipelinesApi
from providers.secrets.secret_scopes_api import SecretScopesApi
from providers.serving.serving_endpoints_api import ServingEndpointsApi
from providers.sql.alerts_api import AlertsApi
from providers.sql.queries_api import QueriesApi
from providers.sql.sql_warehouses_api import SqlWarehousesApi
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.workspace.ip_access_lists_api import IpAccessListsApi
from providers.workspace.repos_api import ReposApi
from providers.workspace.workspace_conf_api import WorkspaceConfApi
from providers.workspace.workspace_objects_api import WorkspaceObjectsApi
from stacks.demo import describe_changes, last_update_changes
from stacks.pulumi_cli import REPO_ROOT, PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import LOCAL_OBJECTS, StackFactory, write_config
from tools.drills.local_stack import local_objects
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

BOB = "200000000000002"
DEMO_REPO_PATH = "/Repos/platform/data-pipelines"


def job_settings(client: WorkspaceClient, job_id: int) -> dict[str, Any]:
    return normalise_job_settings(JobsApi(client).get(job_id)["settings"])


def job_acl(client: WorkspaceClient, job_id: int) -> dict[str, str]:
    """The levels of the two groups the stack declares (admins keep theirs, undeclared)."""
    acl = job_permissions_api(client).get(job_id)["access_control_list"]
    return {
        entry["group_name"]: entry["all_permissions"][0]["permission_level"]
        for entry in acl
        if entry.get("group_name") in ("data-engineers", "analysts")
    }


def scope_names(client: WorkspaceClient) -> set[str]:
    return {scope["name"] for scope in SecretScopesApi(client).list()}


def counted_resources(stack: PulumiCli) -> int:
    """How many resources the engine counts in an update: all but its default providers."""
    resources = stack.export()["deployment"]["resources"]
    return sum(
        1
        for r in resources
        if not (r["type"].startswith("pulumi:providers:") and r["urn"].endswith("::default"))
    )


def writes(info: EmulatorInfo) -> list[str]:
    return [
        f"{r['method']} {r['path']}"
        for r in request_log(info)
        if r["service"] == "platform" and r["method"] != "GET"
    ]


def direct_levels(client: WorkspaceClient, object_type: str, object_id: str) -> list[dict]:
    """(group, level) of each direct entry of an object's access-control list."""
    acl = client.permissions(object_type).get(object_id)["access_control_list"]
    return [{"group_name": e.get("group_name"), "permission_level": p["permission_level"]}
            for e in acl for p in e["all_permissions"] if not p.get("inherited")]


REPORT_NOTEBOOK = "/Shared/data-platform/nightly_report"
APP_FOLDER = "/Shared/churn-lookup"
WHEEL_PATH = "/Volumes/demo/landing/files/wheels/demo_tasks-0.1.0-py3-none-any.whl"


def test_local_stack_up_noop_change_destroy(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    client = emulator_client(emulator)
    scopes_before = scope_names(client)
    principals_before = len(ServicePrincipalsApi(client).list())
    stack = workspace_stack(**LOCAL_OBJECTS, **local_objects(kinds=("jobRuns", "pipelineUpdates")))

    # up: every declared object exists as declared
    stack.up()
    # the stack, the WorkspaceAuth (+ its provider) and the 11 objects
    total = counted_resources(stack)
    assert total >= 13
    assert last_update_changes(stack) == {"create": total}
    outputs = stack.outputs()
    job_id = int(outputs["jobs"]["nightly-etl"])
    settings = job_settings(client, job_id)
    tasks = {task["task_key"]: task for task in settings["tasks"]}
    assert settings["name"] == "nightly-etl" and tasks["ingest"]["max_retries"] == 2
    assert set(tasks) == {"ingest", "transform", "quality_gate", "report"}
    assert settings["schedule"]["quartz_cron_expression"] == "0 0 2 * * ?"
    [cluster] = settings["job_clusters"]
    assert cluster["new_cluster"]["autoscale"] == {"min_workers": 1, "max_workers": 4}
    assert job_acl(client, job_id) == {"data-engineers": "CAN_MANAGE_RUN", "analysts": "CAN_VIEW"}
    assert {"etl-secrets", "vault-secrets"} <= scope_names(client)
    [principal] = ServicePrincipalsApi(client).list(
        'applicationId eq "b946402c-4f47-469a-bead-ef6610b453f5"'
    )
    assert principal["displayName"] == "etl-pipeline"
    assert outputs["repo_branches"] == {"data-pipelines": "develop"}
    repo = next(ReposApi(client).list("/Repos/iac/data-pipelines"))
    assert repo["branch"] == "develop"
    bindings = CatalogsApi(client).get_bindings("finance")
    assert [b["workspace_id"] for b in bindings] == [1234567890123456]
    policy_id = outputs["cluster_policies"]["small-clusters"]
    assert ClusterPoliciesApi(client).get(policy_id)["max_clusters_per_user"] == 2
    analysts = ClustersApi(client).get(outputs["clusters"]["analysts"])
    assert (analysts["state"], analysts["policy_id"]) == ("TERMINATED", policy_id)
    [group] = GroupsApi(client).named("platform-analysts")
    assert [m["value"] for m in group["members"]] == [BOB]
    assert outputs["groups"] == {"platform-analysts": group["id"]}
    demo_repo = ReposApi(client).get(outputs["repos"]["pipelines-release"])
    assert (demo_repo["path"], demo_repo.get("branch")) == (DEMO_REPO_PATH, None)  # on a tag
    assert demo_repo["sparse_checkout"] == {"patterns": ["jobs"]}
    [demo_list] = [i for i in IpAccessListsApi(client).list() if i["label"] == "local-demo"]
    assert "127.0.0.1" in demo_list["ip_addresses"]  # the demo cannot lock itself out
    # the everyday pieces: the report notebook uploaded, run by the job's run, analysts may
    # run it (granted by its path), IP access lists on, the SQL warehouse held stopped
    notebook = WorkspaceObjectsApi(client).status(REPORT_NOTEBOOK)
    assert (notebook["object_type"], outputs["notebooks"]["nightly-report"]) == (
        "NOTEBOOK", notebook["object_id"])
    assert tasks["report"]["notebook_task"]["notebook_path"] == REPORT_NOTEBOOK
    assert outputs["job_runs"]["nightly-etl-smoke"]["result_state"] == "SUCCESS"
    runners = client.permissions("notebooks").get(notebook["object_id"])["access_control_list"]
    assert {"group_name": "analysts", "permission_level": "CAN_RUN"} in [
        {"group_name": e.get("group_name"), "permission_level": p["permission_level"]}
        for e in runners for p in e["all_permissions"] if not p.get("inherited")]
    assert WorkspaceConfApi(client).get(["enableIpAccessLists"]) == {"enableIpAccessLists": "true"}
    warehouse = SqlWarehousesApi(client).get(outputs["sql_warehouses"]["local-sql"])
    assert warehouse["state"] == "STOPPED"
    # the workloads: the pipeline on its notebook, updated once; the orders job running it
    # and then the wheel uploaded into the volume; analysts may view the pipeline
    pipeline_id = outputs["pipelines"]["orders"]
    pipeline = PipelinesApi(client).get(pipeline_id)
    assert (pipeline["spec"]["catalog"], pipeline["spec"]["schema"]) == ("demo", "landing")
    assert pipeline["spec"]["libraries"] == [
        {"notebook": {"path": "/Shared/data-platform/orders_pipeline"}}]
    assert [u["state"] for u in pipeline.get("latest_updates", [])] == ["COMPLETED"], pipeline
    orders = job_settings(client, int(outputs["jobs"]["orders-refresh"]))
    steps = {task["task_key"]: task for task in orders["tasks"]}
    assert steps["refresh"]["pipeline_task"]["pipeline_id"] == pipeline_id
    assert steps["score"]["libraries"] == [{"whl": WHEEL_PATH}]
    assert outputs["job_runs"]["orders-refresh-smoke"]["result_state"] == "SUCCESS"
    assert outputs["volume_files"]["demo-tasks-wheel"] == WHEEL_PATH
    assert {"group_name": "analysts", "permission_level": "CAN_VIEW"} in direct_levels(
        client, "pipelines", pipeline_id)
    # ML and analytics: the model in its schema, the experiment, the endpoint serving the
    # model; the query from its file, the alert on it and the dashboard from its file on the
    # demo warehouse, analysts reading it; the app deployed from its uploaded folder
    model = RegisteredModelsApi(client).get("demo.ml.churn")
    assert (model["full_name"], model["comment"]) == ("demo.ml.churn", "Scores churn risk")
    experiment = ExperimentsApi(client).get(outputs["experiments"]["/Shared/data-platform/churn"])
    assert experiment["lifecycle_stage"] == "active"
    endpoint = ServingEndpointsApi(client).get("churn")
    [served] = endpoint["config"]["served_entities"]
    assert (served["entity_name"], served["entity_version"]) == ("demo.ml.churn", "1")
    assert outputs["serving_endpoints"]["churn"] == endpoint["id"]
    assert {"group_name": "data-engineers", "permission_level": "CAN_QUERY"} in direct_levels(
        client, "serving-endpoints", endpoint["id"])  # named by its item, granted by its id
    warehouse_id = outputs["sql_warehouses"]["local-sql"]
    query = QueriesApi(client).get(outputs["queries"]["orders-per-day"])
    assert (query["warehouse_id"], query["query_text"]) == (
        warehouse_id, (REPO_ROOT / "stacks/queries/orders_per_day.sql").read_text())
    alert = AlertsApi(client).get(outputs["alerts"]["few-orders"])
    assert alert["query_id"] == query["id"]
    dashboard_id = outputs["dashboards"]["sales"]
    dashboard = LakeviewApi(client).get(dashboard_id)
    assert (dashboard["display_name"], dashboard["warehouse_id"]) == ("Sales", warehouse_id)
    assert LakeviewApi(client).get_published(dashboard_id)["warehouse_id"] == warehouse_id
    assert {"group_name": "analysts", "permission_level": "CAN_READ"} in direct_levels(
        client, "dashboards", dashboard_id)
    app = AppsApi(client).get("churn-lookup")
    assert app["active_deployment"]["source_code_path"] == APP_FOLDER
    assert [r["serving_endpoint"]["name"] for r in app["resources"]] == ["churn"]

    # up again: no changes, and not one write to the workspace
    clear_request_log(emulator)
    again = stack.up("--expect-no-changes")
    assert f"{total} unchanged" in again.stdout
    assert writes(emulator) == []
    assert describe_changes(last_update_changes(stack)) == (
        f"no changes: the workspace matches Pulumi.local.yaml ({total} unchanged)"
    )

    # a config change: in-place updates of the job, its permissions and the branch
    changed = copy.deepcopy(LOCAL_OBJECTS)
    changed["jobs"][0]["job_clusters"][0]["new_cluster"]["autoscale"]["max_workers"] = 8
    changed["jobs"][0]["tasks"][0]["max_retries"] = 3
    changed["jobPermissions"][0]["access_controls"][1]["permission_level"] = "CAN_MANAGE_RUN"
    changed["repoBranches"][0]["branch"] = "main"
    write_config(stack, {f"workspace:{k}": v for k, v in changed.items()})
    clear_request_log(emulator)
    stack.up()
    assert last_update_changes(stack) == {"update": 3, "same": total - 3}
    assert int(stack.outputs()["jobs"]["nightly-etl"]) == job_id  # same job, changed in place
    settings = job_settings(client, job_id)
    tasks = {task["task_key"]: task for task in settings["tasks"]}
    assert tasks["ingest"]["max_retries"] == 3 and tasks["transform"]["max_retries"] == 2
    assert settings["job_clusters"][0]["new_cluster"]["autoscale"]["max_workers"] == 8
    assert job_acl(client, job_id) == {
        "data-engineers": "CAN_MANAGE_RUN",
        "analysts": "CAN_MANAGE_RUN",
    }
    assert next(ReposApi(client).list("/Repos/iac/data-pipelines"))["branch"] == "main"
    assert not [w for w in writes(emulator) if "create" in w or w.startswith("DELETE")]

    # destroy: the workspace is back to what it was before the stack
    stack.destroy()
    assert scope_names(client) == scopes_before
    assert len(ServicePrincipalsApi(client).list()) == principals_before
    assert not list(JobsApi(client).list("nightly-etl"))
    assert not [p for p in ClusterPoliciesApi(client).list() if p["name"] == "small-clusters"]
    assert not [c for c in ClustersApi(client).list() if c.get("cluster_name") == "analysts"]
    assert next(ReposApi(client).list("/Repos/iac/data-pipelines"))["branch"] == "main"
    assert GroupsApi(client).named("platform-analysts") == []
    assert not [r for r in ReposApi(client).list(DEMO_REPO_PATH) if r["path"] == DEMO_REPO_PATH]
    assert "local-demo" not in {i["label"] for i in IpAccessListsApi(client).list()}
    assert not [p for p in PipelinesApi(client).list() if p["pipeline_id"] == pipeline_id]
    assert not [e for e in ServingEndpointsApi(client).list() if e["name"] == "churn"]
    assert not [a for a in AppsApi(client).list() if a["name"] == "churn-lookup"]
    assert not list(RegisteredModelsApi(client).list("demo", "ml"))
    assert LakeviewApi(client).get(dashboard_id)["lifecycle_state"] == "TRASHED"
