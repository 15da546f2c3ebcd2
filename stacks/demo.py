"""The one-command demo: the `local` stack against the emulator on this machine.

    python -m stacks.demo up        start the emulator (if not running), `pulumi up`, print
                                    the outputs and what changed
    python -m stacks.demo preview [--json FILE [--events FILE]]
                                    start the emulator, `pulumi preview --diff` (and write
                                    `pulumi preview --json` to FILE, its event log to the
                                    other, for the PR summary); both with the stack's
                                    guardrails (docs/guardrails.md), as `up` is
    python -m stacks.demo down      `pulumi destroy` the local stack, stop the emulator

The emulator keeps its state in .emulator/ and listens on fixed loopback ports
(8765 to 8769) so Pulumi.local.yaml can name them. Stack state lives in .pulumi-state/.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import requests

from stacks import single_write
from stacks.guardrails import command as guardrails
from stacks.guardrails.settings import GuardrailsError
from stacks.pulumi_cli import REPO_ROOT, PulumiCli

STACK = "local"
EMULATOR_PORT = 8765
EMULATOR_DIR = REPO_ROOT / ".emulator"
INFO_FILE = EMULATOR_DIR / "info.json"
PID_FILE = EMULATOR_DIR / "emulator.pid"
STARTUP_SECONDS = 30


def emulator_info() -> dict | None:
    """The running emulator's start-up info, or None when it is not answering."""
    if not INFO_FILE.exists():
        return None
    info = json.loads(INFO_FILE.read_text())
    try:
        requests.get(f"{info['base_url']}/_emulator/health", timeout=2).raise_for_status()
    except requests.RequestException:
        return None
    return info


def start_emulator() -> dict:
    info = emulator_info()
    if info:
        return info
    EMULATOR_DIR.mkdir(exist_ok=True)
    INFO_FILE.unlink(missing_ok=True)
    log = open(EMULATOR_DIR / "emulator.log", "a")  # noqa: SIM115 - handed to the child
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "workspace_emulator",
            "--port",
            str(EMULATOR_PORT),
            "--data-dir",
            str(EMULATOR_DIR),
            "--info-file",
            str(INFO_FILE),
        ],
        stdout=log,
        stderr=log,
        cwd=REPO_ROOT,
        start_new_session=True,
    )
    PID_FILE.write_text(str(process.pid))
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the emulator exited ({process.returncode}); see {log.name}")
        info = emulator_info()
        if info:
            print(f"emulator: running on {info['base_url']} (log {log.name})")
            return info
        time.sleep(0.2)
    raise SystemExit(f"the emulator did not answer within {STARTUP_SECONDS}s; see {log.name}")


def is_emulator(pid: int) -> bool:
    """Whether `pid` is still the emulator the demo started: after a reboot the pid file's
    number may belong to another process, which must not be stopped."""
    return "workspace_emulator" in command_line(pid)


