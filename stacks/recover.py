"""`workspace-iac recover --stack STACK`: a stack after a killed `pulumi up`, in one step.

    workspace-iac recover --stack dev [--project-dir DIR] [--state-dir DIR]

What a user of the 3.79 engine otherwise does by hand (docs/RELIABILITY.md, interrupted
deployments), each step only where the stack shows its reason, and said as it is done:

1. makes sure no `pulumi` process holds the stack: a lock whose process runs on this
   machine, or a lock of another machine, stops it (nothing is changed);
2. puts back the checkpoint's backup `<stack>.json.bak` when the kill cut the checkpoint
   short (file backend);
3. removes the stale lock (`pulumi cancel --yes`);
4. clears the pending operations (creates the engine started but never saw finish) by
   export, edit and import, only where every one is of a workspace kind: their creates adopt
   what the interrupted one made, so the next up makes nothing twice. A pending operation of
   another provider stops it: that provider may not adopt;
5. refreshes the stack (`pulumi refresh`), so the state matches the workspace.

In the single-write mode (stacks/single_write.py) a killed run left the state as it was
before it: there are no pending operations to clear, only the lock. The next `pulumi up`
then creates what the state lacks, adopting what the killed run made.

Exit status: 0 recovered (or nothing to do), 1 refused (a process holds the stack, or a
pending operation is not a workspace kind's), 2 error.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from providers.auth.single_write import WORKSPACE_TYPE_PREFIX
from stacks import single_write
from stacks.pulumi_cli import EngineNotFound, PulumiCli, PulumiError

EXIT_OK, EXIT_REFUSED, EXIT_ERROR = 0, 1, 2
DESCRIPTION = "Recover a stack after a killed `pulumi up`: lock, pending operations, refresh."
EPILOG = "Exit status: 0 recovered, 1 refused (nothing changed), 2 error."
BROKEN_CHECKPOINT = "failed to load checkpoint"


class RecoveryRefused(RuntimeError):
    """The stack cannot be recovered safely now; nothing was changed."""


@dataclass
class Recovery:
    """What `recover` found and did, in order."""

    steps: list[str] = field(default_factory=list)
    lock_removed: bool = False
    checkpoint_restored: bool = False
    pending_cleared: int = 0

    def did(self, step: str, say: Callable[[str], None]) -> None:
        self.steps.append(step)
        say(step)


# --- what holds the stack ------------------------------------------------------------------


def project_name(cli: PulumiCli) -> str:
    settings = yaml.safe_load((cli.project_dir / "Pulumi.yaml").read_text()) or {}
    return str(settings["name"])


def lock_files(cli: PulumiCli) -> list[Path]:
    """The stack's lock files in a file backend (`.pulumi/locks/<org>/<project>/<stack>/`);
    none for a backend elsewhere (`pulumi cancel` finds those)."""
    if cli.backend_url is not None and not cli.backend_url.startswith("file:"):
        return []
    locks = cli.state_dir / ".pulumi" / "locks"
    project = project_name(cli)
    return sorted(
        path
        for path in locks.glob(f"*/{project}/{cli.stack}/*.json")
        if path.is_file()
    )


def running_pulumi(pid: int) -> bool:
    try:
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return False
    return name == "pulumi"  # the CLI, not its plugins


def pulumi_processes_on(cli: PulumiCli) -> list[int]:
    """`pulumi` processes of this machine working in the stack's project on the stack (or
    on the selected stack: no `--stack`)."""
    project = cli.project_dir.resolve()
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        pid = int(proc.name)
        if pid == os.getpid() or not running_pulumi(pid):
            continue
        try:
            cwd = (proc / "cwd").resolve()
            argv = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        args = [a.decode(errors="replace") for a in argv]
        stacks = [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("--stack", "-s")]
        if cwd == project and (not stacks or cli.stack in stacks):
            found.append(pid)
    return found


def holders(cli: PulumiCli) -> list[str]:
    """Why the stack may be held by a running `pulumi`: a `pulumi` process of this machine
    on the stack, a lock whose process still runs here, or a lock another machine took
    (whose processes cannot be seen from here)."""
    here = socket.gethostname()
    found = [f"pulumi process {pid} runs on the stack: let it finish"
             for pid in pulumi_processes_on(cli)]
    for path in lock_files(cli):
        try:
            lock = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        pid, host = lock.get("pid"), lock.get("hostname")
        if host and host != here:
            found.append(f"a lock of {host} (pid {pid}, since {lock.get('timestamp')}): make "
                         "sure no `pulumi` runs on the stack there, then run this there")
        elif isinstance(pid, int) and running_pulumi(pid) and \
                f"pulumi process {pid} runs on the stack: let it finish" not in found:
            found.append(f"pulumi process {pid} holds the stack's lock: let it finish")
    return found


# --- the checkpoint ---------------------------------------------------------------------


def checkpoint_broken(cli: PulumiCli) -> bool:
    result = cli.run("stack", "export", "--stack", cli.stack, check=False)
    return result.returncode != 0 and BROKEN_CHECKPOINT in result.stderr


def restore_checkpoint_backup(cli: PulumiCli) -> bool:
    """Puts back `<stack>.json.bak`, the checkpoint before the one the kill cut short (the
    file backend keeps it next to the stack's file); whether there was one."""
    stacks = cli.state_dir / ".pulumi" / "stacks" / project_name(cli)
    restored = False
    for suffix in ("", ".attrs"):
        backup = stacks / f"{cli.stack}.json.bak{suffix}"
        if backup.exists():
            (stacks / f"{cli.stack}.json{suffix}").write_bytes(backup.read_bytes())
            restored = True
    return restored


def pending_operations(state: dict[str, Any]) -> list[dict[str, Any]]:
    return list((state.get("deployment") or {}).get("pending_operations") or [])


def not_adopting(pending: list[dict[str, Any]]) -> list[str]:
    """`<type> <name>` of each pending operation whose kind may not adopt what it made."""
    found = []
    for operation in pending:
        resource = operation.get("resource") or {}
        type_ = str(resource.get("type", ""))
        if not type_.startswith(WORKSPACE_TYPE_PREFIX):
            found.append(f"{type_} {str(resource.get('urn', '')).rsplit('::', 1)[-1]}")
    return found


def clear_pending_operations(cli: PulumiCli, state: dict[str, Any]) -> None:
    """Export, drop `pending_operations`, import: the 3.79 engine's non-interactive refresh
    and up leave pending creates in place."""
    state["deployment"]["pending_operations"] = []
    path = cli.state_dir / f"{cli.stack}-without-pending.json"
    path.write_text(json.dumps(state))
    try:
        cli.run("stack", "import", "--file", str(path), "--stack", cli.stack)
    finally:
        path.unlink()


# --- the recovery -----------------------------------------------------------------------


def recover(cli: PulumiCli, say: Callable[[str], None] = print) -> Recovery:
    """Recovers the stack; RecoveryRefused (having changed nothing) where it is not safe."""
    held = holders(cli)
    if held:
        raise RecoveryRefused("the stack may be in use, nothing changed: " + "; ".join(held))
    recovery = Recovery()
    if checkpoint_broken(cli):
        if not restore_checkpoint_backup(cli):
            raise RecoveryRefused(
                f"stack {cli.stack}: its checkpoint cannot be read and there is no "
                f"{cli.stack}.json.bak to put back; nothing changed"
            )
        recovery.checkpoint_restored = True
        recovery.did("put back the checkpoint's backup (the kill had cut it short)", say)
    state = cli.export()
    pending = pending_operations(state)
    refused = not_adopting(pending)
    if refused:
        raise RecoveryRefused(
            "pending operations of other providers, whose creates may not adopt what the "
            f"interrupted run made: {', '.join(refused)}. Check each of them in its service, "
            "then clear them with an interactive `pulumi refresh`; nothing changed"
        )
    if lock_files(cli) or cli.backend_url is not None:
        cli.run("cancel", "--yes", "--stack", cli.stack)
        recovery.lock_removed = True
        recovery.did("removed the stale lock (`pulumi cancel --yes`)", say)
    if pending:
        clear_pending_operations(cli, state)
        recovery.pending_cleared = len(pending)
        recovery.did(
            f"cleared {len(pending)} pending operation(s) of workspace kinds, whose creates "
            "adopt what the interrupted run made", say)
    elif cli.single_write:
        say("no pending operations: in the single-write mode a killed run leaves the state "
            "as it was before it")
    cli.refresh()
    recovery.did("refreshed the stack (`pulumi refresh`)", say)
    say(f"recovered stack {cli.stack}: run `pulumi up` to finish what the killed run began "
        "(its creates adopt what it made)")
    return recovery


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stack", required=True, help="the stack to recover")
    parser.add_argument(
        "--project-dir", type=Path, default=Path.cwd(),
        help="the Pulumi project, the directory holding Pulumi.yaml (default: the current "
        "directory)",
    )
    parser.add_argument(
        "--state-dir", type=Path, default=None,
        help="file backend directory (default: PULUMI_BACKEND_URL if set, else .pulumi-state "
        "of the project)",
    )


def cli_for(args: argparse.Namespace) -> PulumiCli:
    extra_env: dict[str, str] = {}
    backend_url = os.environ.get("PULUMI_BACKEND_URL") if args.state_dir is None else None
    state_dir = args.state_dir or args.project_dir / ".pulumi-state"
    if backend_url:
        extra_env["PULUMI_BACKEND_URL"] = backend_url
    cli = PulumiCli(args.project_dir, args.stack, state_dir, extra_env,
                    backend_url=backend_url or None)
    return single_write.as_requested(cli)


def run(args: argparse.Namespace) -> int:
    try:
        recover(cli_for(args), say=lambda line: print(f"recover: {line}", flush=True))
    except (RecoveryRefused, single_write.SingleWriteRefused) as refused:
        print(f"recover: refused: {refused}", file=sys.stderr)
        return EXIT_REFUSED
    except (PulumiError, EngineNotFound, OSError) as error:
        print(f"recover: {error}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stacks.recover", description=DESCRIPTION,
                                     epilog=EPILOG)
    add_arguments(parser)
    return run(parser.parse_args(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
