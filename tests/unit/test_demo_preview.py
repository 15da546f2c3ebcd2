"""`stacks.demo preview --json FILE --events FILE`: both previews run under the local stack's
guardrails, and the JSON one has the engine write its event log (the guardrails broken) to
the events file, for the pull request's summary."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from stacks import demo


class LocalStack:
    """The local stack's CLI: records each run; the engine writes one policy event."""

    stack = demo.STACK

    def __init__(self, project_dir: Path) -> None:
        self.project_dir = project_dir
        self.extra_env: dict[str, str] = {}
        self.runs: list[tuple[str, ...]] = []

    def run(self, *args: str, **_: Any) -> subprocess.CompletedProcess[str]:
        self.runs.append(args)
        event = {"policyEvent": {"policyName": "job-owner-tag", "enforcementLevel": "advisory"}}
        Path(args[args.index("--event-log") + 1]).write_text(json.dumps(event) + "\n")
        return subprocess.CompletedProcess(args, 0, '{"steps": []}', "")


def test_the_json_preview_has_the_guardrails_and_writes_its_event_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "Pulumi.local.yaml").write_text("config: {}\n")
    cli = LocalStack(tmp_path)
    shown: list[tuple[str, ...]] = []

    def run_live(_: object, *args: str) -> int:
        shown.append(args)
        return 0

    monkeypatch.setattr(demo, "start_emulator", lambda: {})
    monkeypatch.setattr(demo, "local_stack", lambda info: cli)
    monkeypatch.setattr(demo, "run_live", run_live)

    demo.preview(str(tmp_path / "preview.json"), str(tmp_path / "events.jsonl"))

    out = tmp_path / ".guardrails" / "local"
    flags = ("--policy-pack", str(out / "pack"), "--policy-pack-config", str(out / "config.json"))
    assert shown == [("preview", "--diff", *flags)]
    assert cli.runs == [("preview", "--json", "--stack", "local", *flags,
                         "--event-log", str(tmp_path / "events.jsonl"))]
    assert cli.extra_env == {"PULUMI_DEBUG_COMMANDS": "true"}  # `--event-log` on 3.79
    assert (tmp_path / "preview.json").read_text() == '{"steps": []}'
    assert "job-owner-tag" in (tmp_path / "events.jsonl").read_text()
