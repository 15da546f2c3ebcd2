"""Pipelines under the real engine against the emulator, tied to what runs them: one stack
uploads a wheel into a volume and a notebook into the workspace, declares a pipeline on the
notebook publishing to the stack's schema, one update of it, a job whose first task runs the
pipeline and whose second runs the wheel, one run of that job, and a group's CAN_VIEW on
the pipeline; each names the others by their items.

The steps (issue 42): up, the update and the run succeeding, then an up that writes nothing;
a setting changed in place while one made outside the stack and never declared survives;
the wheel rebuilt locally uploads again and nothing else changes; a declared setting changed
outside shows in `preview --refresh` and the up puts it back; the pipeline imported by its
id by a second stack with no write and no change after; destroy."""

from __future__ import annotations

import copy
import dataclasses
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
WHEEL = "stacks/wheels/demo_tasks-0.1.0-py3-none-any.whl"
REBUILT = "tests/e2e/data/demo_tasks-0.1.0-rebuilt.whl"
NOTEBOOK = "stacks/notebooks/orders_pipeline.py"
PIPELINES = "/api/2.0/pipelines"
ONCALL = [{"email_recipients": ["oncall@example.com"], "alerts": ["on-update-failure"]}]


def declared(suffix: str) -> dict[str, list[dict[str, Any]]]:
    catalog = f"pl_{suffix}"
    volume = f"/Volumes/{catalog}/bronze/libs"
    return {
        "catalogs": [{"name": catalog}],
        "schemas": [{"name": f"{catalog}.bronze", "catalog": catalog}],
        "volumes": [{"name": f"{catalog}.bronze.libs", "schema": f"{catalog}.bronze",
                     "volume_type": "MANAGED"}],
        "notebooks": [{"name": "orders-notebook", "path": f"/Shared/pl-{suffix}/orders",
                       "source": NOTEBOOK}],
        "volumeFiles": [{"name": "tasks-wheel", "source": WHEEL,
                         "path": f"{volume}/wheels/demo_tasks-0.1.0-py3-none-any.whl"}],
        "pipelines": [{"name": "orders", "catalog": catalog, "schema": f"{catalog}.bronze",
                       "serverless": True, "development": True,
                       "libraries": [{"notebook": {"path": "orders-notebook"}}],
                       "configuration": {"source": f"{volume}/orders/"}}],
        "pipelineUpdates": [{"name": "orders-refresh", "pipeline": "orders",
                             "full_refresh": True, "trigger": "1"}],
        "jobs": [{"name": f"orders-job-{suffix}", "job_clusters": [
            {"job_cluster_key": "scoring", "new_cluster": {
                "spark_version": "15.4.x-scala2.12", "node_type_id": "Standard_DS3_v2",
                "num_workers": 1}}],
            "tasks": [
                {"task_key": "refresh", "pipeline_task": {"pipeline_id": "orders"}},
                {"task_key": "score", "depends_on": [{"task_key": "refresh"}],
                 "job_cluster_key": "scoring",
                 "python_wheel_task": {"package_name": "demo_tasks", "entry_point": "score"},
                 "libraries": [{"whl": "tasks-wheel"}]}]}],
        "jobRuns": [{"name": "orders-run", "job": f"orders-job-{suffix}", "trigger": "1"}],
        "permissions": [{"name": "orders-viewers", "object_type": "pipelines",
                         "object_id": "orders", "access_controls": [
                             {"group_name": "analysts", "permission_level": "CAN_VIEW"}]}],
    }


class Workspace(PlatformApi):
    def pipeline(self, pipeline_id: str) -> dict[str, Any]:
        return dict(self.call("GET", f"{PIPELINES}/{pipeline_id}"))

    def edit_outside(self, pipeline_id: str, **changes: Any) -> None:
        """An edit made outside the stack: the whole spec, `changes` applied."""
        spec = {**self.pipeline(pipeline_id)["spec"], **changes}
        self.call("PUT", f"{PIPELINES}/{pipeline_id}", json=spec)


@dataclasses.dataclass
class Scenario:
    info: EmulatorInfo
    workspace: Workspace
    suffix: str
    objects: dict[str, Any]
    stack: PulumiCli
    factory: StackFactory

    @property
    def pipeline_id(self) -> str:
        return str(self.stack.outputs()["pipelines"]["orders"])

    @property
    def wheel_path(self) -> str:
        return str(self.objects["volumeFiles"][0]["path"])


