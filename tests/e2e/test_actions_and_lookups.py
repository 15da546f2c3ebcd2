"""Lookups and the two actions under the real engine against an emulator over HTTP, whose
clusters and runs take a second per transition.

One stack of the project's program walks through, a test per step: clusters started,
stopped and left alone; a job run waited for; a no-op up that starts nothing; a new trigger
that starts one new run; a failing run that fails the up with its message; destroy leaving
clusters as they are. A scratch program calls every lookup at preview and at up."""

from __future__ import annotations

import dataclasses
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml

from stacks.pulumi_cli import REPO_ROOT, PulumiCli, project_settings
from tests.conftest import emulator_fixture
from tests.e2e.conftest import StackFactory, write_config
from tools.drills.local_stack import connection_config
from workspace_emulator.testing import (
    EmulatorInfo,
    auth_headers,
    clear_request_log,
    request_log,
)

pytestmark = pytest.mark.engine

ETL = "0101-120000-etl00002"  # TERMINATED in the initial data
SHARED = "0101-120000-shared01"  # RUNNING in the initial data
ADHOC = "0101-120000-adhoc003"  # TERMINATED in the initial data
JOB = {
    "name": "smoke-job",
    "existing_cluster_id": ETL,
    "spark_python_task": {"python_file": "dbfs:/jobs/smoke.py"},
}


emulator = emulator_fixture("class", transition_seconds=1)


def cluster_state(info: EmulatorInfo, cluster_id: str) -> str:
    import requests

    response = requests.get(
        f"{info.base_url}/api/2.0/clusters/get",
        params={"cluster_id": cluster_id},
        headers=auth_headers(info),
        timeout=10,
    )
    return response.json()["state"]


def writes(info: EmulatorInfo) -> list[tuple[str, str]]:
    """(method, path) of the platform writes since the log was cleared."""
    return [
        (r["method"], r["path"])
        for r in request_log(info)
        if r["service"] == "platform" and r["method"] != "GET"
    ]


@dataclasses.dataclass
class Actions:
    """The stack of cluster states and a job run, and what each step hands on to the next."""

    stack: PulumiCli
    cluster_states: list[dict[str, Any]]
    runs: list[dict[str, Any]]
    first_run: dict[str, Any] = dataclasses.field(default_factory=dict)


@pytest.fixture(scope="class")
def actions(workspace_stack: StackFactory) -> Actions:
    cluster_states = [
        {"name": "etl-up", "cluster_name": "etl-nightly", "state": "RUNNING"},
        {"name": "shared-down", "cluster_id": SHARED, "state": "TERMINATED"},
        {"name": "adhoc-down", "cluster_id": ADHOC, "state": "TERMINATED"},  # already there
    ]
    runs = [{"name": "smoke", "job": "smoke-job", "python_params": ["--day", "1"], "trigger": 1}]
    typo = [{**runs[0], "job": "smoke-jbo"}]
    stack = workspace_stack(jobs=[JOB], clusterStates=cluster_states, jobRuns=typo)
    return Actions(stack, cluster_states, runs)


