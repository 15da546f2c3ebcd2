"""examples/own-program as a user runs it: a Pulumi project of its own, outside this
repository, with this package pip-installed into the project's virtualenv, under the real
engine against the emulator: up, a no-op up, destroy."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from providers.client import WorkspaceClient
from providers.jobs.jobs_api import JobsApi
from stacks.pulumi_cli import PulumiCli
from tests.checkout import EXAMPLE, copy_checkout, outside_env, project_virtualenv
from tests.conftest import emulator_client
from workspace_emulator.testing import EmulatorInfo

pytestmark = pytest.mark.engine

# A cluster the emulator's workspace comes with.
CLUSTER_ID = "0101-120000-shared01"


def jobs_named(client: WorkspaceClient, name: str) -> list[dict]:
    return client.get("/api/2.0/jobs/list", {"name": name}).get("jobs", [])


def scope_names(client: WorkspaceClient) -> set[str]:
    return {s["name"] for s in client.get("/api/2.0/secrets/scopes/list").get("scopes", [])}


def test_own_program_up_noop_destroy(tmp_path: Path, emulator: EmulatorInfo) -> None:
    project = tmp_path / "my-workspace"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns("__pycache__", "venv"))
    venv = project_virtualenv(project, copy_checkout(tmp_path / "workspace-iac"))
    where = subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-c",
            "import providers.core.host; print(providers.__file__)",
        ],
        check=True,
        capture_output=True,
        text=True,
        cwd=project,
        env=outside_env(),
    ).stdout.strip()
    assert Path(where).is_relative_to(venv), where

    # No PYTHONPATH: the program and the provider host find this package in the project's
    # virtualenv only.
    cli = PulumiCli(project, "dev", tmp_path / "state", extra_env={"PYTHONPATH": ""})
    cli.select_or_init()
    for key, value in {
        "baseUrl": emulator.base_url,
        "authUrl": emulator.auth_url,
        "tenantId": emulator.tenant_id,
        "clientId": emulator.client_id,
        "resource": emulator.resource,
        "allowInsecureHttp": "true",
        "clusterId": CLUSTER_ID,
    }.items():
        cli.set_config(f"workspace:{key}", value)
    cli.set_config("workspace:clientSecret", emulator.client_secret, secret=True)
    assert emulator.client_secret not in (project / "Pulumi.dev.yaml").read_text()

    up = cli.up()
    # the stack, the component, its provider, the scope, the job and the team's own
    # announcement (a dynamic provider of its own, on the default provider)
    assert "6 created" in up.stdout, up.stdout
    assert (project / "announcements" / "analytics.txt").read_text().startswith("The report")
    outputs = cli.outputs()
    client = emulator_client(emulator, wire_form="public")
    assert outputs["secret_scope"] == "team-secrets"
    assert "team-secrets" in scope_names(client)
    [job] = jobs_named(client, "daily-report")
    assert job["job_id"] == outputs["job_id"]
    tasks = JobsApi(client).get(job["job_id"])["settings"]["tasks"]  # a listing leaves tasks out
    by_key = {task["task_key"]: task for task in tasks}
    assert sorted(by_key) == ["publish", "report"]
    assert by_key["report"]["existing_cluster_id"] == CLUSTER_ID
    assert by_key["report"]["max_retries"] == 1
    assert by_key["publish"]["depends_on"] == [{"task_key": "report"}]

    # Served by this package's provider host (providers/core/host.py), not Pulumi's own: bound
    # resources keep no provider code in their state.
    kinds = [
        r for r in cli.export()["deployment"]["resources"] if "dynamic/workspace:" in r["type"]
    ]
    assert len(kinds) == 2
    assert all("__provider" not in r["outputs"] for r in kinds)
    assert all("pulumi:providers:pulumi-python::workspace::" in r["provider"] for r in kinds)

    again = cli.up("--expect-no-changes")
    assert "6 unchanged" in again.stdout, again.stdout

    cli.destroy()
    assert "team-secrets" not in scope_names(client)
    assert jobs_named(client, "daily-report") == []
    assert not (project / "announcements" / "analytics.txt").exists()
