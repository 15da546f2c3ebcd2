"""The deploy and drift workflows (.github/workflows/deploy.yml, drift.yml; docs/delivery.md):
each job's token no wider than it needs, the credentialed jobs in their protected
environments and after the environment check, deploys chained dev → staging → prod and
never cancelled mid-up, caches restored only, and the steps calling the project's commands
(the ones the suite runs against the emulator). The drift workflow's matrix is the fleet
list, run here as the workflow runs it, and its issue job is run here with a `gh` that
records what it is asked."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from stacks.pulumi_cli import REPO_ROOT
from tests.unit.test_preview_workflow import ENGINE_CACHE, PINNED, WORKFLOWS, triggers, workflow

DEPLOY = WORKFLOWS / "deploy.yml"
DRIFT = WORKFLOWS / "drift.yml"
REAL_STACKS = ["dev", "staging", "prod"]


def jobs(path: Path) -> dict[str, Any]:
    return workflow(path)["jobs"]


def step(path: Path, job: str, name: str) -> dict[str, Any]:
    [found] = [s for s in jobs(path)[job]["steps"] if s.get("name") == name]
    return found


def committed_real_stacks() -> list[str]:
    return sorted(p.name.split(".")[1] for p in REPO_ROOT.glob("Pulumi.*.yaml")
                  if p.name != "Pulumi.local.yaml")


# --- deploy ---------------------------------------------------------------------------


def test_deploys_on_push_to_the_default_branch_every_real_stack_in_order() -> None:
    document = workflow(DEPLOY)
    assert triggers(document) == {"push": {"branches": ["main"]}}
    deploying = [name for name in jobs(DEPLOY) if name != "environments"]
    assert deploying == REAL_STACKS and sorted(deploying) == committed_real_stacks()
    # Each after the one before; no `if`, so a failed (or skipped) one skips the rest.
    assert [jobs(DEPLOY)[name]["needs"] for name in REAL_STACKS] == [
        "environments", "dev", "staging"]
    assert all("if" not in jobs(DEPLOY)[name] for name in REAL_STACKS)


def test_each_deploy_token_is_minimal_and_runs_in_its_protected_environment() -> None:
    document = workflow(DEPLOY)
    assert document["permissions"] == {}
    assert {name: job["permissions"] for name, job in jobs(DEPLOY).items()} == {
        "environments": {"contents": "read", "actions": "read"},
        **{stack: {"contents": "read", "id-token": "write"} for stack in REAL_STACKS},
    }
    for stack in REAL_STACKS:
        job = jobs(DEPLOY)[stack]
        assert job["environment"] == f"deploy-{stack}"
        assert job["env"] == {"STACK": stack}
        # One up per stack at a time, never cancelled half-way.
        assert job["concurrency"] == {"group": f"pulumi-deploy-{stack}",
                                      "cancel-in-progress": False}
    assert "environment" not in jobs(DEPLOY)["environments"]
    [check] = [s for s in jobs(DEPLOY)["environments"]["steps"] if "run" in s]
    assert check["run"] == ('python3 -m tools.ci_environments --default-branch '
                            '"$DEFAULT_BRANCH" --environments deploy dev staging prod')


def test_the_deploy_step_is_the_project_command_signed_in_as_the_deployer() -> None:
    for stack in REAL_STACKS:
        deploy = step(DEPLOY, stack, "Deploy")
        lines = [line.strip() for line in deploy["run"].splitlines()]
        assert lines[-1] == ('.venv/bin/workspace-iac deploy --stack "$STACK" '
                             '--summary "summary-$STACK.md"')
        assert deploy["env"] == {
            "PULUMI_BACKEND_URL": "${{ vars.PULUMI_BACKEND_URL }}",
            "PULUMI_CONFIG_PASSPHRASE": "${{ secrets.PULUMI_CONFIG_PASSPHRASE }}",
            "PULUMI_SKIP_UPDATE_CHECK": "true",
        }
        # The only step naming a secret, and no workspace secret among them: the workspace
        # is signed in to by the job's OIDC token.
        with_secrets = [s["name"] for s in jobs(DEPLOY)[stack]["steps"]
                        if "secrets." in yaml.safe_dump(s)]
        assert with_secrets == ["Deploy"]
        summary = step(DEPLOY, stack, "Summarise")
        assert summary["if"] == "always()"
        assert 'cat "summary-$STACK.md" >> "$GITHUB_STEP_SUMMARY"' in summary["run"]
    assert "WORKSPACE_SIGN_IN_AS" not in DEPLOY.read_text()


def test_every_real_stack_signs_in_by_oidc_with_no_stored_secret() -> None:
    for stack in committed_real_stacks():
        config = yaml.safe_load((REPO_ROOT / f"Pulumi.{stack}.yaml").read_text())["config"]
        assert config["workspace:authType"].startswith("github-oidc"), stack
        assert "workspace:clientSecret" not in config and "workspace:token" not in config


# --- drift ----------------------------------------------------------------------------


def test_drift_runs_nightly_and_on_demand_over_the_fleet_list() -> None:
    document = workflow(DRIFT)
    assert set(triggers(document)) == {"schedule", "workflow_dispatch"}
    [schedule] = triggers(document)["schedule"]
    assert re.fullmatch(r"\d+ \d+ \* \* \*", schedule["cron"])  # once a day
    drift = jobs(DRIFT)["drift"]
    assert drift["strategy"] == {"fail-fast": False, "matrix": {
        "stack": "${{ fromJSON(needs.stacks.outputs.stacks) }}"}}
    assert drift["needs"] == ["stacks", "environments"] and "if" not in drift
    assert jobs(DRIFT)["stacks"]["outputs"] == {"stacks": "${{ steps.list.outputs.stacks }}"}


def test_the_fleet_list_step_gives_every_real_stack(tmp_path: Path) -> None:
    """Run as the workflow runs it: its output is the matrix."""
    output = tmp_path / "output"
    listing = step(DRIFT, "stacks", "List the stacks (standard library only)")
    subprocess.run(["bash", "-c", listing["run"].replace("python3", sys.executable)],
                   cwd=REPO_ROOT, env={**os.environ, "GITHUB_OUTPUT": str(output)}, check=True)
    name, _, value = output.read_text().strip().partition("=")
    assert name == "stacks" and sorted(json.loads(value)) == committed_real_stacks()


def test_each_drift_token_is_minimal_and_read_only_credentials_are_used() -> None:
    document = workflow(DRIFT)
    assert document["permissions"] == {}
    assert {name: job["permissions"] for name, job in jobs(DRIFT).items()} == {
        "stacks": {"contents": "read"},
        "environments": {"contents": "read", "actions": "read"},
        "drift": {"contents": "read", "id-token": "write"},
        "issues": {"issues": "write"},
    }
    drift = jobs(DRIFT)["drift"]
    assert drift["environment"] == "drift-${{ matrix.stack }}"
    holding = sorted(name for name, job in jobs(DRIFT).items()
                     if "environment" in job or "id-token" in job["permissions"])
    assert holding == ["drift"]
    report = step(DRIFT, "drift", "Report drift")
    assert report["env"]["WORKSPACE_SIGN_IN_AS"] == "preview"
    assert ('.venv/bin/workspace-iac drift --stack "$STACK" --issue-body "drift-$STACK.md" '
            '|| status=$?') in report["run"]
    [check] = [s for s in jobs(DRIFT)["environments"]["steps"] if "run" in s]
    assert "--environments drift $STACKS" in check["run"]


def test_the_issue_job_runs_no_code_of_the_repository() -> None:
    issues = jobs(DRIFT)["issues"]
    assert issues["needs"] == "drift" and issues["if"] == "always()"
    assert not any("checkout" in s.get("uses", "") for s in issues["steps"])
    [script] = [s["run"] for s in issues["steps"] if "run" in s]
    commands = {line.split()[0] for line in script.splitlines()
                if line.strip() and not line.startswith(" ")}
    assert "workspace-iac" not in script and ".venv" not in script and "python" not in script
    assert commands == {"gh", "for", "done"}


FAKE_GH = """#!/bin/sh
echo "$*" >> "$GH_LOG"
case "$1 $2" in
  "issue list") echo "$OPEN_ISSUE" ;;
