"""The pull-request preview workflow (.github/workflows/preview.yml) fits the project: one
matrix entry per committed stack, commands that exist, the engine cached, and no address of
any outside service in it; and it cannot hand a branch's code credentials unreviewed
(docs/ci-previews.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import Any

import yaml

from stacks.pulumi_cli import REPO_ROOT
from tests.e2e.team_support import applies, expand

WORKFLOW = REPO_ROOT / ".github" / "workflows" / "preview.yml"


def workflow() -> dict[Any, Any]:
    # Any keys: YAML 1.1 reads a bare `on` key as True.
    return yaml.safe_load(WORKFLOW.read_text())


def steps(job: str) -> list[dict[str, Any]]:
    return workflow()["jobs"][job]["steps"]


def run_lines(job: str) -> list[str]:
    return [line.strip() for step in steps(job) for line in step.get("run", "").splitlines()]


def test_runs_on_pull_requests_for_every_committed_stack() -> None:
    document = workflow()
    triggers = document["on"] if "on" in document else document[True]
    assert set(triggers) == {"pull_request"}
    stacks = document["jobs"]["preview"]["strategy"]["matrix"]["stack"]
    committed = sorted(p.name.split(".")[1] for p in REPO_ROOT.glob("Pulumi.*.yaml"))
    assert sorted(stacks) == committed


def test_previews_with_diff_and_summarises_the_json() -> None:
    lines = run_lines("preview")
    assert 'pulumi preview --diff --stack "$STACK" --non-interactive || status=$?' in lines
    assert any(line.startswith("pulumi preview --json --stack") for line in lines)
    assert ".venv/bin/python -m stacks.demo preview --json preview.json" in lines
    assert any("-m tools.preview_summary --stack" in line for line in lines)
    assert "make setup" in lines
    script = next(s["with"]["script"] for s in steps("comment") if "github-script" in s["uses"])
    assert "pulumi-preview-summary" in script and "updateComment" in script


def test_engine_and_go_modules_are_cached() -> None:
    cache = next(s for s in steps("preview") if s.get("uses", "").startswith("actions/cache"))
    # The engine's build directories only: the token cache beside them stays out.
    assert set(cache["with"]["path"].split()) == {
        "~/.cache/workspace-iac/pulumi-*",
        "~/go/pkg/mod",
    }
    assert "tools/engine/go.sum" in cache["with"]["key"]


def test_names_no_outside_address() -> None:
    assert not re.search(r"[a-z]+://", WORKFLOW.read_text())


def test_offline_config_check_passes_for_every_matrix_stack() -> None:
    command = next(s["run"] for s in steps("preview") if s.get("name", "").startswith("Check"))
    for stack in workflow()["jobs"]["preview"]["strategy"]["matrix"]["stack"]:
        result = subprocess.run(
            ["bash", "-c", command.replace(".venv/bin/python", sys.executable)],
            cwd=REPO_ROOT,
            env={**os.environ, "STACK": stack},
            capture_output=True,
            text=True,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.strip() == f"Pulumi.{stack}.yaml: ok"


def test_demo_knows_the_preview_command_and_its_arguments() -> None:
    usage = subprocess.run(
        [sys.executable, "-m", "stacks.demo", "preview", "--json"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert usage.returncode == 1 and "preview [--json FILE]" in usage.stderr


def test_every_step_condition_and_expression_is_one_the_e2e_runner_judges() -> None:
    """tests/e2e/test_shared_backend.py runs the job's steps from this file; a condition or
    expression its runner cannot judge would fail there, so it fails here first, offline."""
    context = {"matrix": {"stack": "dev"}, "vars": {}, "secrets": {}}
    job = workflow()["jobs"]["preview"]
    for step in job["steps"]:
        for stack in job["strategy"]["matrix"]["stack"]:
            applies(step, {"stack": stack})
        for value in [*step.get("env", {}).values(), step.get("run", "")]:
            assert "${{" not in expand(str(value), context), step.get("name")
    assert expand("${{ matrix.stack }}/${{ vars.X }}", {**context, "vars": {"X": "x"}}) == "dev/x"
    assert not applies({"if": "matrix.stack == 'local'"}, {"stack": "dev"})
    assert applies({"if": "always() && matrix.stack != 'local'"}, {"stack": "dev"})


# --- what the pull request's code can reach -------------------------------------------------

PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")


def test_no_token_can_write_but_the_comment_jobs() -> None:
    document = workflow()
    assert document["permissions"] == {}  # nothing by default
    jobs = document["jobs"]
    assert {name: job["permissions"] for name, job in jobs.items()} == {
        "preview": {"contents": "read", "id-token": "write"},
        "comment": {"pull-requests": "write"},
    }


def test_the_comment_job_runs_none_of_the_pull_requests_code() -> None:
    comment = workflow()["jobs"]["comment"]
    assert not any("checkout" in s.get("uses", "") or "run" in s for s in comment["steps"])


def test_every_checkout_keeps_no_credentials() -> None:
    checkouts = [s for job in workflow()["jobs"].values() for s in job["steps"]
                 if s.get("uses", "").startswith("actions/checkout@")]
    assert checkouts and all(s["with"]["persist-credentials"] is False for s in checkouts)


def test_every_action_is_pinned_by_commit() -> None:
    uses = [s["uses"] for job in workflow()["jobs"].values() for s in job["steps"] if "uses" in s]
    assert uses and [u for u in uses if not PINNED.match(u)] == []
    # The version each commit is, for a reader, beside it.
    assert all(re.search(r"@[0-9a-f]{40}  # v\d+", line)
               for line in WORKFLOW.read_text().splitlines() if "uses:" in line)


def test_real_stacks_run_behind_their_environment_and_local_sees_no_secret() -> None:
    """Each stack's job runs in its own environment (`preview-<stack>`: required reviewers
    and secrets per environment), and the steps the `local` stack runs name no secret."""
    preview = workflow()["jobs"]["preview"]
    assert preview["environment"] == "preview-${{ matrix.stack }}"
    local_steps = [s for s in preview["steps"] if applies(s, {"stack": "local"})]
    assert local_steps and not any("secrets." in yaml.safe_dump(s) for s in local_steps)
    with_secrets = [s for s in preview["steps"] if "secrets." in yaml.safe_dump(s)]
    assert [s["name"] for s in with_secrets] == ["Preview"]
