"""The program deployed by the real engine against the emulator, through Pulumi's Automation
API: `up`, a second `up` that changes nothing, `destroy`.

Needs the `pulumi` CLI on PATH and this project's virtualenv (`venv/`, which Pulumi.yaml
names) with requirements-test.txt installed. State and the engine's home live in a
temporary directory; the stack's config file (Pulumi.e2e.yaml) is removed at the end.
"""

from pathlib import Path

import pytest
import requests
from pulumi import automation as auto

from workspace_emulator.testing import auth_headers

PROJECT = Path(__file__).parents[1]
STACK = "e2e"
CLUSTER_ID = "0101-120000-shared01"


@pytest.fixture
def stack(fresh_workspace_emulator, tmp_path):
    (tmp_path / "state").mkdir()
    workspace = auto.LocalWorkspaceOptions(
        pulumi_home=str(tmp_path / "pulumi-home"),
        secrets_provider="passphrase",
        env_vars={
            "PULUMI_BACKEND_URL": (tmp_path / "state").as_uri(),
            "PULUMI_CONFIG_PASSPHRASE": "e2e-test-only",
            "PULUMI_SKIP_UPDATE_CHECK": "true",
            # Tokens of an earlier run's emulator on the same address would be refused.
            "WORKSPACE_TOKEN_CACHE_DIR": str(tmp_path / "tokens"),
        },
    )
    stack = auto.create_or_select_stack(STACK, work_dir=str(PROJECT), opts=workspace)
    config = {key: auto.ConfigValue(*entry)
              for key, entry in fresh_workspace_emulator.stack_config().items()}
    config["workspace:clusterId"] = auto.ConfigValue(CLUSTER_ID)
    # The team's own resources are files: none in the project directory.
    config["my-workspace:announcementsDir"] = auto.ConfigValue(str(tmp_path / "announcements"))
    stack.set_all_config(config)
    yield stack
    stack.destroy()
    stack.workspace.remove_stack(STACK)


def platform(info, path, **params):
    response = requests.get(
        f"{info.base_url}{path}", params=params, headers=auth_headers(info), timeout=10
    )
    response.raise_for_status()
    return response.json()


def scope_names(info):
    return {s["name"] for s in platform(info, "/api/2.0/secrets/scopes/list").get("scopes", [])}


def test_up_a_second_up_and_destroy(stack, fresh_workspace_emulator):
    info = fresh_workspace_emulator

    up = stack.up()
    job_id = up.outputs["job_id"].value
    job = platform(info, "/api/2.1/jobs/get", job_id=job_id)["settings"]
    assert job["name"] == "daily-report"
    assert {t["task_key"]: t["existing_cluster_id"] for t in job["tasks"]}["report"] == CLUSTER_ID
    assert "team-secrets" in scope_names(info)

    again = stack.up(expect_no_changes=True)
    assert set(again.summary.resource_changes) == {"same"}

    stack.destroy()
    assert "team-secrets" not in scope_names(info)
    assert platform(info, "/api/2.1/jobs/list", name="daily-report").get("jobs", []) == []
