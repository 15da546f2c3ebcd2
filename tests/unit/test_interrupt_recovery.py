"""The recovery after a killed `pulumi up` takes each step the CLI's messages call for, in
whatever order they show: a checkpoint the kill cut short hides the stale lock until the
checkpoint is restored (the up fails on loading it before it asks for the lock)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from stacks.pulumi_cli import PulumiCli
from tools.drills import interrupt

LOCK_MESSAGE = "error: the stack is currently locked by 1 lock(s)."
BROKEN_MESSAGE = "error: failed to load checkpoint: unexpected end of JSON input"


class KilledStack(PulumiCli):
    """A stack as a SIGKILL leaves it: a lock, optionally a cut checkpoint, one pending
    create. Commands answer as the 3.79 CLI does for that state."""

    def __init__(self, tmp_path: Path, checkpoint_cut: bool) -> None:
        super().__init__(project_dir=tmp_path, stack="local", state_dir=tmp_path)
        (tmp_path / "Pulumi.yaml").write_text("name: workspace\n")
        self.locked = True
        self.checkpoint_cut = checkpoint_cut
        self.pending = [{"type": "creating"}]
        self.commands: list[str] = []

    def run(self, *args: str, check: bool = True,
            timeout: float = 900) -> subprocess.CompletedProcess[str]:
        command = " ".join(a for a in args if not a.startswith("-"))
        self.commands.append(command)
        if command.startswith("stack import"):
            self.pending = []
            return self.answer(0)
        if command.startswith("stack export"):
            if self.checkpoint_cut:
                return self.answer(255, BROKEN_MESSAGE)
            return self.answer(0, stdout=json.dumps(
                {"deployment": {"pending_operations": self.pending}}))
        if command.startswith("cancel"):
            self.locked = False
            return self.answer(0)
        if self.checkpoint_cut:
            return self.answer(255, BROKEN_MESSAGE)
        if self.locked:
            return self.answer(255, LOCK_MESSAGE)
        return self.answer(0)

    def answer(self, code: int, stderr: str = "",
               stdout: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess([], code, stdout, stderr)


def restore_by_clearing(stack: KilledStack):
    def restore(cli: PulumiCli) -> None:
        stack.checkpoint_cut = False
    return restore


def test_lock_shown_first_is_cancelled_first(tmp_path: Path) -> None:
    stack = KilledStack(tmp_path, checkpoint_cut=False)
    recovery, result = interrupt.resume(stack)
    assert result.returncode == 0
    assert recovery.steps[0] == "pulumi cancel --yes"
    assert recovery.steps[-1] == "pulumi up"
    assert not stack.locked and recovery.lock_left


def test_lock_hidden_behind_a_cut_checkpoint_is_cancelled_when_it_shows(
        tmp_path: Path, monkeypatch) -> None:
    stack = KilledStack(tmp_path, checkpoint_cut=True)
    monkeypatch.setattr(interrupt, "restore_checkpoint_backup", restore_by_clearing(stack))
    recovery, result = interrupt.resume(stack)
    assert result.returncode == 0, result.stderr
    assert recovery.checkpoint_restored and recovery.lock_left
    assert recovery.steps.index("restore <stack>.json.bak") < recovery.steps.index(
        "pulumi cancel --yes")
    assert stack.commands.count("cancel local") == 1
    assert recovery.steps[-1] == "pulumi up"