@pytest.mark.steps
class TestClusterStatesAndJobRuns:
    def test_1_a_bad_item_fails_before_anything_is_made(
        self, actions: Actions, emulator: EmulatorInfo
    ) -> None:
        # A bad item fails before anything is registered: not even the job is made.
        clear_request_log(emulator)
        refused = actions.stack.up(check=False)
        assert refused.returncode != 0
        assert "workspace:jobRuns[0].job: no job named 'smoke-jbo'" in refused.stdout
        assert writes(emulator) == []

    def test_2_up_starts_stops_and_waits(self, actions: Actions, emulator: EmulatorInfo) -> None:
        stack = actions.stack
        write_config(stack, {"workspace:jobRuns": actions.runs})
        clear_request_log(emulator)
        first_up = stack.up()
        # Progress while waiting, as the engine shows it.
        assert f"cluster {ETL} (desired RUNNING): PENDING" in first_up.stdout
        assert "TERMINATED SUCCESS" in first_up.stdout
        assert cluster_state(emulator, ETL) == "RUNNING"
        assert cluster_state(emulator, SHARED) == "TERMINATED"
        assert cluster_state(emulator, ADHOC) == "TERMINATED"
        done = writes(emulator)
        assert done.count(("POST", "/api/2.0/clusters/start")) == 1
        assert done.count(("POST", "/api/2.0/clusters/stop")) == 1  # SHARED only
        assert done.count(("POST", "/api/2.0/jobs/run-now")) == 1
        outputs = stack.outputs()
        assert outputs["cluster_states"] == {
            "etl-up": "RUNNING",
            "shared-down": "TERMINATED",
            "adhoc-down": "TERMINATED",
        }
        first = actions.first_run = outputs["job_runs"]["smoke"]
        assert first["result_state"] == "SUCCESS"
        assert first["run_page_url"].endswith(f"/run/{first['run_id']}")

    def test_3_a_second_up_writes_nothing(self, actions: Actions, emulator: EmulatorInfo) -> None:
        clear_request_log(emulator)
        actions.stack.up("--expect-no-changes")
        assert writes(emulator) == []

    def test_4_a_job_change_starts_no_run(self, actions: Actions, emulator: EmulatorInfo) -> None:
        # A change of the job alone updates the job: its run previews as unchanged (the run
        # is fed the job's id, known in preview) and the up starts no run.
        stack = actions.stack
        changed_job = {**JOB, "spark_python_task": {"python_file": "dbfs:/jobs/smoke_v2.py"}}
        write_config(stack, {"workspace:jobs": [changed_job]})
        steps = json.loads(stack.preview("--json").stdout)["steps"]
        ops = {step["urn"].rsplit("::", 1)[-1]: step["op"] for step in steps}
        assert ops["smoke-job"] == "update" and ops.get("smoke", "same") == "same", ops
        clear_request_log(emulator)
        stack.up()
        assert writes(emulator) == [("POST", "/api/2.0/jobs/update")]  # one write, no run

    def test_5_a_new_trigger_starts_one_run_and_a_new_state_stops_the_cluster(
        self, actions: Actions, emulator: EmulatorInfo
    ) -> None:
        stack, runs = actions.stack, actions.runs
        actions.cluster_states[0]["state"] = "TERMINATED"
        runs[0]["trigger"] = 2
        write_config(
            stack, {"workspace:clusterStates": actions.cluster_states, "workspace:jobRuns": runs}
        )
        preview = stack.preview("--diff")
        assert "+-" in preview.stdout and "smoke" in preview.stdout
        clear_request_log(emulator)
        stack.up()
        assert cluster_state(emulator, ETL) == "TERMINATED"
        assert writes(emulator).count(("POST", "/api/2.0/jobs/run-now")) == 1
        second = stack.outputs()["job_runs"]["smoke"]
        assert second["run_id"] != actions.first_run["run_id"]
        assert second["result_state"] == "SUCCESS"

    def test_6_a_failing_run_fails_the_up_with_its_message(self, actions: Actions) -> None:
        actions.runs.append({"name": "broken", "job": "smoke-job", "python_params": ["--fail"]})
        write_config(actions.stack, {"workspace:jobRuns": actions.runs})
        failed = actions.stack.up(check=False)
        output = failed.stdout + failed.stderr
        assert failed.returncode != 0
        assert "python_params contained '--fail'" in output
        assert "Change `trigger` to start a new run" in output

    def test_7_destroy_deletes_the_job_only(self, actions: Actions, emulator: EmulatorInfo) -> None:
        # Clusters and runs are left as they are.
        clear_request_log(emulator)
        actions.stack.destroy()
        assert writes(emulator) == [("POST", "/api/2.0/jobs/delete")]
        assert cluster_state(emulator, SHARED) == "TERMINATED"


LOOKUP_PROGRAM = textwrap.dedent(
    """
    import pulumi

    from providers import lookups
    from providers.auth import WorkspaceAuth
    from stacks.config import auth_args

    config = pulumi.Config("workspace")
    wanted = pulumi.Config("lookups")
    connection = WorkspaceAuth("workspace", auth_args()).connection

    job = lookups.get_job(connection, name=wanted.require("jobName"))
    by_name = lookups.get_cluster(connection, name=wanted.require("cluster"))
    pulumi.export("cluster_by_name", by_name)
    shared = "0101-120000-shared01"
    pulumi.export("cluster_by_id", lookups.get_cluster(connection, cluster_id=shared))
    pulumi.export("job", job)
    pulumi.export("job_by_id", lookups.get_job(connection, job_id=job.apply(lambda j: j["job_id"])))
    pulumi.export("run", lookups.get_job_run(connection, run_id=wanted.require_int("runId")))
    principal = lookups.get_service_principal(connection, display_name="iac-bootstrap")
    pulumi.export("principal", principal)
    pulumi.export(
        "principal_by_id",
        lookups.get_service_principal(connection, application_id=config.require("clientId")),
    )
    pulumi.export("scope", lookups.get_secret_scope(connection, name="platform-shared"))
    pulumi.export("ip_access_lists", lookups.get_ip_access_lists(connection))
    pulumi.export("office", lookups.get_ip_access_list(connection, label="office-network"))
    pulumi.export("repo", lookups.get_repo(connection, path="/Repos/iac/ml-models"))
    pulumi.export("repo_by_id", lookups.get_repo(connection, repo_id=3000000000000001))
    pulumi.export("bindings", lookups.get_catalog_bindings(connection, catalog="finance"))
    """
)


