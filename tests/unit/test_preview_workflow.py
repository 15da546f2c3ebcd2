"""The pull-request preview workflow (.github/workflows/preview.yml) fits the project: one
job per committed stack, commands that exist, the engine restored from the default branch's
cache, and no address of any outside service in it; and it cannot hand a branch's code
credentials unreviewed (docs/ci-previews.md)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from stacks.pulumi_cli import REPO_ROOT
from tests.e2e.team_support import applies, expand

ENSURE = REPO_ROOT / "tools" / "engine" / "ensure.sh"

WORKFLOWS = REPO_ROOT / ".github" / "workflows"
WORKFLOW = WORKFLOWS / "preview.yml"
ENGINE_CACHE = WORKFLOWS / "engine-cache.yml"
# The jobs that run with a stack's credentials (an environment, an OIDC token).
CREDENTIALED = ("preview",)


def workflow(path: Path = WORKFLOW) -> dict[Any, Any]:
    # Any keys: YAML 1.1 reads a bare `on` key as True.
    return yaml.safe_load(path.read_text())


def triggers(document: dict[Any, Any]) -> dict[str, Any]:
    found = document["on"] if "on" in document else document[True]
    return found if isinstance(found, dict) else {name: None for name in found}


def steps(job: str) -> list[dict[str, Any]]:
    return workflow()["jobs"][job]["steps"]


def matrix_stacks() -> list[str]:
    """The stacks the preview's matrix holds: what its `environments` job lists, run as the
    job runs it (the fleet list, stacks/fleet_list.py)."""
    [listing] = [s for s in steps("environments") if s.get("id") == "list"]
    command = listing["run"].removeprefix('echo "stacks=$(').split(')" >>')[0]
    result = subprocess.run(["bash", "-c", command], cwd=REPO_ROOT, capture_output=True, text=True,
                            check=True, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    stacks: list[str] = json.loads(result.stdout)
    return stacks


def run_lines(job: str) -> list[str]:
    return [line.strip() for step in steps(job) for line in step.get("run", "").splitlines()]


def test_runs_on_pull_requests_for_every_committed_stack() -> None:
    document = workflow()
    assert set(triggers(document)) == {"pull_request"}
    # The matrix is the fleet list: adding a workspace is adding its settings file.
    assert document["jobs"]["preview"]["strategy"]["matrix"]["stack"] == (
        "${{ fromJSON(needs.environments.outputs.stacks) }}")
    assert document["jobs"]["environments"]["outputs"]["stacks"] == (
        "${{ steps.list.outputs.stacks }}")
    stacks = matrix_stacks()
    assert document["jobs"]["local"]["env"]["STACK"] == "local"
    committed = sorted(p.name.split(".")[1] for p in REPO_ROOT.glob("Pulumi.*.yaml"))
    assert sorted([*stacks, "local"]) == committed


def test_previews_with_diff_and_summarises_the_json() -> None:
    lines = run_lines("preview")
    assert 'guardrails="$(.venv/bin/workspace-iac guardrails --stack "$STACK")"' in lines
    assert ('pulumi preview --diff --stack "$STACK" --non-interactive $guardrails '
            '|| status=$?') in lines
    assert any(line.startswith("PULUMI_DEBUG_COMMANDS=true pulumi preview --json --stack")
               and line.endswith("$guardrails --event-log events.jsonl > preview.json || true")
               for line in lines)
    local = run_lines("local")
    assert (".venv/bin/python -m stacks.demo preview --json preview.json "
            "--events events.jsonl") in local
    for job in (lines, local):
        assert any(line.startswith(".venv/bin/workspace-iac summary --stack")
                   and "--events events.jsonl" in line for line in job)
        assert "make setup" in job
    script = next(s["with"]["script"] for s in steps("comment") if "github-script" in s["uses"])
    assert "pulumi-preview-summary" in script and "updateComment" in script


def cache_steps(document: dict[Any, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, step) for name, job in document["jobs"].items() for step in job["steps"]
            if step.get("uses", "").startswith("actions/cache")]


def test_pull_requests_restore_the_engine_and_save_no_cache() -> None:
    """H2: a cache entry a pull request's run saves would hold its code, and the jobs with
    credentials would restore it. Every workflow a pull request triggers only restores (the
    `restore` action, never the one that saves after the job, nor `save`); only the
    workflow of the default branch saves, under the key and paths the previews restore."""
    for path in WORKFLOWS.glob("*.y*ml"):
        document = workflow(path)
        steps = cache_steps(document)
        if "pull_request" in triggers(document) or "pull_request_target" in triggers(document):
            assert steps and {s["uses"].split("@")[0] for _, s in steps} == {
                "actions/cache/restore"}, path.name
    restores = cache_steps(workflow())
    assert sorted(job for job, _ in restores) == ["local", "preview"]
    saving = workflow(ENGINE_CACHE)
    assert triggers(saving)["push"]["branches"] == ["main"]
    assert "pull_request" not in triggers(saving) and "pull_request_target" not in triggers(saving)
    [save] = [s for _, s in cache_steps(saving) if s["uses"].startswith("actions/cache/save@")]
    for _, restore in restores:
        # The engine's build directories only: no Go modules, not the token cache beside them.
        assert restore["with"]["path"] == save["with"]["path"] == "~/.cache/workspace-iac/pulumi-*"
        assert restore["with"]["key"] == save["with"]["key"]
        assert "hashFiles('tools/engine/**')" in restore["with"]["key"]


def test_ci_builds_with_the_toolchain_the_engine_hashes_are_of() -> None:
    """The jobs install the Go release ensure.sh pins, so a build there needs no other
    toolchain and gives the binaries engine.sha256 records."""
    pinned = re.search(r"^toolchain=go(\S+)$", ENSURE.read_text(), re.MULTILINE)
    assert pinned
    building = 0
    for path in WORKFLOWS.glob("*.y*ml"):
        for job in workflow(path)["jobs"].values():
            runs = "\n".join(s.get("run", "") for s in job["steps"])
            setups = [s for s in job["steps"] if s.get("uses", "").startswith("actions/setup-go@")]
            if "make setup" in runs or "tools/engine/ensure.sh" in runs:
                building += 1
                assert [s["with"]["go-version"] for s in setups] == [pinned.group(1)], path.name
            else:
                assert setups == [], path.name
    # preview (local, preview), engine-cache, deploy (dev, staging, prod), drift.
    assert building == 7


def test_names_no_outside_address() -> None:
    for path in WORKFLOWS.glob("*.y*ml"):
        assert not re.search(r"[a-z]+://", path.read_text()), path.name


def test_offline_config_check_passes_for_every_matrix_stack() -> None:
    command = next(s["run"] for s in steps("preview") if s.get("name", "").startswith("Check"))
    local = next(s["run"] for s in steps("local") if s.get("name", "").startswith("Check"))
    assert local == command
    for stack in [*matrix_stacks(), "local"]:
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
    assert usage.returncode == 1 and "preview [--json FILE [--events FILE]]" in usage.stderr


def test_every_step_condition_and_expression_is_one_the_e2e_runner_judges() -> None:
    """tests/e2e/test_shared_backend.py runs the job's steps from this file; a condition or
    expression its runner cannot judge would fail there, so it fails here first, offline."""
    context = {"matrix": {"stack": "dev"}, "vars": {}, "secrets": {}}
    job = workflow()["jobs"]["preview"]
    assert "if" not in job and all(s.get("if", "always()") == "always()" for s in job["steps"])
    for step in job["steps"]:
        for stack in matrix_stacks():
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
        "environments": {"contents": "read", "actions": "read"},
        "local": {"contents": "read"},
        "preview": {"contents": "read", "id-token": "write"},
        "comment": {"pull-requests": "write"},
    }
    assert workflow(ENGINE_CACHE)["permissions"] == {}
    assert workflow(ENGINE_CACHE)["jobs"]["engine"]["permissions"] == {"contents": "read"}


def test_local_runs_in_no_environment_and_holds_no_oidc_token() -> None:
    """M8: the `local` stack needs no credential, so its job asks for none: no environment
    (which GitHub would create unprotected), no `id-token: write`, no secret or variable."""
    jobs = workflow()["jobs"]
    local = jobs["local"]
    assert "environment" not in local and "strategy" not in local and "needs" not in local
    assert "id-token" not in local["permissions"]
    assert not re.search(r"\b(secrets|vars)\.", yaml.safe_dump(local))
    # Only the jobs with credentials have an environment or an OIDC token.
    holding = sorted(name for name, job in jobs.items()
                     if "environment" in job or "id-token" in job["permissions"])
    assert holding == list(CREDENTIALED)


def test_every_job_with_credentials_waits_for_the_environment_check() -> None:
    """M8: the first job fails unless the environments exist with their protection rules
    (tools/ci_environments.py), and each job holding credentials needs it, so none starts
    where GitHub would create its environment unprotected."""
    jobs = workflow()["jobs"]
    check = jobs["environments"]
    assert "needs" not in check and "environment" not in check
    [run] = [s for s in check["steps"] if "run" in s and "ci_environments" in s["run"]]
    assert run["run"].startswith("python3 -m tools.ci_environments --default-branch")
    assert run["run"].split()[-1] == "$STACKS"
    assert run["env"]["STACKS"] == "${{ join(fromJSON(steps.list.outputs.stacks), ' ') }}"
    assert matrix_stacks() == ["dev", "prod", "staging"]
    assert run["env"]["GITHUB_TOKEN"] == "${{ github.token }}"
    # The job has no environment: a backend address it can see is a repository one.
    assert run["env"]["REPOSITORY_BACKEND_URL"] == "${{ vars.PULUMI_BACKEND_URL }}"
    for name in CREDENTIALED:
        needs = jobs[name]["needs"]
        assert "environments" in ([needs] if isinstance(needs, str) else needs)
        assert "if" not in jobs[name]  # a failed check skips it: no `always()`


def test_the_comment_job_updates_only_its_own_comment() -> None:
    """L16: anyone may write the marker into a comment; the job edits the one comment
    written by the workflow's bot that carries it, else posts a new one."""
    script = next(s["with"]["script"] for s in steps("comment") if "github-script" in s["uses"])
    finding = next(line for line in script.splitlines() if "comments.find(" in line)
    assert "const bot = 'github-actions[bot]';" in script
    found = script[script.index(finding):script.index("if (previous)")]
    assert "c.user.login === bot" in found and "c.user.type === 'Bot'" in found
    assert "c.body.includes(marker)" in found
    assert "comment_id: previous.id" in script