def command_line(pid: int) -> str:
    """The process's command line, or "" when it is gone. Linux answers from /proc, which
    needs no `ps` (slim images lack it, or carry one without `-p`); elsewhere `ps` does."""
    proc = Path("/proc")
    if proc.is_dir():
        try:
            return (proc / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(
                errors="replace")
        except OSError:
            return ""
    shown = subprocess.run(["ps", "-p", str(pid), "-o", "command="], capture_output=True,
                           text=True, check=False)
    return shown.stdout if shown.returncode == 0 else ""


def stop_emulator() -> None:
    if not PID_FILE.exists():
        return
    pid = int(PID_FILE.read_text())
    if is_emulator(pid):
        try:
            os.kill(pid, signal.SIGTERM)
            print(f"emulator: stopped (pid {pid})")
        except ProcessLookupError:
            pass
    PID_FILE.unlink()


def local_stack(info: dict) -> PulumiCli:
    cli = PulumiCli(
        project_dir=REPO_ROOT,
        stack=STACK,
        state_dir=REPO_ROOT / ".pulumi-state",
        extra_env={},
    )
    cli.select_or_init()
    # The project's own runs write the state once per run (docs/state.md, "Single-write mode").
    try:
        return single_write.as_requested(cli, default=True)
    except single_write.SingleWriteRefused as refused:
        raise SystemExit(f"demo: {refused}") from None


def run_live(cli: PulumiCli, *args: str) -> int:
    """Runs pulumi with its output going straight to the terminal, as it happens."""
    argv = ["pulumi", *args, "--stack", cli.stack, "--non-interactive"]
    return subprocess.run(argv, cwd=cli.project_dir, env=cli.env(args[0]),
                          timeout=1800).returncode


def last_update_changes(cli: PulumiCli) -> dict[str, int]:
    """What the latest update did, per operation (`{"same": 9}` when nothing changed)."""
    history = json.loads(cli.run("stack", "history", "--json", "--stack", cli.stack).stdout)
    return history[0].get("resourceChanges") or {} if history else {}


def describe_changes(changes: dict[str, int]) -> str:
    changed = {op: n for op, n in changes.items() if op != "same" and n}
    unchanged = changes.get("same", 0)
    if not changed:
        return f"no changes: the workspace matches Pulumi.local.yaml ({unchanged} unchanged)"
    done = ", ".join(f"{n} {op}d" for op, n in changed.items())  # created, updated, ...
    return f"{done} ({unchanged} unchanged)" if unchanged else done


def guardrail_flags(cli: PulumiCli) -> list[str]:
    """The engine's flags for the local stack's guardrails (docs/guardrails.md)."""
    try:
        return guardrails.write(cli.project_dir, cli.stack)
    except GuardrailsError as problem:
        raise SystemExit(f"demo: the local stack's guardrails: {problem}") from None


def up() -> None:
    cli = local_stack(start_emulator())
    if run_live(cli, "up", "--yes", *guardrail_flags(cli)) != 0:
        raise SystemExit("demo: `pulumi up` of the local stack failed (see above)")
    print("outputs:")
    print(json.dumps(cli.outputs(), indent=2))
    print(f"demo: {describe_changes(last_update_changes(cli))}")
    print("demo: run `make demo` again to see no changes; `make demo-down` to tear it down")


def preview(json_file: str | None = None, events_file: str | None = None) -> None:
    """`pulumi preview --diff` with the stack's guardrails; with `json_file`, the preview's
    JSON there too, and its event log (the guardrails broken) in `events_file`, also when
    the preview fails, for the summary."""
    cli = local_stack(start_emulator())
    flags = guardrail_flags(cli)
    status = run_live(cli, "preview", "--diff", *flags)
    if json_file:
        event_log = Path(events_file).resolve() if events_file else None
        result, _ = guardrails.run_guarded(cli, "preview", "--json", timeout=1800, flags=flags,
                                           event_log=event_log)
        Path(json_file).write_text(result.stdout)
        if result.returncode != 0 and status == 0:
            raise SystemExit(f"demo: `pulumi preview --json` failed: {result.stderr.strip()}")
    if status != 0:
        raise SystemExit("demo: `pulumi preview` of the local stack failed (see above)")


def down() -> None:
    cli = local_stack(emulator_info() or start_emulator())
    status = run_live(cli, "destroy", "--yes")
    stop_emulator()
    if status != 0:
        raise SystemExit("demo: `pulumi destroy` of the local stack failed (see above)")


def main(argv: list[str]) -> None:
    match argv:
        case ["up"]:
            up()
        case ["down"]:
            down()
        case ["preview"]:
            preview()
        case ["preview", "--json", json_file]:
            preview(json_file)
        case ["preview", "--json", json_file, "--events", events_file]:
            preview(json_file, events_file)
        case _:
            raise SystemExit("usage: python -m stacks.demo up | down | "
                             "preview [--json FILE [--events FILE]]")


if __name__ == "__main__":
    main(sys.argv[1:])
