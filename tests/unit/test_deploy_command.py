"""`workspace-iac deploy` (stacks/deploy.py) from the engine's answers alone: a failed up's
summary names the failure and its error, whether the engine's JSON says why or only its
error output does; the up always refreshes first."""

from __future__ import annotations

import json
import subprocess
from typing import Any

from stacks.deploy import EXIT_DEPLOYED, EXIT_FAILED, deploy


class FakeCli:
    stack = "dev"

    def __init__(self, returncode: int, stdout: str, stderr: str = "") -> None:
        self.answer = (returncode, stdout, stderr)
        self.calls: list[tuple[str, ...]] = []

    def select_or_init(self) -> None:
        self.calls.append(("stack", "select", "--create", self.stack))

    def run(self, *args: str, **_: Any) -> subprocess.CompletedProcess[str]:
        self.calls.append(args)
        return subprocess.CompletedProcess(args, *self.answer)


def test_an_up_that_failed_before_its_json_names_the_engines_error() -> None:
    cli = FakeCli(255, "", "Updating (dev):\nerror: could not sign in with auth type "
                           "'github-oidc': no ACTIONS_ID_TOKEN_REQUEST_URL\n")
    status, markdown = deploy(cli)  # type: ignore[arg-type]
    assert status == EXIT_FAILED
    assert cli.calls[1] == ("up", "--yes", "--refresh", "--json", "--stack", "dev")
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
