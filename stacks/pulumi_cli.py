"""Runs the real Pulumi CLI with the project's engine and a self-managed state backend.

One place for the environment every caller (tests, the demo, benchmarks, the `workspace-iac`
command) needs: the engine on PATH (in a checkout the pinned one, `WORKSPACE_IAC_ENGINE`
picks it, see tools/engine/ensure.sh; installed from the wheel, the `pulumi` on PATH), state in
a file backend (or the shared object store a caller names), no update checks, no hosted
service. The `local` stack's passphrase is a development value, documented in docs/state.md;
real environments set PULUMI_CONFIG_PASSPHRASE themselves.

Locking: the 3.79 engine locks a stack of a self-managed backend (file, `s3://`,
`azblob://`, `gs://`) for every `up`, `refresh`, `destroy`, `import` and stack
create/remove, unconditionally, so nothing needs setting here (the opt-in
PULUMI_SELF_MANAGED_STATE_LOCKING of early 3.x engines is gone since 3.20; a preview takes
no lock). A second `up` of a locked stack fails with ENGINE_LOCK_MESSAGE and changes
nothing; a lock left by a killed process goes with `pulumi cancel --yes`.

The modern engine has no Python language host, so a stack under it runs its program
inline: the Automation API's language server serves the program from this process
(stacks/inline_program.py), as `pulumi.automation` does for an inline program.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from providers.auth.single_write import SKIP_CHECKPOINTS
from stacks.inline_program import program_at, serving

# The checkout this package runs from, for the checkout's own tests and tools (its engine,
# its launchers); installed from the wheel it is site-packages, which holds neither. The
# commands work on a project directory they are given, never on this one.
REPO_ROOT = Path(__file__).resolve().parent.parent
ENSURE_ENGINE = REPO_ROOT / "tools" / "engine" / "ensure.sh"
# The project's provider-plugin launcher (pulumi-resource-pulumi-python); Pulumi.yaml points
# the engine at it, so any engine runs the project's provider host.
LAUNCHERS = REPO_ROOT / "tools" / "engine" / "launchers"
LOCAL_PASSPHRASE = "local-development-only"
ENGINE_LOCK_MESSAGE = "the stack is currently locked by"
ENGINE_VARIABLE = "WORKSPACE_IAC_ENGINE"
# The commands that run the program: an inline program is served to these.
PROGRAM_COMMANDS = frozenset({"up", "preview"})


def engine_kind() -> str:
    """`classic` (the lock-step pinned engine, the default) or `modern`."""
    return os.environ.get(ENGINE_VARIABLE) or "classic"


class EngineNotFound(RuntimeError):
    """No Pulumi CLI to run: the package is installed and no `pulumi` is on PATH."""


@cache
def engine_bin_dir() -> Path:
    """The directory of the engine's `pulumi`: in a checkout, the pinned engine, built on
    first use on this machine; installed from the wheel (no tools/engine beside the
    package), the `pulumi` on PATH."""
    if ENSURE_ENGINE.is_file():
        result = subprocess.run([str(ENSURE_ENGINE)], check=True, capture_output=True, text=True)
        return Path(result.stdout.strip().splitlines()[-1])
    found = shutil.which("pulumi")
    if found is None:
        raise EngineNotFound(
            "no `pulumi` on PATH: install the Pulumi CLI (3.79 or newer) and put its "
            "directory on PATH"
        )
    return Path(found).parent


def project_settings(name: str, main: Path | None = None) -> dict[str, Any]:
    """The Pulumi.yaml of a project that runs this checkout's code: the Python runtime in
    the running interpreter's virtualenv, and the `pulumi-python` provider plugin served by
    the project's provider host, whichever engine runs it."""
    settings: dict[str, Any] = {
        "name": name,
        "runtime": {"name": "python", "options": {"virtualenv": sys.prefix}},
        "plugins": {
            "providers": [{"name": "pulumi-python", "path": str(LAUNCHERS)}],
            # The guardrails' policy packs run through the virtualenv's analyzer plugin (an
            # absolute path: the engine starts analyzers in the pack's directory).
            "analyzers": [{"name": "policy-python", "path": str(Path(sys.executable).parent)}],
        },
    }
    if main is not None:
        settings["main"] = str(main)
    return settings


def engine_env(state_dir: Path, passphrase: str = LOCAL_PASSPHRASE,
               backend_url: str | None = None) -> dict[str, str]:
    """Environment for a pulumi process whose state lives under state_dir (a file backend),
    or at `backend_url` (then state_dir keeps only the engine's home)."""
    state_dir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(
        # The engine first; the virtualenv's scripts last, for the analyzer plugin that runs
        # the guardrails' policy pack (`pulumi-analyzer-policy-python`, docs/guardrails.md).
        PATH=os.pathsep.join([str(engine_bin_dir()), env.get("PATH", ""),
                              str(Path(sys.executable).parent)]),
        PULUMI_BACKEND_URL=backend_url or state_dir.resolve().as_uri(),
        PULUMI_HOME=str((state_dir / ".pulumi-home").resolve()),
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DIY_BACKEND_NO_LEGACY_WARNING="true",
        PULUMI_CONFIG_PASSPHRASE=env.get("PULUMI_CONFIG_PASSPHRASE", passphrase),
        PYTHONUNBUFFERED="1",
    )
    if engine_kind() == "modern":
        # No language host tells the provider launcher which virtualenv: this one.
        env["PULUMI_PYTHON_CMD"] = sys.executable
    return env