@pytest.fixture(scope="class")
def scenario(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    suffix = uuid.uuid4().hex[:6]
    objects = declared(suffix)
    stack = workspace_stack(wire_form="public", **objects)
    return Scenario(emulator, Workspace(emulator), suffix, objects, stack, workspace_stack)


@pytest.mark.steps
class TestPipelinesWithWhatRunsThem:
    def test_1_up_runs_the_update_and_the_job_then_writes_nothing(
        self, scenario: Scenario
    ) -> None:
        scenario.stack.up()
        outputs = scenario.stack.outputs()
        pipeline = scenario.workspace.pipeline(scenario.pipeline_id)
        catalog = f"pl_{scenario.suffix}"
        spec = pipeline["spec"]
        assert (spec["catalog"], spec["schema"]) == (catalog, "bronze"), "1. the schema item"
        notebook = scenario.objects["notebooks"][0]["path"]
        assert spec["libraries"] == [{"notebook": {"path": notebook}}], "1. the notebook item"
        [update] = [u for u in pipeline["latest_updates"]]
        assert update["state"] == "COMPLETED", f"1. the pipeline's update: {pipeline}"
        assert outputs["job_runs"]["orders-run"]["result_state"] == "SUCCESS", "1. the run"
        job = scenario.workspace.call("GET", "/api/2.2/jobs/get", params={
            "job_id": outputs["jobs"][f"orders-job-{scenario.suffix}"]})["settings"]
        tasks = {task["task_key"]: task for task in job["tasks"]}
        assert tasks["refresh"]["pipeline_task"]["pipeline_id"] == scenario.pipeline_id
        assert tasks["score"]["libraries"] == [{"whl": scenario.wheel_path}]
        wheel = (REPO_ROOT / WHEEL).read_bytes()
        assert scenario.workspace.file(scenario.wheel_path) == wheel, "1. the wheel uploaded"
        acl = scenario.workspace.call("GET", f"/api/2.0/permissions/pipelines/"
                                             f"{scenario.pipeline_id}")["access_control_list"]
        assert {"group_name": "analysts", "level": "CAN_VIEW"} in [
            {"group_name": entry.get("group_name"), "level": level["permission_level"]}
            for entry in acl for level in entry["all_permissions"]], "1. analysts may view"
        assert_no_changes(scenario.stack, scenario.info, "1.")

    def test_2_a_change_in_place_keeps_a_setting_made_outside_the_stack(
        self, scenario: Scenario
    ) -> None:
        pipeline_id = scenario.pipeline_id
        scenario.workspace.edit_outside(pipeline_id, notifications=ONCALL)
        objects = copy.deepcopy(scenario.objects)
        objects["pipelines"][0]["configuration"]["mode"] = "full"
        reconfigure(scenario, objects)
        assert changed_in_preview(scenario.stack) == {"orders": "update"}, "2. preview"
        clear_request_log(scenario.info)
        scenario.stack.up()
        assert platform_writes(scenario.info) == [f"PUT {PIPELINES}/{pipeline_id}"], (
            "2. one edit of the pipeline, nothing else written")
        spec = scenario.workspace.pipeline(pipeline_id)["spec"]
        assert spec["configuration"]["mode"] == "full", "2. the declared change"
        assert spec["notifications"] == ONCALL, "2. the outside setting survives"
        assert scenario.pipeline_id == pipeline_id, "2. the same pipeline, changed in place"

    def test_3_the_wheel_rebuilt_locally_uploads_again_and_nothing_else(
        self, scenario: Scenario
    ) -> None:
        objects = copy.deepcopy(scenario.objects)
        objects["volumeFiles"][0]["source"] = REBUILT
        reconfigure(scenario, objects)
        clear_request_log(scenario.info)
        scenario.stack.up()
        folder = scenario.wheel_path.rsplit("/", 1)[0]
        assert platform_writes(scenario.info) == [
            f"PUT /api/2.0/fs/directories{folder}",
            f"PUT /api/2.0/fs/files{scenario.wheel_path}"], "3. the upload alone"
        rebuilt = (REPO_ROOT / REBUILT).read_bytes()
        assert scenario.workspace.file(scenario.wheel_path) == rebuilt, "3. the new wheel"

    def test_4_a_declared_setting_changed_outside_shows_in_a_refreshed_preview(
        self, scenario: Scenario
    ) -> None:
        pipeline_id = scenario.pipeline_id
        scenario.workspace.edit_outside(pipeline_id, development=False)
        assert changed_in_preview(scenario.stack) == {}, "4. unrefreshed: the record's view"
        assert changed_in_preview(scenario.stack, "--refresh") == {"orders": "update"}, "4."
        scenario.stack.up("--refresh")
        spec = scenario.workspace.pipeline(pipeline_id)["spec"]
        assert spec["development"] is True, "4. put back"
        assert spec["notifications"] == ONCALL, "4. the outside setting still there"
        assert_no_changes(scenario.stack, scenario.info, "4.")

    def test_5_a_second_stack_imports_the_pipeline_by_id_with_no_diff(
        self, scenario: Scenario
    ) -> None:
        declared_item = scenario.objects["pipelines"][0]
        catalog = f"pl_{scenario.suffix}"
        item = {**copy.deepcopy(declared_item), "import": scenario.pipeline_id,
                "schema": "bronze", "catalog": catalog,
                "libraries": [{"notebook": {"path": scenario.objects["notebooks"][0]["path"]}}]}
        importer = scenario.factory(wire_form="public", pipelines=[item])
        clear_request_log(scenario.info)
        up = importer.up()
        assert "1 imported" in up.stdout, up.stdout
        assert platform_writes(scenario.info) == [], "5. the import wrote to the workspace"
        assert_no_changes(importer, scenario.info, "5. after the import")

    def test_6_destroy_removes_the_pipeline_the_job_and_the_file_alone(
        self, scenario: Scenario
    ) -> None:
        pipeline_id = scenario.pipeline_id
        scenario.stack.destroy()
        gone = requests.get(f"{scenario.info.base_url}{PIPELINES}/{pipeline_id}",
                            headers=scenario.workspace.headers, timeout=10)
        assert gone.status_code == 404, "6. the pipeline deleted"
        assert scenario.workspace.file(scenario.wheel_path) is None, "6. the file deleted"
