"""`workspace-iac fleet` against two emulators: five tiny stacks (a secret scope each), one
of them on an emulator that is stopped before the run. In parallel, four go up and the
fifth fails with its first error; the display, the summary table and the exit status say
so; a second run previews no changes for the four."""

from __future__ import annotations

import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from stacks.pulumi_cli import REPO_ROOT, PulumiCli
from tests.conftest import fresh_emulator
from tests.e2e.conftest import write_config
from tools.drills.local_stack import scratch_stack

pytestmark = pytest.mark.engine

COMMAND = str(Path(sys.executable).parent / "workspace-iac")
RUNNING = ["fleet-a", "fleet-b", "fleet-c", "fleet-d"]
STOPPED = "fleet-e"


def fleet(cli: PulumiCli, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [COMMAND, "fleet", *args, "--project-dir", str(cli.project_dir),
         "--state-dir", str(cli.state_dir)],
        capture_output=True, text=True, cwd=REPO_ROOT, env=cli.env(), timeout=600,
    )


def most_running_at_once(lines: list[str]) -> int:
    running: set[str] = set()
    most = 0
    for line in lines:
        name, _, status = line.partition(": ")
        if status.startswith("running"):
            running.add(name)
        elif status.startswith(("done", "failed")):
            running.discard(name)
        most = max(most, len(running))
    return most


def test_five_stacks_in_parallel_one_failing(tmp_path: Path) -> None:
    with fresh_emulator() as running:
        with fresh_emulator() as stopped, ThreadPoolExecutor(max_workers=3) as pool:
            made = [pool.submit(scratch_stack, tmp_path, info, {"secretScopes": [{"name": name}]},
                                stack=name)
                    for name, info in [*((n, running) for n in RUNNING), (STOPPED, stopped)]]
            clis = [future.result() for future in made]
        # The stopped emulator's stack fails at its first refused connection, not after the
        # client's retries.
        write_config(clis[-1], {"workspace:maxAttempts": 1})
        cli = clis[0]

        result = fleet(cli, "up", "--match", "Pulumi.fleet-*.yaml", "--parallel", "3")
        assert result.returncode == 1, result.stdout + result.stderr
        lines = result.stdout.splitlines()
        # The display: plain lines (no terminal), each stack waiting, running, then done
        # or failed; never more than three running at once.
        for name in [*RUNNING, STOPPED]:
            assert f"{name}: waiting" in lines
            assert any(line.startswith(f"{name}: running") for line in lines)
        for name in RUNNING:
            assert any(re.fullmatch(rf"{name}: done \(4 to create \(0 unchanged\), "
                                    r"[\d.]+s\)", line) for line in lines), lines
        assert any(line.startswith(f"{STOPPED}: failed (") for line in lines)
        assert most_running_at_once(lines) == 3
        # The table: a row per stack, the failure with its first error; the verdict.
        table = lines[lines.index("") + 1:]
        assert re.split(r"\s{2,}", table[0]) == [
            "stack", "result", "changes", "duration", "first error"]
        rows = {row.split()[0]: re.split(r"\s{2,}", row) for row in table[1:6]}
        for name in RUNNING:
            assert rows[name][1:3] == ["done", "4 to create (0 unchanged)"]
        assert rows[STOPPED][1:3] == ["failed", "-"]
        assert rows[STOPPED][4].startswith("could not sign in with auth type")
        assert "CONNECT_FAILED" in rows[STOPPED][4]
        assert table[6] == f"fleet up: 4 of 5 stacks succeeded; failed: {STOPPED}"

        stacks_file = tmp_path / "fleet.txt"
        stacks_file.write_text("# the stacks on the running emulator\n" + "\n".join(RUNNING))
        again = fleet(cli, "preview", "--stacks-file", str(stacks_file))
        assert again.returncode == 0, again.stdout + again.stderr
        for name in RUNNING:
            assert f"{name}: done (no changes (4 unchanged)" in again.stdout
        assert again.stdout.splitlines()[-1] == "fleet preview: 4 of 4 stacks succeeded"
