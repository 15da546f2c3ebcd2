"""The program under Pulumi's mocks: what it declares, with no engine and no deployment.

WorkspaceAuth checks the credentials while the program runs (it fetches one token), so the
config points at the emulator of workspace-iac's pytest plugin (`workspace_emulator`);
nothing else reaches it. Run: `venv/bin/python -m pytest tests` (docs/testing-your-program.md).
"""

import runpy
from pathlib import Path

import pulumi
import pytest

PROGRAM = Path(__file__).parents[1] / "__main__.py"
CLUSTER_ID = "0101-120000-shared01"
# The provider of the WorkspaceAuth named "workspace", which serves the workspace kinds.
AUTH_PROVIDER = "workspace:auth:WorkspaceAuth$pulumi:providers:pulumi-python::workspace"


class Mocks(pulumi.runtime.Mocks):
    """Records what the program registers; a resource's outputs are its inputs."""

    def __init__(self):
        self.registered = {}

    def new_resource(self, args):
        self.registered[args.typ, args.name] = args
        return [f"{args.name}-id", args.inputs]

    def call(self, args):
        return {}


@pytest.fixture(scope="module")
def registered(workspace_emulator, tmp_path_factory):
    """Runs the program once under the mocks: what it registered, by (type, name)."""
    mocks = Mocks()
    pulumi.runtime.set_mocks(mocks, project="my-workspace", stack="unit", preview=False)
    config = {key: entry.value for key, entry in workspace_emulator.stack_config().items()}
    config["workspace:clusterId"] = CLUSTER_ID
    # The team's own resources are files: none in the project directory.
    config["my-workspace:announcementsDir"] = str(tmp_path_factory.mktemp("announcements"))
    pulumi.runtime.set_all_config(config)
    # Waits for every registration the program started.
    pulumi.runtime.test(lambda: runpy.run_path(str(PROGRAM)))()
    return mocks.registered


def workspace_resource(registered, kind, name):
    return registered[f"pulumi-python:dynamic/workspace:{kind}", name]


def test_the_report_runs_daily_on_the_configured_cluster(registered):
    job = workspace_resource(registered, "Job", "daily-report").inputs
    report = next(task for task in job["tasks"] if task["task_key"] == "report")

    assert job["name"] == "daily-report"
    assert report["existing_cluster_id"] == CLUSTER_ID
    assert report["max_retries"] == 1
    assert job["schedule"] == {"quartz_cron_expression": "0 0 7 * * ?", "timezone_id": "UTC"}


def test_workspace_resources_use_the_connection_of_workspace_auth(registered, workspace_emulator):
    for kind, name in [("SecretScope", "team-secrets"), ("Job", "daily-report")]:
        resource = workspace_resource(registered, kind, name)
        # Bound to the component's provider, the connection stays out of their state.
        assert AUTH_PROVIDER in resource.provider
        assert workspace_emulator.client_secret not in repr(resource.inputs)
