"""A multi-task job using every family of Jobs API 2.2 settings, through the life of a stack
under the real engine against the emulator, in both wire forms (a step class each).

Tasks with dependencies and `run_if`, a condition task and a for-each task, a shared job
cluster, a schedule, email and webhook notifications, notification settings, health
rules, job parameters, a Git source, a queue, `run_as` a service principal of the
workspace, tags, a timeout and `max_concurrent_runs`. The steps: preview and up; a no-op up
that writes nothing; one task's field changed in place (named by `preview --diff` and by the
pull-request summary); reordered tasks are no change; a removed task goes alone; a schedule
added out of band survives; declared fields changed out of band (a task's among them) show
in a refresh and are restored by up; import by id shows no diff; destroy deletes the job.
A field changed out of band is named by the preview too (the provider's detailed diff).
"""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from providers.client import NotFound, WorkspaceClient
from providers.client.wire import WireForm
from providers.jobs.job_diff import canonical
from providers.jobs.jobs_api import JOBS_PATHS, JobsApi
from stacks.pulumi_cli import PulumiCli
from tests.conftest import emulator_client
from tests.e2e.conftest import StackFactory, import_stack, summary_of, write_config
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

pytestmark = pytest.mark.engine

JOB_NAME = "full-depth-etl"
JOB_TYPE = "pulumi-python:dynamic/workspace:Job"
SHARED_CLUSTER = "0101-120000-shared01"  # a cluster of the emulator's initial data
AUDIT_TASK = {
    "task_key": "audit",
    "existing_cluster_id": SHARED_CLUSTER,
    "notebook_task": {"notebook_path": "/Workspace/Shared/audit", "source": "WORKSPACE"},
}
OUT_OF_BAND_SCHEDULE = {
    "quartz_cron_expression": "0 0 5 ? * MON-FRI",
    "timezone_id": "UTC",
    "pause_status": "UNPAUSED",
}


def full_depth_job(run_as_application_id: str) -> dict[str, Any]:
    """The job as the stack's config declares it: `jobs get` settings, every family."""
    return {
        "name": JOB_NAME,
        "description": "Ingests the day's data, checks it, transforms it and exports it.",
        "tags": {"team": "data-eng", "tier": "gold"},
        "timeout_seconds": 7200,
        "max_concurrent_runs": 2,
        "queue": {"enabled": True},
        "run_as": {"service_principal_name": run_as_application_id},
        "schedule": {
            "quartz_cron_expression": "0 30 2 * * ?",
            "timezone_id": "Europe/Amsterdam",
            "pause_status": "UNPAUSED",
        },
        "email_notifications": {
            "on_failure": ["oncall@example.com"],
            "on_success": ["data-eng@example.com"],
        },
        "webhook_notifications": {"on_failure": [{"id": "0481e838-0a59-4eff-9541-a4ca6f149574"}]},
        "notification_settings": {
            "no_alert_for_skipped_runs": True,
            "no_alert_for_canceled_runs": True,
        },
        "health": {
            "rules": [{"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN", "value": 3600}]
        },
        "parameters": [
            {"name": "run_date", "default": "{{job.start_time.iso_date}}"},
            {"name": "countries", "default": '["NL", "BE", "DE"]'},
        ],
        "git_source": {
            "git_url": "https://github.com/example-org/data-pipelines.git",
            "git_provider": "gitHub",
            "git_branch": "main",
        },
        "job_clusters": [
            {
                "job_cluster_key": "shared",
                "new_cluster": {
                    "spark_version": "15.4.x-scala2.12",
                    "node_type_id": "Standard_D4ds_v5",
                    "autoscale": {"min_workers": 1, "max_workers": 4},
                    "spark_env_vars": {"ENVIRONMENT": "e2e"},
                },
            }
        ],
        "tasks": [
            {
                "task_key": "ingest",
                "job_cluster_key": "shared",
                "spark_python_task": {
                    "python_file": "jobs/ingest.py",
                    "parameters": ["--date", "{{job.parameters.run_date}}"],
                },
                "libraries": [{"pypi": {"package": "requests==2.32.3"}}],
                "max_retries": 2,
                "min_retry_interval_millis": 60000,
                "timeout_seconds": 1800,
            },
            {
                "task_key": "has_rows",
                "depends_on": [{"task_key": "ingest"}],
                "condition_task": {
                    "op": "GREATER_THAN",
                    "left": "{{tasks.ingest.values.rows}}",
                    "right": "0",
                },
            },
            {
                "task_key": "transform",
                "depends_on": [{"task_key": "has_rows", "outcome": "true"}],
                "job_cluster_key": "shared",
                "notebook_task": {
                    "notebook_path": "notebooks/transform",
                    "base_parameters": {"date": "{{job.parameters.run_date}}"},
                },
            },
            {
                "task_key": "export",
                "depends_on": [{"task_key": "transform"}],
                "for_each_task": {
                    "inputs": "{{job.parameters.countries}}",
                    "concurrency": 2,
                    "task": {
                        "task_key": "export_country",
                        "job_cluster_key": "shared",
                        "notebook_task": {
                            "notebook_path": "notebooks/export",
                            "base_parameters": {"country": "{{input}}"},
                        },
                    },
                },
            },
            {
                "task_key": "report",
                "depends_on": [
                    {"task_key": "export"},
                    {"task_key": "has_rows", "outcome": "false"},
                ],
                "run_if": "AT_LEAST_ONE_SUCCESS",
                "existing_cluster_id": SHARED_CLUSTER,
                "spark_python_task": {
                    "python_file": "/Workspace/Shared/report.py",
                    "source": "WORKSPACE",
                },
                "email_notifications": {"on_failure": ["report-owners@example.com"]},
                "health": {
                    "rules": [
                        {"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN", "value": 600}
                    ]
                },
            },
        ],
    }


