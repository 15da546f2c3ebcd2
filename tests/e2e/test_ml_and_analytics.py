"""ML and analytics kinds under the real engine against the emulator, in one stack (issue 43):
a registered model in the stack's schema, an experiment, a serving endpoint serving the
model (named by its item), a query from the project's SQL file and an alert on it, a
dashboard from the project's .lvdash.json on the stack's warehouse, an app deployed from a
folder of the stack holding its code, EXECUTE on the model and permissions on every other
object (each named by its item: the endpoint's take its id, not its name), and a job
refreshing the dashboard then evaluating the alert, run once.

The steps: up, the run succeeding, then an up that writes nothing; a training run registers
two versions, and one up points an alias at the first and changes a comment or description
of several kinds in place; the served version moves from the alias's to the new one by ONE
config update; the dashboard edited outside the stack shows in `preview --refresh` and the up
puts it back; a second stack imports each kind by its id with no write and no change after;
destroy."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import uuid
from pathlib import Path
from typing import Any

import pytest
import requests

from stacks.pulumi_cli import PulumiCli
from tests.e2e.conftest import (
    PlatformApi,
    StackFactory,
    assert_no_changes,
    changed_in_preview,
    platform_writes,
    reconfigure,
)
from workspace_emulator.testing import EmulatorInfo, clear_request_log

pytestmark = pytest.mark.engine

REPO_ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = "stacks/dashboards/sales.lvdash.json"
QUERY = "stacks/queries/orders_per_day.sql"
APP_CODE = "stacks/apps/churn_lookup"
LAKEVIEW = "/api/2.0/lakeview/dashboards"
SERVING = "/api/2.0/serving-endpoints"
MODELS = "/api/2.1/unity-catalog/models"
VERSIONS = "/api/2.0/mlflow/unity-catalog/model-versions/create"
FEW_ORDERS = {"op": "LESS_THAN", "operand": {"column": {"name": "n"}},
              "threshold": {"value": {"double_value": 10}}}


def readers(group: str, level: str, object_type: str, object_id: str) -> dict[str, Any]:
    return {"name": f"{object_type.replace('/', '-')}-{level.lower()}", "object_type": object_type,
            "object_id": object_id,
            "access_controls": [{"group_name": group, "permission_level": level}]}


def declared(suffix: str) -> dict[str, list[dict[str, Any]]]:
    catalog, folder = f"ml_{suffix}", f"/Shared/ml-{suffix}"
    model, warehouse = f"{catalog}.models.churn", f"bi-{suffix}"
    endpoint, app = f"churn-{suffix}", f"churn-lookup-{suffix}"
    return {
        "catalogs": [{"name": catalog}],
        "schemas": [{"name": f"{catalog}.models", "catalog": catalog}],
        "registeredModels": [{"name": model, "schema_name": f"{catalog}.models",
                              "comment": "Scores churn risk", "force_destroy": True}],
        # Two folders side by side: a folder of the stack inside another one may be deleted
        # before what it holds (items of one list wait for none of each other).
        "directories": [{"name": "ml-folder", "path": folder},
                        {"name": "app-code", "path": f"{folder}-app"}],
        "workspaceFiles": [
            {"name": f"app-{file}", "path": f"{folder}-app/{file}",
             "source": f"{APP_CODE}/{file}"} for file in ("app.py", "app.yaml")],
        "experiments": [{"name": f"{folder}/churn", "tags": {"team": "data-science"}}],
        "sqlWarehouses": [{"name": warehouse, "cluster_size": "2X-Small", "auto_stop_mins": 10,
                           "state": "STOPPED"}],
        "queries": [{"name": "orders-per-day", "display_name": "Orders per day",
                     "source": QUERY, "warehouse_id": warehouse, "parent_path": folder}],
        "alerts": [{"name": "few-orders", "display_name": "Too few orders",
                    "query_id": "orders-per-day", "condition": FEW_ORDERS,
                    "parent_path": folder}],
        "dashboards": [{"name": "sales", "display_name": "Sales", "source": DASHBOARD,
                        "parent_path": folder, "warehouse_id": warehouse, "published": True}],
        "servingEndpoints": [{"name": endpoint, "config": {"served_entities": [
            {"entity_name": model, "entity_version": "1", "workload_size": "Small",
             "scale_to_zero_enabled": True}]}, "tags": [{"key": "team", "value": "ml"}]}],
        "apps": [{"name": app, "description": "churn lookups", "source_code_path": "app-code",
                  "deployment_trigger": "1", "resources": [
                      {"name": "churn", "serving_endpoint": {
                          "name": endpoint, "permission": "CAN_QUERY"}}]}],
        "jobs": [{"name": f"bi-refresh-{suffix}", "tasks": [
            {"task_key": "refresh", "dashboard_task": {"dashboard_id": "sales"}},
            {"task_key": "check", "depends_on": [{"task_key": "refresh"}],
             "sql_task": {"alert": {"alert_id": "few-orders"}, "warehouse": warehouse}}]}],
        "jobRuns": [{"name": "bi-run", "job": f"bi-refresh-{suffix}", "trigger": "1"}],
        "grants": [{"name": "churn-model", "securable_type": "function", "full_name": model,
                    "privilege_assignments": [
                        {"principal": "analysts", "privileges": ["EXECUTE"]}]}],
        "permissions": [
            readers("analysts", "CAN_READ", "experiments", f"{folder}/churn"),
            readers("analysts", "CAN_QUERY", "serving-endpoints", endpoint),
            readers("analysts", "CAN_VIEW", "sql/queries", "orders-per-day"),
            readers("analysts", "CAN_VIEW", "sql/alerts", "few-orders"),
            readers("analysts", "CAN_READ", "dashboards", "sales"),
            readers("analysts", "CAN_USE", "apps", app),
        ],
    }


def normal_digest(document: Any) -> str:
    return hashlib.sha256(json.dumps(document, sort_keys=True, separators=(",", ":"))
                          .encode()).hexdigest()


class Workspace(PlatformApi):
    def dashboard(self, dashboard_id: str) -> dict[str, Any]:
        return dict(self.call("GET", f"{LAKEVIEW}/{dashboard_id}"))

    def endpoint(self, name: str) -> dict[str, Any]:
        return dict(self.call("GET", f"{SERVING}/{name}"))

    def model(self, full_name: str) -> dict[str, Any]:
        return dict(self.call("GET", f"{MODELS}/{full_name}", params={"include_aliases": "true"}))

    def register_version(self, full_name: str, run: str) -> int:
        """What a training run does: MLflow's register_model, through the UC registry."""
        made = self.call("POST", VERSIONS, json={
            "name": full_name, "source": f"dbfs:/databricks/mlflow/{run}/model", "run_id": run})
        return int(made["model_version"]["version"])

    def acl(self, object_type: str, object_id: str) -> list[tuple[str | None, str]]:
        """(group, level) of the direct entries of an object's access-control list."""
        found = self.call("GET", f"/api/2.0/permissions/{object_type}/{object_id}")
        return [(entry.get("group_name"), level["permission_level"])
                for entry in found["access_control_list"]
                for level in entry["all_permissions"] if not level.get("inherited")]

    def status(self, path: str) -> int:
        return requests.get(f"{self.info.base_url}{path}", headers=self.headers,
                            timeout=10).status_code


