"""`workspace-iac deploy` (stacks/deploy.py) from the engine's answers alone: a failed up's
summary names the failure and its error, whether the engine's JSON says why or only its
error output does; the up always refreshes first, under the stack's guardrails, whose
findings the summary lists under their resources."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from stacks.deploy import EXIT_DEPLOYED, EXIT_FAILED, deploy


class FakeCli:
    stack = "dev"

    def __init__(self, returncode: int, stdout: str, stderr: str = "",
                 events: list[dict[str, Any]] | None = None) -> None:
        self.answer = (returncode, stdout, stderr)
        self.calls: list[tuple[str, ...]] = []
        self.events = events or []
        self.extra_env: dict[str, str] = {}
        self.project_dir = Path.cwd()
        self.single_write = False

    def select_or_init(self) -> None:
        self.calls.append(("stack", "select", "--create", self.stack))

    def run(self, *args: str, **_: Any) -> subprocess.CompletedProcess[str]:
        self.calls.append(args)
        if args[:2] == ("stack", "ls"):  # a new stack: nothing in a state to refuse
            return subprocess.CompletedProcess(args, 0, "[]", "")
        log = Path(args[args.index("--event-log") + 1])
        log.write_text("".join(json.dumps(e) + "\n" for e in self.events))
        return subprocess.CompletedProcess(args, *self.answer)


@pytest.fixture(autouse=True)
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project whose dev stack declares nothing: the starter guardrails, advisory."""
    (tmp_path / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_an_up_that_failed_before_its_json_names_the_engines_error() -> None:
    cli = FakeCli(255, "", "Updating (dev):\nerror: could not sign in with auth type "
                           "'github-oidc': no ACTIONS_ID_TOKEN_REQUEST_URL\n")
    status, markdown = deploy(cli)  # type: ignore[arg-type]
    assert status == EXIT_FAILED
    up = cli.calls[1]
    assert not cli.single_write  # the stack asks for no single write
    assert up[:6] == ("up", "--yes", "--refresh", "--json", "--stack", "dev")
    pack = Path(up[up.index("--policy-pack") + 1])
    assert (pack / "PulumiPolicy.yaml").is_file()
    assert Path(up[up.index("--policy-pack-config") + 1]).is_file()
    assert cli.extra_env == {"PULUMI_DEBUG_COMMANDS": "true"}  # the event log's flag on 3.79
    assert markdown.splitlines()[:5] == [
        "### Pulumi up: `dev`", "", "**The up failed.**", "", "```"]
    assert ("Updating (dev):\nerror: could not sign in with auth type 'github-oidc': no "
            "ACTIONS_ID_TOKEN_REQUEST_URL") in markdown


def test_an_up_whose_json_says_why_is_summarised_from_it() -> None:
    update = {"steps": [], "diagnostics": [
        {"severity": "error", "message": "error: grants on catalog main: PERMISSION_DENIED"}]}
    status, markdown = deploy(FakeCli(255, json.dumps(update)))  # type: ignore[arg-type]
    assert status == EXIT_FAILED
    assert "grants on catalog main: PERMISSION_DENIED" in markdown
    assert "error: grants" not in markdown


def test_a_deployed_stack_with_nothing_to_do_says_so() -> None:
    update = {"steps": [], "changeSummary": {"same": 5}}
    # 3.79 prints its engine events after the JSON document.
    stdout = json.dumps(update) + '\n{"sequence":0,"cancelEvent":{}}\n'
    assert deploy(FakeCli(0, stdout)) == (  # type: ignore[arg-type]
        EXIT_DEPLOYED, "### Pulumi up: `dev`\n\nNo changes (5 unchanged).\n")


def test_a_guardrail_broken_during_the_up_is_listed_under_its_resource() -> None:
    urn = "urn:pulumi:dev::p::pulumi-python:dynamic/workspace:Job::nightly"
    events = [{"policyEvent": {
        "resourceUrn": urn, "policyName": "job-owner-tag", "enforcementLevel": "mandatory",
        "message": "Every job has an owner tag.\nAdd tags.owner to the job."}}]
    update = {"steps": [], "diagnostics": [
        {"severity": "error", "message": "error: preview failed: mandatory policy violations"}]}
    status, markdown = deploy(FakeCli(255, json.dumps(update), events=events))  # type: ignore[arg-type]
    assert status == EXIT_FAILED
    assert "**mandatory** `job-owner-tag`" in markdown
    assert "nightly" in markdown


def test_a_stack_asking_for_a_single_write_is_deployed_in_that_mode(project: Path) -> None:
    (project / "Pulumi.dev.yaml").write_text("config:\n  workspace:singleWrite: true\n")
    cli = FakeCli(0, json.dumps({"steps": [], "changeSummary": {"same": 1}}))
    assert deploy(cli)[0] == EXIT_DEPLOYED  # type: ignore[arg-type]
    assert cli.single_write, "the engine writes the state once (docs/state.md)"
    assert cli.calls[0] == ("stack", "ls", "--json")  # its state checked first
