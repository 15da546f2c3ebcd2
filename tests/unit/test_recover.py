"""`workspace-iac recover` (stacks/recover.py) takes each step the killed stack calls for,
refuses (changing nothing) while a `pulumi` process holds the stack or where a pending
operation is not a workspace kind's, and says what it did. The engine-level proof, a
SIGKILLed up recovered by the one command, is in tests/reliability/test_interruption.py."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stacks import recover
from stacks.cli import main as workspace_iac
from stacks.pulumi_cli import PulumiCli

BROKEN_MESSAGE = "error: failed to load checkpoint: unexpected end of JSON input"
WORKSPACE_JOB = "pulumi-python:dynamic/workspace:Job"


def pending_create(type_: str, name: str) -> dict:
    return {"type": "creating",
            "resource": {"type": type_, "urn": f"urn:pulumi:local::workspace::{type_}::{name}"}}


class KilledStack(PulumiCli):
    """A stack as a SIGKILL leaves it in a file backend: a lock file, optionally a cut
    checkpoint (with its backup beside it), pending creates. The engine's commands answer as
    the 3.79 CLI does for that state; the files are real."""

    def __init__(self, tmp_path: Path, pending: list[dict], checkpoint_cut: bool = False,
                 lock_pid: int = 999_999_999) -> None:
        project = tmp_path / "project"
        project.mkdir()
        (project / "Pulumi.yaml").write_text("name: workspace\n")
        super().__init__(project_dir=project, stack="local", state_dir=tmp_path / "state")
        self.locks = self.state_dir / ".pulumi" / "locks" / "organization" / "workspace" / "local"
        self.locks.mkdir(parents=True)
        (self.locks / "a-lock.json").write_text(json.dumps(
            {"pid": lock_pid, "username": "u", "hostname": _hostname(),
             "timestamp": "2026-12-05T05:00:00Z"}))
        stacks = self.state_dir / ".pulumi" / "stacks" / "workspace"
        stacks.mkdir(parents=True)
        self.checkpoint = stacks / "local.json"
        self.checkpoint.write_text("" if checkpoint_cut else "{}")
        (stacks / "local.json.bak").write_text("{}")
        self.pending = pending
        self.commands: list[str] = []

    def run(self, *args: str, check: bool = True,
            timeout: float = 900) -> subprocess.CompletedProcess[str]:
        command = " ".join(a for a in args if not a.startswith("-"))
        self.commands.append(command)
        if not self.checkpoint.read_text():
            return self.answer(255, BROKEN_MESSAGE)
        if command.startswith("stack export"):
            return self.answer(0, stdout=json.dumps(
                {"deployment": {"resources": [], "pending_operations": self.pending}}))
        if command.startswith("stack import"):
            imported = json.loads(Path(args[args.index("--file") + 1]).read_text())
            self.pending = imported["deployment"]["pending_operations"]
            return self.answer(0)
        if command.startswith("cancel"):
            shutil.rmtree(self.locks)
            return self.answer(0)
        return self.answer(0)

    def answer(self, code: int, stderr: str = "",
               stdout: str = "") -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess([], code, stdout, stderr)


def _hostname() -> str:
    return socket.gethostname()


@pytest.fixture
def running_pulumi(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A process named `pulumi` (a copy of sleep), as a live `pulumi up` is seen in /proc."""
    binary = tmp_path / "bin" / "pulumi"
    binary.parent.mkdir()
    shutil.copy(shutil.which("sleep") or "/bin/sleep", binary)
    process = subprocess.Popen([str(binary), "60"])
    comm = Path(f"/proc/{process.pid}/comm")
    while comm.read_text().strip() != "pulumi":  # until its exec
        time.sleep(0.01)
    try:
        yield process
    finally:
        process.kill()
        process.wait()


def test_a_killed_stack_is_unlocked_cleared_and_refreshed(tmp_path: Path) -> None:
    stack = KilledStack(tmp_path, [pending_create(WORKSPACE_JOB, "etl")])
    said: list[str] = []
    done = recover.recover(stack, say=said.append)
    assert done.lock_removed and not stack.locks.exists()
    assert done.pending_cleared == 1 and stack.pending == []
    assert stack.commands[-1] == "refresh local"
    assert done.steps == [
        "removed the stale lock (`pulumi cancel --yes`)",
        "cleared 1 pending operation(s) of workspace kinds, whose creates adopt what the "
        "interrupted run made",
        "refreshed the stack (`pulumi refresh`)",
    ]
    assert said[:3] == done.steps and said[-1].startswith("recovered stack local")


def test_a_cut_checkpoint_is_put_back_before_anything_else(tmp_path: Path) -> None:
    stack = KilledStack(tmp_path, [], checkpoint_cut=True)
    done = recover.recover(stack, say=lambda line: None)
    assert done.checkpoint_restored and stack.checkpoint.read_text() == "{}"
    assert done.steps[0].startswith("put back the checkpoint's backup")
    assert done.pending_cleared == 0 and done.lock_removed


def test_in_the_single_write_mode_there_is_nothing_to_clear(tmp_path: Path) -> None:
    stack = KilledStack(tmp_path, [])
    stack.single_write = True
    said: list[str] = []
    done = recover.recover(stack, say=said.append)
    assert done.pending_cleared == 0 and done.lock_removed
    assert not any(c.startswith("stack import") for c in stack.commands)
    assert any("single-write mode" in line for line in said)


def test_pending_operations_of_another_provider_are_refused_unchanged(tmp_path: Path) -> None:
    stack = KilledStack(tmp_path, [pending_create(WORKSPACE_JOB, "etl"),
                                   pending_create("aws:s3/bucket:Bucket", "logs")])
    with pytest.raises(recover.RecoveryRefused, match=r"aws:s3/bucket:Bucket logs"):
        recover.recover(stack, say=lambda line: None)
    assert stack.locks.exists() and len(stack.pending) == 2
    assert set(stack.commands) == {"stack export local"}  # read only


def test_a_lock_whose_pulumi_still_runs_is_refused_unchanged(
        tmp_path: Path, running_pulumi: subprocess.Popen[bytes]) -> None:
    stack = KilledStack(tmp_path, [], lock_pid=running_pulumi.pid)
    with pytest.raises(recover.RecoveryRefused,
                       match=rf"pulumi process {running_pulumi.pid} holds the stack's lock"):
        recover.recover(stack, say=lambda line: None)
    assert stack.locks.exists() and stack.commands == []


def test_a_lock_of_another_machine_is_refused_unchanged(tmp_path: Path) -> None:
    stack = KilledStack(tmp_path, [])
    lock = next(stack.locks.iterdir())
    lock.write_text(json.dumps({"pid": 1, "hostname": "ci-runner-7", "timestamp": "t"}))
    with pytest.raises(recover.RecoveryRefused, match="a lock of ci-runner-7"):
        recover.recover(stack, say=lambda line: None)
    assert lock.exists() and stack.commands == []


def test_the_command_refuses_with_exit_status_1(tmp_path: Path, capsys) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "Pulumi.yaml").write_text("name: workspace\n")
    locks = tmp_path / "state" / ".pulumi" / "locks" / "organization" / "workspace" / "dev"
    locks.mkdir(parents=True)
    (locks / "l.json").write_text(json.dumps({"pid": 1, "hostname": "elsewhere"}))
    status = workspace_iac(["recover", "--stack", "dev", "--project-dir", str(project),
                            "--state-dir", str(tmp_path / "state")])
    assert status == 1
    assert "recover: refused: the stack may be in use, nothing changed: a lock of elsewhere" \
        in capsys.readouterr().err
