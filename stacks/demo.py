"""The one-command demo: the `local` stack against the emulator on this machine.

    python -m stacks.demo up     start the emulator (if not running), `pulumi up`, print outputs
    python -m stacks.demo down   `pulumi destroy` the local stack, stop the emulator

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

import requests

from stacks.config import SECRET_ENV
from tools.pulumi_cli import REPO_ROOT, PulumiCli

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
            "emulator",
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


def stop_emulator() -> None:
    if not PID_FILE.exists():
        return
    pid = int(PID_FILE.read_text())
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
        extra_env={SECRET_ENV: info["client_secret"]},
    )
    cli.select_or_init()
    return cli


def up() -> None:
    info = start_emulator()
    cli = local_stack(info)
    result = cli.run("up", "--yes", "--stack", STACK, check=False, timeout=1800)
    print(result.stdout, end="")
    print(result.stderr, end="", file=sys.stderr)
    if result.returncode != 0:
        raise SystemExit(result.returncode)
    print(json.dumps(cli.outputs(), indent=2))


def down() -> None:
    info = emulator_info() or start_emulator()
    cli = local_stack(info)
    result = cli.run("destroy", "--yes", "--stack", STACK, check=False, timeout=1800)
    print(result.stdout, end="")
    print(result.stderr, end="", file=sys.stderr)
    stop_emulator()
    if result.returncode != 0:
        raise SystemExit(result.returncode)


def main(argv: list[str]) -> None:
    commands = {"up": up, "down": down}
    if len(argv) != 1 or argv[0] not in commands:
        raise SystemExit("usage: python -m stacks.demo up|down")
    commands[argv[0]]()


if __name__ == "__main__":
    main(sys.argv[1:])
