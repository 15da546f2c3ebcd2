"""Interrupting a deployment: SIGKILL the `pulumi` process at a point of an up, then the
steps a user of Pulumi 3.79 with a file backend takes to carry on.

After a SIGKILL the file backend keeps the stack's lock file, and the checkpoint may hold
pending operations (creates the engine started but never saw finish). The user's way out,
as the CLI's own messages advise:

1. `pulumi cancel --yes`    removes the stale lock (the first command that takes the lock
                            says the stack is locked and names this command);
2. `pulumi refresh --yes`   when the checkpoint has pending operations, as the warning
                            about them advises; it reconciles what the state records. In
                            3.79 a non-interactive refresh leaves pending *creates* in place
                            (the CLI says it must run interactively to clear them), and so
                            does a successful up: they stay and are warned about forever;
3. `pulumi stack export`, drop `pending_operations`, `pulumi stack import`: clears them.
   (Rarely the kill cuts the checkpoint file short: every command then fails with "failed
   to load checkpoint". The file backend keeps the previous checkpoint next to it as
   `.pulumi/stacks/<project>/<stack>.json.bak`; copying it back is the fix, and what it
   lacks the next up adopts like any interrupted create.)
                            Safe here because
4. `pulumi up`              creates what the state lacks, and a create adopts what the
                            interrupted create made (jobs by deployment tag, principals by
                            application id, scopes by name), so nothing is made twice.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from stacks.pulumi_cli import PulumiCli
from workspace_emulator.testing import EmulatorInfo, request_log

LOCKED = "currently locked"


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
    deployment = cli.export().get("deployment") or {}
    return list(deployment.get("pending_operations") or [])


def clear_pending_operations(cli: PulumiCli) -> None:
    """`pulumi stack export`, drop `pending_operations`, `pulumi stack import`: the 3.79 way
    to clear pending creates without an interactive refresh."""
    state = cli.export()
    state["deployment"]["pending_operations"] = []
    path = cli.state_dir / f"{cli.stack}-without-pending.json"
    path.write_text(json.dumps(state))
    try:
        cli.run("stack", "import", "--file", str(path), "--stack", cli.stack)
    finally:
        path.unlink()


BROKEN_CHECKPOINT = "failed to load checkpoint"


def checkpoint_broken(cli: PulumiCli) -> bool:
    result = cli.run("stack", "export", "--stack", cli.stack, check=False)
    return result.returncode != 0 and BROKEN_CHECKPOINT in result.stderr


def restore_checkpoint_backup(cli: PulumiCli) -> None:
    """Put back `<stack>.json.bak`, the checkpoint before the one the kill cut short (the
    file backend keeps it next to the stack's file)."""
    project = yaml.safe_load((cli.project_dir / "Pulumi.yaml").read_text())["name"]
    stacks = cli.state_dir / ".pulumi" / "stacks" / project
    for suffix in ("", ".attrs"):
        backup = stacks / f"{cli.stack}.json.bak{suffix}"
        if backup.exists():
            (stacks / f"{cli.stack}.json{suffix}").write_bytes(backup.read_bytes())


def cancel_if_locked(cli: PulumiCli, recovery: Recovery,
                     result: subprocess.CompletedProcess[str]) -> bool:
    """`pulumi cancel --yes` when `result` failed on the stale lock; whether it did."""
    if result.returncode == 0 or LOCKED not in result.stdout + result.stderr:
        return False
    recovery.lock_left = True
    recovery.steps.append("pulumi cancel --yes")
    cli.run("cancel", "--yes", "--stack", cli.stack)
    return True


def run_step(cli: PulumiCli, recovery: Recovery,
             step: Callable[[], subprocess.CompletedProcess[str]]) -> (
        subprocess.CompletedProcess[str]):
    """Runs a recovery step; once more after `pulumi cancel` when the stale lock stops it.
    The lock may show only at a later step: with a checkpoint the kill cut short, the first
    up fails on loading it before it asks for the lock."""
    result = step()
    if cancel_if_locked(cli, recovery, result):
        result = step()
    return result


def resume(cli: PulumiCli) -> tuple[Recovery, subprocess.CompletedProcess[str]]:
    """What a user does after the crash, up to and including the up that converges: each
    step only when the CLI shows its reason."""
    recovery = Recovery()
    result = cli.up(check=False)
    if result.returncode == 0:
        recovery.steps.append("pulumi up")
        recovery.pending_after_up = len(pending_operations(cli))
        return recovery, result
    cancel_if_locked(cli, recovery, result)
    if checkpoint_broken(cli):
        recovery.checkpoint_restored = True
        recovery.steps.append("restore <stack>.json.bak")
        restore_checkpoint_backup(cli)
    recovery.pending_after_crash = len(pending_operations(cli))
    if recovery.pending_after_crash:
        recovery.steps.append("pulumi refresh --yes")
        refreshed = run_step(cli, recovery, lambda: cli.run(
            "refresh", "--yes", "--skip-preview", "--stack", cli.stack, check=False))
        if refreshed.returncode != 0:
            return recovery, refreshed
        recovery.pending_after_refresh = len(pending_operations(cli))
    if recovery.pending_after_refresh:
        recovery.steps.append("pulumi stack export | drop pending_operations | "
                              "pulumi stack import")
        clear_pending_operations(cli)
    recovery.steps.append("pulumi up")
    result = run_step(cli, recovery, lambda: cli.up(check=False))
    if result.returncode == 0:
        recovery.pending_after_up = len(pending_operations(cli))
    return recovery, result
