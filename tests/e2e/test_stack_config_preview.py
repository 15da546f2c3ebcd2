"""Stack config under the real engine against the emulator: the committed dev, staging and
prod files preview cleanly (their addresses pointed at the emulator), bad config fails
`pulumi preview` naming each key and reason without a single call to the platform, and the
client secret is taken only as a secret (`pulumi config set --secret`), never in plain text."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from stacks.config import file_values
from stacks.config_rules import object_lists
from stacks.pulumi_cli import REPO_ROOT
from tests.e2e.conftest import StackFactory, write_config
from workspace_emulator.testing import (
    ACCOUNT_ID,
    EmulatorInfo,
    clear_request_log,
    request_log,
)

pytestmark = pytest.mark.engine

# What the test replaces with the emulator's: where the workspace is and who signs in.
ADDRESS_KEYS = ("baseUrl", "authType", "authUrl", "tenantId", "clientId", "resource", "profile",
                "previewClientId", "azureWorkspaceResourceId", "allowInsecureHttp")


# The one call a preview of new objects may make: WorkspaceAuth's sign-in check, where it
# signs in anew (a token at hand was checked when it was issued).
SIGN_IN_CHECK = [("GET", "/api/2.0/preview/scim/v2/Me")]


def platform_calls(info: EmulatorInfo) -> list[dict[str, Any]]:
    return [entry for entry in request_log(info) if entry["service"] == "platform"]


def calls_made(info: EmulatorInfo) -> list[tuple[str, str]]:
    return [(entry["method"], entry["path"]) for entry in platform_calls(info)]


def test_environment_files_preview_against_the_emulator(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    for environment in ("dev", "staging", "prod"):
        values, _ = file_values(REPO_ROOT / f"Pulumi.{environment}.yaml")
        declared = sum(len(values.get(key) or []) for key in object_lists())
        settings = {k: v for k, v in values.items() if k not in ADDRESS_KEYS}
        # The account around the workspace: the emulator's account.
        account = "accountId" in settings
        if account:
            settings.update(accountHost=emulator.base_url, accountId=ACCOUNT_ID)
        stack = workspace_stack(**{"wire_form": settings.pop("wireForm"), **settings})
        clear_request_log(emulator)
        result = stack.preview(check=False)
        assert result.returncode == 0, result.stdout + result.stderr
        # the stack, the WorkspaceAuth component (and the account's), its provider and every
        # declared object
        components = 5 if account else 3  # the account's component and its provider
        assert f"+ {declared + components} to create" in result.stdout, (
            environment, result.stdout)
        # At most the sign-in checks: the workspace's, and the account's (a page of groups).
        account_check = ("GET", f"/api/2.0/accounts/{ACCOUNT_ID}/scim/v2/Groups")
        assert set(calls_made(emulator)) <= {*SIGN_IN_CHECK, account_check}


def test_bad_config_fails_preview_with_key_and_reason(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    local = yaml.safe_load((REPO_ROOT / "Pulumi.local.yaml").read_text())["config"]
    jobs = local["workspace:jobs"]
    stack = workspace_stack(
        jobz=jobs,  # a typo of `jobs`
        jobs=[
            {**jobs[0], "tasks": [{**jobs[0]["tasks"][0], "max_retries": "twice"}]},
            {**jobs[0], "timeout_seconds": 60},
        ],
        jobPermissions=[{**local["workspace:jobPermissions"][0], "job": "nightly-etI"}],
        secretScopes=local["workspace:secretScopes"],
    )
    clear_request_log(emulator)
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    for line in (
        "workspace:jobz: unknown key (did you mean 'jobs'?)",
        "workspace:jobs[0].tasks[ingest].max_retries: Input should be a valid integer",
        "workspace:jobs[1].name: 'nightly-etl' is declared twice (first at jobs[0])",
        "workspace:jobPermissions[0].job: no job named 'nightly-etI' in workspace:jobs "
        "(did you mean 'nightly-etl'?)",
    ):
        assert line in output, output
    assert "Traceback" not in output
    assert platform_calls(emulator) == []

    # a missing required key, after the rest was fixed
    document = yaml.safe_load((stack.project_dir / f"Pulumi.{stack.stack}.yaml").read_text())
    config = document["config"]
    del config["workspace:jobz"], config["workspace:baseUrl"]
    config["workspace:jobs"] = jobs
    config["workspace:jobPermissions"] = local["workspace:jobPermissions"]
    (stack.project_dir / f"Pulumi.{stack.stack}.yaml").write_text(yaml.safe_dump(document))
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "the stack's config has 1 problem(s)" in output
    assert "workspace:baseUrl: required (`pulumi config set workspace:baseUrl <value>`)" in output
    assert platform_calls(emulator) == []

    # the client secret in plain text is refused, without echoing it; as a secret it works
    write_config(stack, {"workspace:baseUrl": emulator.base_url})
    secret = emulator.client_secret
    stack.run("config", "set", "workspace:clientSecret", secret, "--plaintext", "--stack", "e2e")
    result = stack.preview(check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "workspace:clientSecret: stored in plain text; set it with `pulumi config set " in output
    assert secret not in output
    stack.set_config("workspace:clientSecret", secret, secret=True)
    assert secret not in (stack.project_dir / "Pulumi.e2e.yaml").read_text()
    result = stack.preview(check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert calls_made(emulator) in ([], SIGN_IN_CHECK)
