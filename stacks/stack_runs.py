"""What the commands that run a stack's program (deploy, drift, fleet) share: the stack of
a project directory with its state backend, the program inline where the engine needs it,
and the first JSON document of the engine's output.

The state is where `--state-dir` says (a file backend), else at PULUMI_BACKEND_URL when the
environment sets it (CI: a variable of the stack's environment), else in the project's own
.pulumi-state, as the audit and adopt find it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import yaml

from stacks.pulumi_cli import PulumiCli, inline_where_needed

BACKEND_VARIABLE = "PULUMI_BACKEND_URL"


def project_program(project_dir: Path) -> Path:
    """Where the project's program is: Pulumi.yaml's `main`, else the project directory."""
    settings = yaml.safe_load((project_dir / "Pulumi.yaml").read_text()) or {}
    main = Path(str(settings.get("main") or "."))
    return main if main.is_absolute() else (project_dir / main).resolve()


def stack_cli(project_dir: Path, stack: str, state_dir: Path | None = None) -> PulumiCli:
    """The stack `stack` of the project in `project_dir`, its state found as the module says."""
    extra_env: dict[str, str] = {}
    if state_dir is None:
        state_dir = project_dir / ".pulumi-state"
        if os.environ.get(BACKEND_VARIABLE):
            extra_env[BACKEND_VARIABLE] = os.environ[BACKEND_VARIABLE]
    return PulumiCli(project_dir, stack, state_dir, extra_env,
                     program=inline_where_needed(project_program(project_dir)))


def first_json(text: str) -> dict[str, Any] | None:
    """The first JSON object of an engine's `--json` output (3.79's `up --json` prints its
    engine events after it); None when the output holds none."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        found, _ = json.JSONDecoder().raw_decode(text, start)
    except json.JSONDecodeError:
        return None
    return found if isinstance(found, dict) else None


def last_lines(text: str, count: int = 5) -> str:
    """The last `count` non-empty lines of an engine's error output: where it says why."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-count:])