esac
"""


@pytest.mark.parametrize(("status", "open_issue", "expected"), [
    ("1", "", "issue create --title Drift in stack dev --label drift --body-file drift-dev.md"),
    ("1", "7", "issue edit 7 --body-file drift-dev.md"),
    ("0", "7", "issue close 7 --comment No drift."),
    ("0", "", None),
    ("2", "7", None),
])
def test_the_issue_job_opens_updates_or_closes_one_issue(
    tmp_path: Path, status: str, open_issue: str, expected: str | None
) -> None:
    """The job's script run with a `gh` that records its calls: a drifted stack's issue is
    opened, or the open one (the bot's, labelled `drift`) updated; a clean stack's closed."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    gh.write_text(FAKE_GH)
    gh.chmod(0o755)
    (tmp_path / "drift-dev.status").write_text(status + "\n")
    (tmp_path / "drift-dev.md").write_text("No drift." if status == "0" else "| table |")
    log = tmp_path / "gh.log"
    [script] = [s["run"] for s in jobs(DRIFT)["issues"]["steps"] if "run" in s]
    subprocess.run(["bash", "-e", "-c", script], cwd=tmp_path, check=True, env={
        **os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "GH_LOG": str(log), "OPEN_ISSUE": open_issue})
    calls = log.read_text().splitlines()
    assert calls[0].startswith("label create drift")
    assert calls[1].startswith("issue list --label drift --state open --author app/github-actions")
    assert '"Drift in stack dev" in:title' in calls[1]
    assert calls[2:] == ([expected] if expected else [])


# --- both -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [DEPLOY, DRIFT])
def test_caches_are_restored_only_and_checkouts_keep_no_credentials(path: Path) -> None:
    all_steps = [s for job in jobs(path).values() for s in job["steps"]]
    caches = [s for s in all_steps if s.get("uses", "").startswith("actions/cache")]
    assert caches and {s["uses"].split("@")[0] for s in caches} == {"actions/cache/restore"}
    [save] = [s for job in jobs(ENGINE_CACHE).values() for s in job["steps"]
              if s.get("uses", "").startswith("actions/cache/save@")]
    assert all(s["with"] == save["with"] for s in caches)
    checkouts = [s for s in all_steps if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)
    uses = [s["uses"] for s in all_steps if "uses" in s]
    assert [u for u in uses if not PINNED.match(u)] == []
    assert all(re.search(r"@[0-9a-f]{40}  # v\d+", line)
               for line in path.read_text().splitlines() if "uses:" in line)
