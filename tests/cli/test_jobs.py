"""`databricks jobs` and `databricks permissions` on jobs: one multi-task job through its
life, in steps (create, read, change, run, cancel, permissions, delete), plus a job the
legacy form created read back by the CLI (the public form)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.cli import Cli
from tests.conftest import emulator_fixture
from tests.emulator.support import SP_SCHEMA, Api, legacy_form_job_body, unique
from workspace_emulator.testing import fetch_token, register_application

# Runs take two transitions of two seconds: `run-now` without --no-wait really waits, and a
# run started with --no-wait is still active when the next command cancels it.
emulator = emulator_fixture("module", transition_seconds=2)

JOB_NAME = "cli-multi-task"


def multi_task_settings(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "max_concurrent_runs": 2,
        "tags": {"team": "platform"},
        "job_clusters": [{"job_cluster_key": "shared", "new_cluster": {
            "spark_version": "13.3.x-scala2.12", "node_type_id": "Standard_DS3_v2",
            "num_workers": 1}}],
        "tasks": [
            {"task_key": "ingest", "job_cluster_key": "shared",
             "spark_python_task": {"python_file": "dbfs:/jobs/ingest.py"}},
            {"task_key": "transform", "depends_on": [{"task_key": "ingest"}],
             "existing_cluster_id": "0101-120000-shared01",
             "notebook_task": {"notebook_path": "/Repos/iac/data-pipelines/transform"}},
        ],
    }


def _direct(acl: dict[str, Any]) -> dict[str, str]:
    """principal name -> its direct permission level."""
    levels = {}
    for entry in acl["access_control_list"]:
        name = entry.get("user_name") or entry.get("group_name") or \
            entry["service_principal_name"]
        for permission in entry["all_permissions"]:
            if not permission["inherited"]:
                levels[name] = permission["permission_level"]
    return levels


@pytest.fixture(scope="module")
def job_file(cli_home: Path) -> Path:
    path = cli_home / "job.json"
    path.write_text(json.dumps(multi_task_settings(JOB_NAME)))
    return path


@pytest.fixture(scope="module")
def job() -> dict[str, Any]:
    """What the steps learn about the job (its id, runs)."""
    return {}


@pytest.mark.steps
class TestJobLifecycle:
    def test_create_with_json_file(self, cli: Cli, job_file: Path, job: dict) -> None:
        created = cli.ok("jobs", "create", "--json", f"@{job_file}")
        job["id"] = str(created["job_id"])

    def test_get(self, cli: Cli, job: dict) -> None:
        got = cli.ok("jobs", "get", job["id"])
        settings = got["settings"]
        assert settings["name"] == JOB_NAME and settings["format"] == "MULTI_TASK"
        assert [t["task_key"] for t in settings["tasks"]] == ["ingest", "transform"]
        assert settings["tasks"][1]["depends_on"] == [{"task_key": "ingest"}]
        assert settings["job_clusters"][0]["job_cluster_key"] == "shared"

    def test_list_by_name(self, cli: Cli, job: dict) -> None:
        cli.ok("jobs", "create", "--json", json.dumps({"name": "cli-other-job"}))
        listed = cli.ok("jobs", "list", "--name", JOB_NAME)
        assert [str(j["job_id"]) for j in listed] == [job["id"]]
        assert cli.ok("jobs", "list", "--name", "no-such-job") in (None, [])

    def test_update_merges_settings(self, cli: Cli, job: dict) -> None:
        cli.ok("jobs", "update", "--json", json.dumps({
            "job_id": int(job["id"]), "new_settings": {"max_concurrent_runs": 3}}))
        settings = cli.ok("jobs", "get", job["id"])["settings"]
        assert settings["max_concurrent_runs"] == 3
        assert len(settings["tasks"]) == 2 and settings["tags"] == {"team": "platform"}

    def test_update_needs_the_job_id_in_the_json(self, cli: Cli, job: dict) -> None:
        # The CLI's own refusal: with --json, positional arguments are not allowed.
        result = cli.run("jobs", "update", job["id"], "--json", '{"new_settings": {}}')
        assert result.returncode != 0
        assert "no positional arguments are allowed" in result.stderr

    def test_reset_replaces_settings(self, cli: Cli, job: dict) -> None:
        settings = multi_task_settings(JOB_NAME)
        settings["tasks"] = settings["tasks"][:1]
        del settings["tags"]
        cli.ok("jobs", "reset", "--json",
               json.dumps({"job_id": int(job["id"]), "new_settings": settings}))
        got = cli.ok("jobs", "get", job["id"])["settings"]
        assert [t["task_key"] for t in got["tasks"]] == ["ingest"]
        assert "tags" not in got and got["max_concurrent_runs"] == 2

    def test_run_now_waits_for_the_run(self, cli: Cli, job: dict) -> None:
        run = cli.ok("jobs", "run-now", job["id"])
        assert run["state"]["life_cycle_state"] == "TERMINATED"
        assert run["state"]["result_state"] == "SUCCESS"
        job["finished_run"] = str(run["run_id"])

    def test_get_run(self, cli: Cli, job: dict) -> None:
        run = cli.ok("jobs", "get-run", job["finished_run"])
        assert str(run["job_id"]) == job["id"]
        assert [t["task_key"] for t in run["tasks"]] == ["ingest"]

    def test_run_now_without_waiting_then_list_runs(self, cli: Cli, job: dict) -> None:
        started = cli.ok("jobs", "run-now", job["id"], "--no-wait")
        job["active_run"] = str(started["run_id"])
        active = cli.ok("jobs", "list-runs", "--job-id", job["id"], "--active-only")
        assert [str(r["run_id"]) for r in active] == [job["active_run"]]
        every = cli.ok("jobs", "list-runs", "--job-id", job["id"])
        assert [str(r["run_id"]) for r in every] == [job["active_run"], job["finished_run"]]

    def test_cancel_run_waits_until_it_ends(self, cli: Cli, job: dict) -> None:
        run = cli.ok("jobs", "cancel-run", job["active_run"])
        assert run["state"]["life_cycle_state"] == "TERMINATED"
        assert run["state"]["result_state"] == "CANCELED"
        assert cli.ok("jobs", "list-runs", "--job-id", job["id"], "--active-only") in (None, [])

    def test_cancel_of_an_ended_run_changes_nothing(self, cli: Cli, job: dict) -> None:
        assert cli.ok("jobs", "cancel-run", job["finished_run"], "--no-wait") is None
        run = cli.ok("jobs", "get-run", job["finished_run"])
        assert run["state"]["result_state"] == "SUCCESS"

    def test_cancel_all_runs(self, cli: Cli, job: dict) -> None:
        started = {str(cli.ok("jobs", "run-now", job["id"], "--no-wait")["run_id"])
                   for _ in range(2)}
        active = cli.ok("jobs", "list-runs", "--job-id", job["id"], "--active-only")
        assert {str(r["run_id"]) for r in active} == started
        assert cli.ok("jobs", "cancel-all-runs", "--job-id", job["id"]) is None
        assert cli.ok("jobs", "list-runs", "--job-id", job["id"], "--active-only") in (None, [])

    def test_permissions_get_and_levels(self, cli: Cli, emulator, job: dict) -> None:
        acl = cli.ok("permissions", "get", "jobs", job["id"])
        assert acl["object_id"] == f"/jobs/{job['id']}"
        assert _direct(acl) == {emulator.client_id: "IS_OWNER"}
        levels = cli.ok("permissions", "get-permission-levels", "jobs", job["id"])
        assert [level["permission_level"] for level in levels["permission_levels"]] == [
            "CAN_VIEW", "CAN_MANAGE_RUN", "CAN_MANAGE", "IS_OWNER"]
        assert cli.ok("jobs", "get-permission-levels", job["id"]) == levels

    def test_permissions_update_adds(self, cli: Cli, emulator, job: dict) -> None:
        acl = cli.ok("permissions", "update", "jobs", job["id"], "--json", json.dumps(
            {"access_control_list": [{"group_name": "analysts", "permission_level": "CAN_VIEW"}]}))
        assert _direct(acl) == {emulator.client_id: "IS_OWNER", "analysts": "CAN_VIEW"}

    def test_permissions_set_replaces_and_keeps_the_owner(self, cli: Cli, emulator,
                                                          job: dict) -> None:
        acl = cli.ok("permissions", "set", "jobs", job["id"], "--json", json.dumps(
            {"access_control_list": [
                {"user_name": "bob@example.com", "permission_level": "CAN_MANAGE_RUN"}]}))
        assert _direct(acl) == {emulator.client_id: "IS_OWNER", "bob@example.com": "CAN_MANAGE_RUN"}
        assert cli.ok("jobs", "get-permissions", job["id"]) == acl

    def test_permissions_set_naming_the_caller_by_its_me_user_name(self, cli: Cli, emulator,
                                                                   job: dict) -> None:
        # A service principal's /Me userName is its application id; naming it as user_name
        # (as the Terraform provider does for the caller) names the service principal.
        me = cli.ok("current-user", "me")["userName"]
        assert me == emulator.client_id
        acl = cli.ok("permissions", "set", "jobs", job["id"], "--json", json.dumps(
            {"access_control_list": [{"user_name": me, "permission_level": "IS_OWNER"}]}))
        assert _direct(acl) == {emulator.client_id: "IS_OWNER"}

    def test_permissions_refusals(self, cli: Cli, job: dict) -> None:
        unknown = cli.fails("permissions", "update", "jobs", job["id"], "--json", json.dumps(
            {"access_control_list": [
                {"user_name": "ghost@example.com", "permission_level": "CAN_VIEW"}]}))
        assert unknown.status == 400 and "does not exist" in unknown.message
        group_owner = cli.fails("jobs", "set-permissions", job["id"], "--json", json.dumps(
            {"access_control_list": [{"group_name": "analysts", "permission_level": "IS_OWNER"}]}))
        assert group_owner.status == 400 and "cannot be the owner" in group_owner.message

    def test_delete(self, cli: Cli, job: dict) -> None:
        assert cli.ok("jobs", "delete", job["id"]) is None
        gone = cli.fails("jobs", "get", job["id"])
        assert gone.message == f"Job {job['id']} does not exist."
        assert cli.ok("jobs", "list", "--name", JOB_NAME) in (None, [])


def test_a_non_admin_principal_owns_the_job_it_creates(cli: Cli, cli_as, emulator,
                                                       job_file: Path) -> None:
    application = register_application(emulator, unique("cli-owner"))
    cli.ok("service-principals", "create", "--json", json.dumps({
        "schemas": [SP_SCHEMA], "applicationId": application["client_id"]}))
    principal = cli_as(application)
    job_id = str(principal.ok("jobs", "create", "--json", f"@{job_file}")["job_id"])
    me = principal.ok("current-user", "me")["userName"]
    acl = principal.ok("permissions", "set", "jobs", job_id, "--json", json.dumps(
        {"access_control_list": [{"user_name": me, "permission_level": "IS_OWNER"},
                                 {"group_name": "analysts", "permission_level": "CAN_VIEW"}]}))
    assert _direct(acl) == {application["client_id"]: "IS_OWNER", "analysts": "CAN_VIEW"}
    # Another principal without access to the job is refused as the service refuses it.
    stranger = register_application(emulator, unique("cli-stranger"))
    cli.ok("service-principals", "create", "--application-id", stranger["client_id"])
    refused = cli_as(stranger).fails("jobs", "delete", job_id)
    assert refused.status == 403


def test_a_legacy_form_job_read_through_the_cli(cli: Cli, emulator) -> None:
    """A single-task job the legacy form's client made (Jobs 2.0, its nesting), as the CLI
    (the public form, Jobs 2.2) sees it, changes it and deletes it."""
    legacy = Api(emulator.base_url, fetch_token(emulator))
    created = legacy.post("/api/2.0/jobs/create", json=legacy_form_job_body("cli-legacy-job"))
    assert created.status_code == 200, created.text
    job_id = created.json()["job_id"]
    settings = cli.ok("jobs", "get", str(job_id))["settings"]
    assert settings["format"] == "MULTI_TASK"  # what every view but 2.0's shows
    [task] = settings["tasks"]
    assert task["task_key"] == "main"
    assert task["spark_python_task"]["python_file"] == "dbfs:/jobs/main.py"
    assert task["max_retries"] == 2 and task["timeout_seconds"] == 3600
    cli.ok("jobs", "update", "--json", json.dumps(
        {"job_id": job_id, "new_settings": {"max_concurrent_runs": 4}}))
    echoed = legacy.get("/api/2.0/jobs/get", params={"job_id": job_id}).json()["settings"]
    assert echoed["max_concurrent_runs"] == 4
    assert echoed["new_cluster"]["spark_python_task"]["python_file"] == "dbfs:/jobs/main.py"
    cli.ok("jobs", "delete", str(job_id))
    assert cli.fails("jobs", "get", str(job_id)).message == f"Job {job_id} does not exist."