def inline_where_needed(main: Path) -> Callable[[], None] | None:
    """The program at `main` as an inline program under the modern engine (it has no Python
    language host); None under the classic one, whose language host runs it."""
    return program_at(main) if engine_kind() == "modern" else None


def inline_flags(address: str) -> list[str]:
    """What the Automation API passes for an inline program: the language server to run it."""
    return [f"--client={address}", "--exec-kind", "auto.inline"]


# Commands that write no state: never run in the single-write mode.
READ_ONLY_COMMANDS = frozenset({"preview"})


def engine_variables(engine: str) -> dict[str, str]:
    """What the engine (`classic` or `modern`) takes to write the state once per run, not
    after every step: the lock-step 3.79 engine reads PULUMI_SKIP_CHECKPOINTS only with
    PULUMI_EXPERIMENTAL; the modern engine reads it alone."""
    if engine == "modern":
        return {SKIP_CHECKPOINTS: "true"}
    return {SKIP_CHECKPOINTS: "true", "PULUMI_EXPERIMENTAL": "true"}


class PulumiError(RuntimeError):
    def __init__(self, args: list[str], result: subprocess.CompletedProcess[str]):
        self.result = result
        super().__init__(
            f"pulumi {' '.join(args)} exited {result.returncode}\n"
            f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
        )


@dataclass
class PulumiCli:
    """A stack of one project, driven through the CLI."""

    project_dir: Path
    stack: str
    state_dir: Path
    extra_env: dict[str, str] = field(default_factory=dict)
    backend_url: str | None = None  # None: the file backend in state_dir
    # The program, run inline in this process; None: the language host runs Pulumi.yaml's.
    program: Callable[[], None] | None = None
    # Or the address of a language server of another process that runs it.
    language_server: str | None = None
    # The engine writes the state once per run, not after every step: see
    # stacks/single_write.py, whose `enable` checks the stack first.
    single_write: bool = False

    def env(self, command: str | None = None) -> dict[str, str]:
        """The engine's environment for `command` (`up`, `preview`, ...): a preview is
        never in the single-write mode, not even one inherited from the caller's
        environment, since the 3.79 engine, skipping its checkpoints, saves what
        `preview --refresh` read (tests/unit/test_single_write.py)."""
        read_only = command in READ_ONLY_COMMANDS
        mode = engine_variables(engine_kind()) if self.single_write and not read_only else {}
        env = {**engine_env(self.state_dir, backend_url=self.backend_url), **mode,
               **self.extra_env}
        if read_only:
            env.pop(SKIP_CHECKPOINTS, None)
        return env

    def run(
        self, *args: str, check: bool = True, timeout: float = 900
    ) -> subprocess.CompletedProcess[str]:
        if args and args[0] in PROGRAM_COMMANDS:
            if self.language_server is not None:
                return self._run(args[0], *inline_flags(self.language_server), *args[1:],
                                 check=check, timeout=timeout)
            if self.program is not None:
                program = self.program if args[0] in READ_ONLY_COMMANDS else (
                    self._program_in_mode())
                with serving(program) as address:
                    return self._run(args[0], *inline_flags(address), *args[1:], check=check,
                                     timeout=timeout)
        return self._run(*args, check=check, timeout=timeout)

    def _program_in_mode(self) -> Callable[[], None]:
        """The inline program, seeing the mode as a language host's program would (in the
        environment), so that its guard (providers/auth/single_write.py) holds inline too."""
        program = self.program
        assert program is not None
        if not self.single_write:
            return program

        def in_mode() -> None:
            os.environ[SKIP_CHECKPOINTS] = "true"
            try:
                program()
            finally:
                os.environ.pop(SKIP_CHECKPOINTS, None)

        return in_mode

    def _run(
        self, *args: str, check: bool, timeout: float
    ) -> subprocess.CompletedProcess[str]:
        argv = ["pulumi", "--non-interactive", *args]  # before any "--" of args
        result = subprocess.run(
            argv,
            cwd=self.project_dir,
            env=self.env(args[0] if args else None),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if check and result.returncode != 0:
            raise PulumiError(list(args), result)
        return result

    def select_or_init(self) -> None:
        self.run("stack", "select", "--create", self.stack)

    def set_config(self, key: str, value: str, secret: bool = False) -> None:
        self.run(
            "config", "set", "--stack", self.stack, *(["--secret"] if secret else []),
            "--", key, value,  # a value may start with "-"
        )

    def up(self, *flags: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("up", "--yes", "--skip-preview", "--stack", self.stack, *flags, check=check)

    def preview(self, *flags: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.run("preview", "--stack", self.stack, *flags, check=check)

    def refresh(self, *flags: str) -> subprocess.CompletedProcess[str]:
        return self.run("refresh", "--yes", "--skip-preview", "--stack", self.stack, *flags)

    def destroy(self, *flags: str) -> subprocess.CompletedProcess[str]:
        return self.run("destroy", "--yes", "--skip-preview", "--stack", self.stack, *flags)

    def outputs(self, show_secrets: bool = False) -> dict:
        args = ["stack", "output", "--json", "--stack", self.stack]
        if show_secrets:
            args.append("--show-secrets")
        return json.loads(self.run(*args).stdout or "{}")

    def export(self) -> dict:
        return json.loads(self.run("stack", "export", "--stack", self.stack).stdout)