def task(settings: dict[str, Any], key: str) -> dict[str, Any]:
    return next(t for t in settings["tasks"] if t["task_key"] == key)


# --- what the engine and the emulator say ----------------------------------------------------


def job_ops(preview_json: str) -> dict[str, str]:
    """The op of each Job step of a `preview --json`, by resource name."""
    return {
        step["urn"].rsplit("::", 1)[-1]: step["op"]
        for step in json.loads(preview_json).get("steps", [])
        if step["urn"].split("::")[-2] == JOB_TYPE
    }


def refreshed_job(stack: PulumiCli) -> tuple[str, dict[str, Any]]:
    """`pulumi refresh` of the stack: the job's op ("same" or "update": read as changed) and
    the outputs read."""
    for line in stack.refresh("--json").stdout.splitlines():
        event = json.loads(line).get("resOutputsEvent")
        if event and event["metadata"]["type"] == JOB_TYPE:
            metadata = event["metadata"]
            return metadata["op"], (metadata.get("new") or {}).get("outputs") or {}
    raise AssertionError("the refresh did not read the job")


def writes(info: EmulatorInfo) -> list[str]:
    """The platform requests that may change something, as `METHOD path`."""
    return [
        f"{r['method']} {r['path']}"
        for r in request_log(info)
        if r["service"] == "platform" and r["method"] != "GET"
    ]


def assert_live_as_declared(live: dict[str, Any], declared: dict[str, Any]) -> None:
    """The job's settings equal the declaration apart from what the service fills in."""
    assert canonical(live, declared=declared) == canonical(declared)


@dataclasses.dataclass
class Scenario:
    """One stack declaring the job, and what the steps hand on."""

    wire_form: str
    info: EmulatorInfo
    client: WorkspaceClient
    stack: PulumiCli
    declared: dict[str, Any]
    job_id: int = 0

    @property
    def update_path(self) -> str:
        return f"{JOBS_PATHS[WireForm(self.wire_form)]}/update"

    def live(self, job_id: int | None = None) -> dict[str, Any]:
        return JobsApi(self.client).get(job_id or self.job_id)["settings"]

    def declare(self, settings: dict[str, Any]) -> None:
        self.declared = settings
        write_config(self.stack, {"workspace:jobs": [settings]})


@pytest.fixture(scope="class")
def scenario(
    request: pytest.FixtureRequest, workspace_stack: StackFactory, emulator: EmulatorInfo
) -> Scenario:
    wire_form = request.cls.wire_form
    declared = full_depth_job(emulator.client_id)
    stack = workspace_stack(wire_form=wire_form, jobs=[declared])
    return Scenario(wire_form, emulator, emulator_client(emulator, wire_form), stack, declared)