@dataclasses.dataclass
class Scenario:
    info: EmulatorInfo
    workspace: Workspace
    suffix: str
    objects: dict[str, Any]
    stack: PulumiCli
    factory: StackFactory

    @property
    def folder(self) -> str:
        return str(self.objects["directories"][0]["path"])

    def item(self, key: str) -> dict[str, Any]:
        [item] = self.objects[key]
        return dict(item)

    @property
    def ids(self) -> dict[str, Any]:
        """The stack's outputs: each kind's ids by item name."""
        return dict(self.stack.outputs())


@pytest.fixture(scope="class")
def scenario(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    suffix = uuid.uuid4().hex[:6]
    objects = declared(suffix)
    stack = workspace_stack(wire_form="public", **objects)
    return Scenario(emulator, Workspace(emulator), suffix, objects, stack, workspace_stack)


@pytest.mark.steps
class TestMlAndAnalyticsInOneStack:
    def test_1_up_makes_each_object_as_declared_and_runs_the_job_then_writes_nothing(
        self, scenario: Scenario
    ) -> None:
        scenario.stack.up()
        ids, workspace = scenario.ids, scenario.workspace
        model = scenario.item("registeredModels")["name"]
        endpoint = workspace.endpoint(scenario.item("servingEndpoints")["name"])
        [served] = endpoint["config"]["served_entities"]
        assert (served["entity_name"], served["entity_version"]) == (model, "1"), "1. served"
        assert endpoint["state"]["ready"] == "READY", "1. the endpoint waited for"
        dashboard_id = ids["dashboards"]["sales"]
        dashboard = workspace.dashboard(dashboard_id)
        declared_content = json.loads((REPO_ROOT / DASHBOARD).read_text())
        assert normal_digest(json.loads(dashboard["serialized_dashboard"])) == normal_digest(
            declared_content), "1. the dashboard from its file"
        assert workspace.call("GET", f"{LAKEVIEW}/{dashboard_id}/published"), "1. published"
        query_id, alert_id = ids["queries"]["orders-per-day"], ids["alerts"]["few-orders"]
        query = workspace.call("GET", f"/api/2.0/sql/queries/{query_id}")
        assert query["query_text"] == (REPO_ROOT / QUERY).read_text(), "1. the query's file"
        alert = workspace.call("GET", f"/api/2.0/sql/alerts/{alert_id}")
        assert alert["query_id"] == query_id, "1. the alert on the query item"
        app = workspace.call("GET", f"/api/2.0/apps/{scenario.item('apps')['name']}")
        folder = scenario.folder
        assert app["active_deployment"]["source_code_path"] == f"{folder}-app", "1. deployed"
        job = workspace.call("GET", "/api/2.2/jobs/get", params={
            "job_id": ids["jobs"][f"bi-refresh-{scenario.suffix}"]})["settings"]
        tasks = {task["task_key"]: task for task in job["tasks"]}
        assert tasks["refresh"]["dashboard_task"]["dashboard_id"] == dashboard_id
        assert tasks["check"]["sql_task"]["alert"]["alert_id"] == alert_id
        assert ids["job_runs"]["bi-run"]["result_state"] == "SUCCESS", "1. the run"
        # Each object's permissions, the endpoint's by its id (the item names it by name).
        assert ids["serving_endpoints"][endpoint["name"]] == endpoint["id"]
        experiment_id = ids["experiments"][f"{folder}/churn"]
        for object_type, object_id, level in (
                ("experiments", experiment_id, "CAN_READ"),
                ("serving-endpoints", endpoint["id"], "CAN_QUERY"),
                ("sql/queries", query_id, "CAN_VIEW"), ("sql/alerts", alert_id, "CAN_VIEW"),
                ("dashboards", dashboard_id, "CAN_READ"), ("apps", app["name"], "CAN_USE")):
            assert ("analysts", level) in workspace.acl(object_type, object_id), object_type
        grants = workspace.call("GET", f"/api/2.1/unity-catalog/permissions/function/{model}")
        assert {"principal": "analysts", "privileges": ["EXECUTE"]} in grants[
            "privilege_assignments"], "1. analysts may execute the model"
        assert_no_changes(scenario.stack, scenario.info, "1.")

    def test_2_an_alias_and_comments_of_several_kinds_change_in_place_in_one_up(
        self, scenario: Scenario
    ) -> None:
        model = scenario.item("registeredModels")["name"]
        assert [scenario.workspace.register_version(model, run) for run in ("r1", "r2")] == [
            1, 2], "2. the training run's versions"
        objects = copy.deepcopy(scenario.objects)
        objects["registeredModels"][0].update(comment="Scores churn risk weekly",
                                              aliases={"champion": 1})
        objects["queries"][0]["description"] = "Orders of the last week, per day"
        objects["alerts"][0]["custom_subject"] = "Orders are low"
        objects["apps"][0]["description"] = "churn lookups for support"
        objects["experiments"][0]["tags"]["stage"] = "weekly"
        reconfigure(scenario, objects)
        experiment = objects["experiments"][0]["name"]
        assert changed_in_preview(scenario.stack) == {
            model: "update", "orders-per-day": "update", "few-orders": "update",
            objects["apps"][0]["name"]: "update", experiment: "update"}, "2. in place"
        clear_request_log(scenario.info)
        scenario.stack.up()
        assert not [w for w in platform_writes(scenario.info)
                    if w.startswith(("POST", "DELETE")) and "/tags" not in w
                    and "set-experiment-tag" not in w], "2. nothing made or deleted"
        found = scenario.workspace.model(model)
        assert found["comment"] == "Scores churn risk weekly", "2. the comment"
        assert [(a["alias_name"], a["version_num"]) for a in found["aliases"]] == [
            ("champion", 1)], "2. the alias on the first version"
        query = scenario.workspace.call(
            "GET", f"/api/2.0/sql/queries/{scenario.ids['queries']['orders-per-day']}")
        assert query["description"] == "Orders of the last week, per day", "2. the query's"
        assert_no_changes(scenario.stack, scenario.info, "2. the model with its alias")

    def test_3_the_served_version_moves_from_the_aliases_to_the_new_one_by_one_config_update(
        self, scenario: Scenario
    ) -> None:
        name = scenario.item("servingEndpoints")["name"]
        endpoint_id = scenario.workspace.endpoint(name)["id"]
        objects = copy.deepcopy(scenario.objects)
        objects["servingEndpoints"][0]["config"]["served_entities"][0]["entity_version"] = "2"
        reconfigure(scenario, objects)
        assert changed_in_preview(scenario.stack) == {name: "update"}, "3. preview"
        clear_request_log(scenario.info)
        scenario.stack.up()
        assert platform_writes(scenario.info) == [f"PUT {SERVING}/{name}/config"], (
            "3. one config update, nothing else written")
        endpoint = scenario.workspace.endpoint(name)
        [served] = endpoint["config"]["served_entities"]
        assert served["entity_version"] == "2", "3. the new version served"
        assert (endpoint["id"], endpoint["state"]["config_update"]) == (
            endpoint_id, "NOT_UPDATING"), "3. the same endpoint, its update waited for"
        assert_no_changes(scenario.stack, scenario.info, "3.")

    def test_4_a_dashboard_edited_outside_shows_in_a_refreshed_preview_and_is_put_back(
        self, scenario: Scenario
    ) -> None:
        dashboard_id = scenario.ids["dashboards"]["sales"]
        declared_content = json.loads((REPO_ROOT / DASHBOARD).read_text())
        edited = copy.deepcopy(declared_content)
        edited["pages"][0]["displayName"] = "Sales (edited in the UI)"
        scenario.workspace.call("PATCH", f"{LAKEVIEW}/{dashboard_id}",
                                json={"serialized_dashboard": json.dumps(edited)})
        assert changed_in_preview(scenario.stack) == {}, "4. unrefreshed: the record's view"
        assert changed_in_preview(scenario.stack, "--refresh") == {"sales": "update"}, "4."
        scenario.stack.up("--refresh")
        content = json.loads(scenario.workspace.dashboard(dashboard_id)["serialized_dashboard"])
        assert normal_digest(content) == normal_digest(declared_content), "4. put back"
        assert_no_changes(scenario.stack, scenario.info, "4.")

    def test_5_a_second_stack_imports_each_kind_by_id_with_no_write_and_no_change(
        self, scenario: Scenario
    ) -> None:
        ids = scenario.ids
        warehouse = ids["sql_warehouses"][scenario.item("sqlWarehouses")["name"]]
        query_id = ids["queries"]["orders-per-day"]
        model, endpoint = scenario.item("registeredModels"), scenario.item("servingEndpoints")
        experiment, app = scenario.item("experiments"), scenario.item("apps")
        folder = scenario.folder
        imported = {
            "registeredModels": [{"name": model["name"], "comment": model["comment"],
                                  "aliases": model["aliases"], "import": model["name"]}],
            "experiments": [{**experiment, "import": ids["experiments"][experiment["name"]]}],
            "servingEndpoints": [{**endpoint, "import": endpoint["name"]}],
            "queries": [{**scenario.item("queries"), "warehouse_id": warehouse,
                         "import": query_id}],
            "alerts": [{**scenario.item("alerts"), "query_id": query_id,
                        "import": ids["alerts"]["few-orders"]}],
            "dashboards": [{**scenario.item("dashboards"), "warehouse_id": warehouse,
                            "import": ids["dashboards"]["sales"]}],
            "apps": [{"name": app["name"], "description": app["description"],
                      "source_code_path": f"{folder}-app", "resources": app["resources"],
                      "import": app["name"]}],
        }
        importer = scenario.factory(wire_form="public", **imported)
        clear_request_log(scenario.info)
        up = importer.up()
        assert "7 imported" in up.stdout, up.stdout
        assert platform_writes(scenario.info) == [], "5. the import wrote to the workspace"
        assert_no_changes(importer, scenario.info, "5. after the import")

    def test_6_destroy_removes_every_object(self, scenario: Scenario) -> None:
        ids, workspace = scenario.ids, scenario.workspace
        model = scenario.item("registeredModels")["name"]
        endpoint, app = scenario.item("servingEndpoints")["name"], scenario.item("apps")["name"]
        scenario.stack.destroy()
        assert workspace.status(f"{MODELS}/{model}") == 404, "6. the model, its versions too"
        assert workspace.status(f"{SERVING}/{endpoint}") == 404, "6. the endpoint"
        assert workspace.status(f"/api/2.0/apps/{app}") == 404, "6. the app"
        dashboard = workspace.dashboard(ids["dashboards"]["sales"])
        assert dashboard["lifecycle_state"] == "TRASHED", "6. the dashboard in the trash"
        for kind, item in (("queries", "orders-per-day"), ("alerts", "few-orders")):
            found = workspace.call("GET", f"/api/2.0/sql/{kind}/{ids[kind][item]}")
            assert found["lifecycle_state"] == "TRASHED", f"6. the {kind} in the trash"
        experiment_id = ids["experiments"][scenario.item("experiments")["name"]]
        found = workspace.call("GET", "/api/2.0/mlflow/experiments/get",
                               params={"experiment_id": experiment_id})["experiment"]
        assert found["lifecycle_stage"] == "deleted", "6. the experiment in the trash"
