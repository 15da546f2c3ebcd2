"""Interrupting a deployment: SIGKILL the `pulumi` process at a point of an up, then the
one step a user takes to carry on, `workspace-iac recover --stack <stack>` (stacks/recover.py),
and the up that finishes what the killed one began.

After a SIGKILL the file backend keeps the stack's lock file, and (without the single-write
mode) the checkpoint may hold pending operations: creates the engine started but never saw
finish, which the 3.79 engine's non-interactive refresh and up leave in place. `recover`
checks that no `pulumi` holds the stack, puts back the checkpoint's backup if the kill cut
the checkpoint short, removes the lock, clears the pending operations (all of workspace
kinds: their creates adopt what the interrupted one made) and refreshes. The next
`pulumi up` creates what the state lacks, adopting what the killed run made (jobs by
deployment tag, principals by application id, scopes by name), so nothing is made twice.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from stacks import recover
from stacks.pulumi_cli import PulumiCli
from workspace_emulator.testing import EmulatorInfo, request_log

RECOVER_STEP = "workspace-iac recover"


@dataclass
class Recovery:
    steps: list[str] = field(default_factory=list)
    lock_left: bool = False
    checkpoint_restored: bool = False
    pending_after_crash: int = 0
    pending_after_refresh: int = 0
    pending_after_up: int = 0


def start_up(cli: PulumiCli) -> subprocess.Popen[str]:
    """`pulumi up` in its own session, so its children can be found after a SIGKILL."""
    return subprocess.Popen(
        ["pulumi", "up", "--yes", "--skip-preview", "--non-interactive", "--stack", cli.stack],
        cwd=cli.project_dir, env=cli.env(), stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, start_new_session=True,
    )


CREATE_PATHS = ("/api/2.0/jobs/create", "/api/2.0/preview/scim/v2/ServicePrincipals",
                "/api/2.0/secrets/scopes/create")


def first_create_acknowledged(info: EmulatorInfo) -> bool:
    """Whether the emulator has answered a create with success (the stack's state cannot
    have recorded it yet: the engine writes the checkpoint after the provider returns)."""
    return any(e["method"] == "POST" and e["path"] in CREATE_PATHS and e["status"] == 200
               for e in request_log(info))


def wait_until(process: subprocess.Popen[str], seconds: float,
               condition: Callable[[], bool] | None = None) -> bool:
    """Waits `seconds`, or until `condition()` holds; returns whether `process` still runs."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        if condition is not None and condition():
            break
        time.sleep(0.02)
    return process.poll() is None


def kill_pulumi(process: subprocess.Popen[str], after_seconds: float,
                condition: Callable[[], bool] | None = None,
                orphan_grace_seconds: float = 2.0) -> bool:
    """SIGKILL the pulumi process (only it) after `after_seconds` or once `condition()`
    holds; returns whether it was still running. Its plugins (language host, dynamic
    provider host) are left running for `orphan_grace_seconds`, as after a real crash, so a
    call already sent may complete. Then the orphans, in the up's own session, are ended."""
    killed = wait_until(process, after_seconds, condition)
    if killed:
        process.send_signal(signal.SIGKILL)
    process.communicate()
    time.sleep(orphan_grace_seconds)
    for pid in session_members(process.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return killed


def session_members(session_id: int) -> list[int]:
    """Processes of a session (the plugins put themselves in process groups of their own,
    so killpg would miss them; the session is the up's)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session_id:  # after the name: state, ppid, pgrp, session
            members.append(int(stat.parent.name))
    return members


def pending_operations(cli: PulumiCli) -> list[dict]:
    return recover.pending_operations(cli.export())


def checkpoint_broken(cli: PulumiCli) -> bool:
    return recover.checkpoint_broken(cli)


def resume(cli: PulumiCli) -> tuple[Recovery, subprocess.CompletedProcess[str]]:
    """What a user does after the crash: `workspace-iac recover`, then the up that
    converges."""
    recovery = Recovery()
    if not recover.checkpoint_broken(cli):
        recovery.pending_after_crash = len(pending_operations(cli))
    done = recover.recover(cli, say=lambda line: None)
    recovery.steps.append(RECOVER_STEP)
    recovery.steps.extend(f"  {step}" for step in done.steps)
    recovery.lock_left = done.lock_removed
    recovery.checkpoint_restored = done.checkpoint_restored
    recovery.pending_after_refresh = len(pending_operations(cli))
    recovery.steps.append("pulumi up")
    result = cli.up(check=False)
    if result.returncode == 0:
        recovery.pending_after_up = len(pending_operations(cli))
    return recovery, result