@pytest.mark.steps
class FullDepthJobLifecycle:
    """The steps, in order, of one stack in the wire form `wire_form` (a subclass each)."""

    wire_form = ""

    def test_01_preview_lists_the_create(self, scenario: Scenario) -> None:
        text = scenario.stack.preview()
        # The stack, the WorkspaceAuth component, its provider and the job.
        assert "+ 4 to create" in text.stdout, text.stdout
        assert f"{JOB_TYPE} {JOB_NAME} create" in " ".join(text.stdout.split())
        assert job_ops(scenario.stack.preview("--json").stdout) == {JOB_NAME: "create"}

    def test_02_up_creates_it_as_declared(self, scenario: Scenario) -> None:
        scenario.stack.up()
        scenario.job_id = int(scenario.stack.outputs()["jobs"][JOB_NAME])
        job = JobsApi(scenario.client).get(scenario.job_id)
        assert job["run_as_user_name"] == scenario.info.client_id
        live = job["settings"]
        assert [t["task_key"] for t in live["tasks"]] == [
            "ingest", "has_rows", "transform", "export", "report"
        ]
        assert live["tags"]["pulumi-deployment"] == f"workspace/e2e/{JOB_NAME}"
        assert_live_as_declared(live, scenario.declared)

    def test_03_a_second_up_writes_nothing(self, scenario: Scenario) -> None:
        clear_request_log(scenario.info)
        scenario.stack.up("--expect-no-changes")
        assert writes(scenario.info) == []

    def test_04_one_task_field_previews_an_update_naming_it(self, scenario: Scenario) -> None:
        changed = copy.deepcopy(scenario.declared)
        task(changed, "ingest")["max_retries"] = 5
        scenario.declare(changed)
        stack = scenario.stack
        preview = stack.preview("--json").stdout
        assert job_ops(preview) == {JOB_NAME: "update"}
        summary = summary_of(preview)
        assert "`tasks[ingest].max_retries`: `2` → `5`" in summary, summary
        assert summary.count("`tasks[") == 1, summary  # that field alone
        diff = stack.preview("--diff").stdout
        assert "max_retries" in diff and "2 => 5" in " ".join(diff.split()), diff

    def test_05_up_applies_it_in_place(self, scenario: Scenario) -> None:
        clear_request_log(scenario.info)
        scenario.stack.up()
        assert writes(scenario.info) == [f"POST {scenario.update_path}"]
        assert int(scenario.stack.outputs()["jobs"][JOB_NAME]) == scenario.job_id
        live = scenario.live()
        assert task(live, "ingest")["max_retries"] == 5
        assert_live_as_declared(live, scenario.declared)

    def test_06_reordered_tasks_and_lists_are_no_change(self, scenario: Scenario) -> None:
        reordered = copy.deepcopy(scenario.declared)
        reordered["tasks"].reverse()
        reordered["parameters"].reverse()
        task(reordered, "report")["depends_on"].reverse()
        scenario.declare(reordered)
        scenario.stack.preview("--expect-no-changes")
        clear_request_log(scenario.info)
        scenario.stack.up("--expect-no-changes")
        assert writes(scenario.info) == []

    def test_07_removing_a_task_removes_that_task_alone(self, scenario: Scenario) -> None:
        fewer = copy.deepcopy(scenario.declared)
        fewer["tasks"] = [t for t in fewer["tasks"] if t["task_key"] != "report"]
        scenario.declare(fewer)
        assert job_ops(scenario.stack.preview("--json").stdout) == {JOB_NAME: "update"}
        # A task someone added outside the stack, which a reset (or a new task list) would
        # take away too.
        JobsApi(scenario.client).update(scenario.job_id, {"tasks": [AUDIT_TASK]})
        clear_request_log(scenario.info)
        scenario.stack.up()
        # One jobs/update: it merges tasks by key, so only `fields_to_remove: ["tasks/report"]`
        # can have taken that task away, and the other one stays.
        assert writes(scenario.info) == [f"POST {scenario.update_path}"]
        live = scenario.live()
        assert sorted(t["task_key"] for t in live["tasks"]) == [
            "audit", "export", "has_rows", "ingest", "transform"
        ]
        JobsApi(scenario.client).update(scenario.job_id, {}, ["tasks/audit"])
        assert_live_as_declared(scenario.live(), fewer)
        scenario.stack.preview("--expect-no-changes")

    def test_08_a_schedule_added_out_of_band_survives(self, scenario: Scenario) -> None:
        unscheduled = copy.deepcopy(scenario.declared)
        del unscheduled["schedule"]
        scenario.declare(unscheduled)
        scenario.stack.up()
        assert "schedule" not in scenario.live()  # removed: the stack declared it before

        JobsApi(scenario.client).update(scenario.job_id, {"schedule": OUT_OF_BAND_SCHEDULE})
        scenario.stack.refresh()
        scenario.stack.preview("--expect-no-changes")
        # An update of something else leaves it as it is.
        described = copy.deepcopy(unscheduled)
        described["description"] = "Now with an out-of-band schedule."
        scenario.declare(described)
        clear_request_log(scenario.info)
        scenario.stack.up()
        assert writes(scenario.info) == [f"POST {scenario.update_path}"]
        live = scenario.live()
        assert live["description"] == described["description"]
        assert live["schedule"] == OUT_OF_BAND_SCHEDULE
        scenario.stack.preview("--expect-no-changes")

    def test_09_declared_fields_changed_out_of_band_are_restored(
        self, scenario: Scenario
    ) -> None:
        transform = copy.deepcopy(task(scenario.live(), "transform"))
        transform["notebook_task"]["notebook_path"] = "notebooks/transform_hotfix"
        drift = {
            "max_concurrent_runs": 9,
            "health": {
                "rules": [{"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN", "value": 60}]
            },
            "tasks": [transform],
        }
        JobsApi(scenario.client).update(scenario.job_id, drift)
        stack = scenario.stack
        # (`refresh --preview-only` is younger than the pinned engine: refresh, then preview.)
        op, read = refreshed_job(stack)
        assert op == "update"
        assert read["max_concurrent_runs"] == 9
        assert read["health"] == drift["health"]
        assert task(read, "transform")["notebook_task"]["notebook_path"] == (
            "notebooks/transform_hotfix"
        )
        assert job_ops(stack.preview("--json").stdout) == {JOB_NAME: "update"}

        clear_request_log(scenario.info)
        stack.up()
        assert writes(scenario.info) == [f"POST {scenario.update_path}"]
        restored = scenario.live()
        assert restored.pop("schedule") == OUT_OF_BAND_SCHEDULE  # still not the stack's
        assert_live_as_declared(restored, scenario.declared)
        stack.preview("--expect-no-changes")

    def test_10_import_by_id_shows_no_diff(self, scenario: Scenario, tmp_path: Path) -> None:
        settings = {**copy.deepcopy(scenario.declared), "name": f"{JOB_NAME}-imported"}
        job_id = JobsApi(scenario.client).create(settings)
        stack = import_stack(tmp_path, scenario.info, scenario.wire_form)
        write_config(stack, {"workspace:objects": {"Job": {"id": str(job_id), "args": settings}}})
        clear_request_log(scenario.info)
        up = stack.up()
        assert "1 imported" in up.stdout, up.stdout
        assert writes(scenario.info) == []
        stack.preview("--expect-no-changes")
        stack.refresh("--expect-no-changes")
        stack.preview("--expect-no-changes")
        stack.destroy()
        gone = f"404 RESOURCE_DOES_NOT_EXIST: Job {job_id} does not exist"
        with pytest.raises(NotFound, match=gone):
            JobsApi(scenario.client).get(job_id)

    def test_11_destroy_deletes_it(self, scenario: Scenario) -> None:
        scenario.stack.destroy()
        gone = f"404 RESOURCE_DOES_NOT_EXIST: Job {scenario.job_id} does not exist"
        with pytest.raises(NotFound, match=gone):
            JobsApi(scenario.client).get(scenario.job_id)
        assert not [
            job for job in JobsApi(scenario.client).list() if job["settings"]["name"] == JOB_NAME
        ]


