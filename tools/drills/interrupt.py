"""Interrupting a deployment: SIGKILL the `pulumi` process at a point of an up, then the
steps a user of Pulumi 3.79 with a file backend takes to carry on.

After a SIGKILL the file backend keeps the stack's lock file, and the checkpoint may hold
pending operations (creates the engine started but never saw finish). The user's way out,
as the CLI's own messages advise:

1. `pulumi cancel --yes`    removes the stale lock (the next command says the stack is
                            locked and names this command);
2. `pulumi refresh --yes`   when the checkpoint has pending operations, as the warning
                            about them advises; it reconciles what the state records. In
                            3.79 a non-interactive refresh leaves pending *creates* in place
                            (the CLI says so), and that is harmless here:
3. `pulumi up`              warns about the pending creates and creates what the state lacks;
                            a create adopts what the interrupted create made (jobs by
                            deployment tag, principals by application id, scopes by name),
                            so nothing is made twice. A successful up leaves no pending
                            operation behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass, field

from tools.pulumi_cli import PulumiCli

LOCKED = "currently locked"


@dataclass
class Recovery:
    steps: list[str] = field(default_factory=list)
    lock_left: bool = False
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


def kill_pulumi(process: subprocess.Popen[str], after_seconds: float,
                orphan_grace_seconds: float = 2.0) -> bool:
    """SIGKILL the pulumi process (only it) after `after_seconds`; returns whether it was
    still running. Its plugins (language host, dynamic provider host) are left running for
    `orphan_grace_seconds`, as after a real crash; a call already sent may complete. Then
    the orphans, in the up's own session, are ended."""
    deadline = time.monotonic() + after_seconds
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.02)
    killed = process.poll() is None
    if killed:
        process.send_signal(signal.SIGKILL)
    process.communicate()
    time.sleep(orphan_grace_seconds)
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return killed


def pending_operations(cli: PulumiCli) -> list[dict]:
    deployment = cli.export().get("deployment") or {}
    return list(deployment.get("pending_operations") or [])


def resume(cli: PulumiCli) -> tuple[Recovery, subprocess.CompletedProcess[str]]:
    """What a user does after the crash, up to and including the up that converges."""
    recovery = Recovery()
    result = cli.up(check=False)
    if result.returncode != 0 and LOCKED in result.stdout + result.stderr:
        recovery.lock_left = True
        recovery.steps.append("pulumi cancel --yes")
        cli.run("cancel", "--yes", "--stack", cli.stack)
        recovery.pending_after_crash = len(pending_operations(cli))
        if recovery.pending_after_crash:
            recovery.steps.append("pulumi refresh --yes")
            cli.refresh()
            recovery.pending_after_refresh = len(pending_operations(cli))
        recovery.steps.append("pulumi up")
        result = cli.up(check=False)
    else:
        recovery.steps.append("pulumi up")
    if result.returncode == 0:
        recovery.pending_after_up = len(pending_operations(cli))
    return recovery, result