@pytest.fixture()
def lookup_stack(tmp_path: Path, emulator: EmulatorInfo) -> PulumiCli:
    project = tmp_path / "lookups"
    project.mkdir()
    (project / "__main__.py").write_text(LOOKUP_PROGRAM)
    (project / "Pulumi.yaml").write_text(yaml.safe_dump(project_settings("lookups")))
    cli = PulumiCli(
        project_dir=project,
        stack="e2e",
        state_dir=tmp_path / "lookup-state",
        extra_env={"PYTHONPATH": str(REPO_ROOT)},
    )
    cli.select_or_init()
    cli.set_config("workspace:clientSecret", emulator.client_secret, secret=True)
    return cli


def test_every_lookup_at_preview_and_up(lookup_stack: PulumiCli, emulator: EmulatorInfo) -> None:
    import requests

    headers = auth_headers(emulator)
    job_id = requests.post(
        f"{emulator.base_url}/api/2.0/jobs/create",
        json={"name": "looked-up"},
        headers=headers,
        timeout=10,
    ).json()["job_id"]
    run_id = requests.post(
        f"{emulator.base_url}/api/2.0/jobs/run-now",
        json={"job_id": job_id, "python_params": ["--a"]},
        headers=headers,
        timeout=10,
    ).json()["run_id"]
    write_config(
        lookup_stack,
        {
            **connection_config(emulator, "legacy"),
            "lookups:jobName": "looked-up",
            "lookups:cluster": "etl-nightly",
            "lookups:runId": str(run_id),
        },
    )

    clear_request_log(emulator)
    lookup_stack.preview()
    read = {r["path"] for r in request_log(emulator) if r["service"] == "platform"}
    assert {
        "/api/2.0/clusters/list",
        "/api/2.0/clusters/get",
        "/api/2.0/jobs/list",
        "/api/2.0/jobs/get",
        "/api/2.0/jobs/runs/get",
        "/api/2.0/preview/scim/v2/ServicePrincipals",
        "/api/2.0/secrets/scopes/list",
        "/api/2.0/ip-access-lists",
        "/api/2.0/repos",
        "/api/2.0/repos/3000000000000001",
        "/api/2.1/unity-catalog/bindings/catalog/finance",
    } <= read
    assert {r["method"] for r in request_log(emulator) if r["service"] == "platform"} == {"GET"}

    lookup_stack.up()
    out = lookup_stack.outputs()  # not --show-secrets: lookup results are plain outputs
    assert out["cluster_by_name"]["cluster_id"] == ETL
    assert out["cluster_by_id"]["cluster_name"] == "shared-autoscaling"
    assert out["job"]["job_id"] == job_id and out["job_by_id"]["name"] == "looked-up"
    assert out["run"]["run_id"] == run_id and out["run"]["python_params"] == ["--a"]
    assert out["principal"]["application_id"] == emulator.client_id
    assert out["principal_by_id"] == out["principal"]
    assert out["scope"]["name"] == "platform-shared"
    assert {x["label"] for x in out["ip_access_lists"]} == {"office-network", "known-bad"}
    assert out["office"]["list_type"] == "ALLOW"
    assert out["repo"]["id"] == 3000000000000002
    assert out["repo_by_id"]["path"] == "/Repos/iac/data-pipelines"
    assert out["bindings"] == {"catalog": "finance", "isolation_mode": "OPEN", "bindings": []}

    write_config(lookup_stack, {"lookups:cluster": "no-such-cluster"})
    failed = lookup_stack.preview(check=False)
    assert failed.returncode != 0
    assert "no cluster named 'no-such-cluster' in the workspace" in failed.stdout + failed.stderr