class TestFullDepthJobInThePublicForm(FullDepthJobLifecycle):
    wire_form = "public"


# --- what a preview says of a change made out of band -----------------------------------------


def drift_a_task(workspace_stack: StackFactory, emulator: EmulatorInfo) -> Scenario:
    """The job deployed (public form), then `tasks[transform]`'s notebook path changed
    through the API, and the stack refreshed."""
    declared = full_depth_job(emulator.client_id)
    stack = workspace_stack(wire_form="public", jobs=[declared])
    scenario = Scenario("public", emulator, emulator_client(emulator, "public"), stack, declared)
    stack.up()
    scenario.job_id = int(stack.outputs()["jobs"][JOB_NAME])
    drifted = copy.deepcopy(task(scenario.live(), "transform"))
    drifted["notebook_task"]["notebook_path"] = "notebooks/transform_hotfix"
    JobsApi(scenario.client).update(scenario.job_id, {"tasks": [drifted]})
    op, _ = refreshed_job(stack)
    assert op == "update"
    return scenario


def test_the_preview_names_a_field_changed_out_of_band(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    scenario = drift_a_task(workspace_stack, emulator)
    path = "tasks[transform].notebook_task.notebook_path"
    summary = summary_of(scenario.stack.preview("--json").stdout)
    assert f'`{path}`: `"notebooks/transform_hotfix"` → `"notebooks/transform"`' in summary
    diff = " ".join(scenario.stack.preview("--diff").stdout.split())
    assert '"notebooks/transform_hotfix" => "notebooks/transform"' in diff, diff
