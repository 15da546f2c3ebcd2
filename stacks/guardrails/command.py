"""`workspace-iac guardrails`: the policy pack of a stack's guardrails, ready for the engine.

    workspace-iac guardrails --stack dev [--project-dir DIR] [--out DIR]
    pulumi preview --stack dev $(workspace-iac guardrails --stack dev)

Writes the pack (its PulumiPolicy.yaml and a `__main__.py` serving the starter rules and the
stack's `workspace:guardrailRules` files) and its config file (each rule's level and settings
from `workspace:guardrails`) under `--out` (default `.guardrails/<stack>` of the project),
and prints the engine's flags for them: `--policy-pack DIR --policy-pack-config FILE`. A
violation of a mandatory rule fails the preview (and an update before it writes anything),
an advisory one is a warning; both name the rule, the resource and the fix.

Exit status: 0 written, 2 the stack's guardrails config is wrong (each problem named).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stacks.config import file_values
from stacks.guardrails.pack import with_rule_files
from stacks.guardrails.settings import GuardrailsError, pack_config, rule_files
from stacks.preview_summary import policy_events

if TYPE_CHECKING:
    from stacks.pulumi_cli import PulumiCli

DESCRIPTION = "Write the stack's guardrails (a policy pack and its config) for `pulumi preview`."
EPILOG = "Prints the flags: --policy-pack DIR --policy-pack-config FILE. Exit 2: bad config."
OUT_DIR = ".guardrails"
# `--event-log` (where the engine writes the guardrails broken: `--json` leaves them out) is
# one of the 3.79 engine's debug flags; newer engines take it as it is.
EVENT_LOG_ENV = {"PULUMI_DEBUG_COMMANDS": "true"}
POLICY_PROJECT = "runtime: {runtime}\nversion: 0.1.0\ndescription: {description}\n"


def runtime() -> str:
    """The pack's runtime: Python in this command's virtualenv, which has the package (an
    analyzer plugin of Pulumi's own release, should the engine find that one first, runs
    the pack there too)."""
    if sys.prefix == sys.base_prefix:
        return "python"
    return json.dumps({"name": "python", "options": {"virtualenv": sys.prefix}})


def write(project_dir: Path, stack: str, out: Path | None = None) -> list[str]:
    """Writes the stack's pack and config; the engine's flags for them."""
    settings_file = project_dir / f"Pulumi.{stack}.yaml"
    values = file_values(settings_file)[0] if settings_file.is_file() else {}
    files = rule_files(values, project_dir)
    with with_rule_files([str(f) for f in files]):
        config = pack_config(values)
    out = (out or project_dir / OUT_DIR / stack).resolve()
    pack = out / "pack"
    pack.mkdir(parents=True, exist_ok=True)
    (pack / "PulumiPolicy.yaml").write_text(POLICY_PROJECT.format(
        runtime=runtime(), description=json.dumps(f"The guardrails of the stack {stack}")))
    (pack / "__main__.py").write_text(
        "# Written by `workspace-iac guardrails`: the starter rules and the stack's own.\n"
        "from stacks.guardrails.pack import serve\n\n"
        f"serve({json.dumps([str(f) for f in files])})\n"
    )
    config_file = out / "config.json"
    config_file.write_text(json.dumps(config, indent=2) + "\n")
    return ["--policy-pack", str(pack), "--policy-pack-config", str(config_file)]


def run_guarded(
    cli: PulumiCli, *args: str, timeout: float, flags: Sequence[str] | None = None,
    event_log: Path | None = None,
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """Runs `pulumi ARGS --stack STACK` of `cli` under the stack's guardrails (`flags`, the
    pack's flags written already, else written now), the engine writing its event log to
    `event_log` (else to a scratch file); the run (not checked), and the guardrails it broke
    (their policy events)."""
    flags = write(cli.project_dir, cli.stack) if flags is None else flags
    cli.extra_env.update(EVENT_LOG_ENV)
    with tempfile.TemporaryDirectory(prefix="guardrails-") as scratch:
        log = event_log or Path(scratch) / "events.jsonl"
        result = cli.run(*args, "--stack", cli.stack, *flags, "--event-log", str(log),
                         check=False, timeout=timeout)
        broken = policy_events(log.read_text()) if log.is_file() else []
    return result, broken


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--stack", required=True, help="the stack whose guardrails to write")
    parser.add_argument("--project-dir", type=Path, default=Path.cwd(),
                        help="the Pulumi project (default: the current directory)")
    parser.add_argument("--out", type=Path, default=None,
                        help=f"where to write the pack (default: {OUT_DIR}/<stack> of the project)")


def run(args: argparse.Namespace) -> int:
    try:
        flags = write(args.project_dir, args.stack, args.out)
    except GuardrailsError as problem:
        print(f"guardrails: {problem}", file=sys.stderr)
        return 2
    print(" ".join(flags))
    return 0