def test_the_comment_job_runs_none_of_the_pull_requests_code() -> None:
    comment = workflow()["jobs"]["comment"]
    assert not any("checkout" in s.get("uses", "") or "run" in s for s in comment["steps"])


def all_steps() -> list[dict[str, Any]]:
    return [s for path in (WORKFLOW, ENGINE_CACHE) for job in workflow(path)["jobs"].values()
            for s in job["steps"]]


def test_every_checkout_keeps_no_credentials() -> None:
    checkouts = [s for s in all_steps() if s.get("uses", "").startswith("actions/checkout@")]
    assert len(checkouts) == 4 and all(s["with"]["persist-credentials"] is False
                                       for s in checkouts)


def test_every_action_is_pinned_by_commit() -> None:
    uses = [s["uses"] for s in all_steps() if "uses" in s]
    assert uses and [u for u in uses if not PINNED.match(u)] == []
    # The version each commit is, for a reader, beside it.
    for path in (WORKFLOW, ENGINE_CACHE):
        assert all(re.search(r"@[0-9a-f]{40}  # v\d+", line)
                   for line in path.read_text().splitlines() if "uses:" in line)


def test_real_stacks_run_behind_their_environment_and_local_sees_no_secret() -> None:
    """Each real stack's job runs in its own environment (`preview-<stack>`: required
    reviewers, secrets and the backend's address per environment); only its Preview step
    names a secret, and the `local` job none."""
    preview = workflow()["jobs"]["preview"]
    assert preview["environment"] == "preview-${{ matrix.stack }}"
    assert "local" not in preview["strategy"]["matrix"]["stack"]
    local_steps = workflow()["jobs"]["local"]["steps"]
    assert local_steps and not any("secrets." in yaml.safe_dump(s) for s in local_steps)
    with_secrets = [s for s in preview["steps"] if "secrets." in yaml.safe_dump(s)]
    assert [s["name"] for s in with_secrets] == ["Preview"]
