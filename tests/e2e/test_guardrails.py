"""Guardrails under the real engine against the emulator (docs/guardrails.md): with the
stack's policy pack (`workspace-iac guardrails`), a job without its owner tag and a catalog
granted ALL_PRIVILEGES to `account users` fail the preview naming both rules when they are
mandatory (and an up writes nothing), pass with a warning each when advisory, and pass clean
once fixed; a team's own rule file takes part as the starter rules do."""

from __future__ import annotations

import json
import re
import shutil
from typing import Any

import pytest

from stacks.guardrails.command import run_guarded, write
from stacks.preview_summary import summarise
from stacks.pulumi_cli import REPO_ROOT, PulumiCli
from tests.e2e.conftest import StackFactory, platform_writes, write_config
from workspace_emulator.testing import EmulatorInfo, clear_request_log

# Proven on both engines; the delivery commands, not the kinds: the modern leg alone runs
# it (docs/testing.md, "Test legs").
pytestmark = [pytest.mark.engine, pytest.mark.modern_leg]

JOB = {
    "name": "nightly",
    "tasks": [{"task_key": "main", "notebook_task": {"notebook_path": "/Shared/etl"},
               "existing_cluster_id": "0101-000000-abcdefgh"}],
    "schedule": {"quartz_cron_expression": "0 0 2 * * ?", "timezone_id": "UTC"},
}
GRANTS = {
    "name": "prod-grants",
    "securable_type": "catalog",
    "full_name": "prod",
    "privilege_assignments": [{"principal": "account users", "privileges": ["ALL_PRIVILEGES"]}],
}
BROKEN = {"job-owner-tag": "nightly", "no-all-privileges-to-account-users": "prod-grants"}


def levels(level: str) -> dict[str, Any]:
    return {"workspace:guardrails": {rule: level for rule in BROKEN}}


def guarded_preview(stack: PulumiCli) -> tuple[int, list[dict[str, Any]], str]:
    """`pulumi preview --json` with the stack's guardrails: its exit status, the guardrails
    broken (its event log) and the summary the pull request gets."""
    result, events = run_guarded(stack, "preview", "--json", timeout=900)
    return result.returncode, events, summarise(json.loads(result.stdout), stack.stack, events)


def broken(events: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """rule -> (resource name, level) of each guardrail broken."""
    return {e["policyName"]: (e["resourceUrn"].rsplit("::", 1)[-1], e["enforcementLevel"])
            for e in events}


def test_mandatory_fails_advisory_warns_fixed_passes(
    workspace_stack: StackFactory, emulator: EmulatorInfo
) -> None:
    stack = workspace_stack(jobs=[JOB], grants=[GRANTS])

    # mandatory: the preview fails naming both rules, the resources and the fixes
    write_config(stack, levels("mandatory"))
    shown = stack.preview(*write(stack.project_dir, stack.stack), check=False)
    assert shown.returncode != 0
    for rule, resource in BROKEN.items():
        # `[mandatory]  <pack> <version>  <rule> (<type>: <name>)` (3.79), `[mandatory]
        # <rule>  (<type>: <name>)` under the pack's heading (newer engines)
        shown_as = rf"\[mandatory\]\s+(workspace-guardrails v0\.1\.0\s+)?{rule}\s+" \
            rf"\(pulumi-python:dynamic/workspace:\w+: {resource}\)"
        assert re.search(shown_as, shown.stdout), shown.stdout
    assert "add the tag to the job's `tags`" in shown.stdout
    status, events, summary = guarded_preview(stack)
    assert status != 0
    assert broken(events) == {rule: (name, "mandatory") for rule, name in BROKEN.items()}
    assert "**The preview failed.**" in summary and "A mandatory guardrail is broken" in summary
    assert "- `nightly (Job)`\n  - **mandatory** `job-owner-tag`: the job has no" in summary
    # and an up writes nothing to the workspace
    clear_request_log(emulator)
    assert stack.up(*write(stack.project_dir, stack.stack), check=False).returncode != 0
    assert platform_writes(emulator) == []

    # advisory: the preview passes, warning of each
    write_config(stack, levels("advisory"))
    status, events, summary = guarded_preview(stack)
    assert status == 0
    assert broken(events) == {rule: (name, "advisory") for rule, name in BROKEN.items()}
    assert "**2 to create**" in summary and "A mandatory guardrail" not in summary
    assert "  - **advisory** `no-all-privileges-to-account-users`: \\`account users\\` is " \
        "granted ALL\\_PRIVILEGES on the catalog prod" in summary

    # fixed, and the team's own rule (a file of the project) mandatory: it alone fails
    shutil.copy(REPO_ROOT / "examples" / "guardrails" / "team_rules.py",
                stack.project_dir / "team_rules.py")
    fixed_job = {**JOB, "tags": {"owner": "data-platform"}}
    fixed_grants = {**GRANTS, "privilege_assignments": [
        {"principal": "account users", "privileges": ["USE_CATALOG"]}]}
    write_config(stack, {**levels("mandatory"),
                         "workspace:guardrails": {**levels("mandatory")["workspace:guardrails"],
                                                  "job-timeout": "mandatory"},
                         "workspace:guardrailRules": ["team_rules.py"],
                         "workspace:jobs": [fixed_job], "workspace:grants": [fixed_grants]})
    status, events, _ = guarded_preview(stack)
    assert status != 0 and broken(events) == {"job-timeout": ("nightly", "mandatory")}

    # all fixed: clean
    write_config(stack, {"workspace:jobs": [{**fixed_job, "timeout_seconds": 14400}]})
    status, events, summary = guarded_preview(stack)
    assert status == 0 and events == [] and "Guardrails" not in summary
