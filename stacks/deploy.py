"""`workspace-iac deploy --stack STACK`: `pulumi up` of one stack, and its summary in the
Markdown of the pull-request preview's (docs/delivery.md).

    workspace-iac deploy --stack dev --summary summary-dev.md

The up refreshes first (`pulumi up --refresh`): what changed in the workspace outside the
stack (the drift report's findings) is read, and set back to what the stack declares, in
the same update; an up without it would leave such drift in place, unseen.

The deploy workflow (.github/workflows/deploy.yml) runs exactly this, so the path a merged
change takes to a workspace is the one anyone runs locally (the `local` stack against the
emulator). It signs in as the stack's deploying principal (`workspace:clientId`): the
preview's read-only sign-in (WORKSPACE_SIGN_IN_AS=preview) is refused before anything runs,
since an up as that principal could only fail half-way.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from stacks import single_write
from stacks.audit import project_problem
from stacks.guardrails.command import run_guarded
from stacks.guardrails.settings import GuardrailsError
from stacks.preview_summary import summarise
from stacks.pulumi_cli import EngineNotFound, PulumiCli, PulumiError
from stacks.stack_runs import first_json, last_lines, stack_cli

DESCRIPTION = "Deploy one stack (`pulumi up`) and summarise what changed in Markdown."
EPILOG = "Exit status: 0 deployed, 1 the update failed, 2 error before it ran."
HEADING = "Pulumi up"
SIGN_IN_AS = "WORKSPACE_SIGN_IN_AS"
EXIT_DEPLOYED, EXIT_FAILED, EXIT_ERROR = 0, 1, 2
UP_TIMEOUT_SECONDS = 3 * 3600


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The deploy's options, for `python -m stacks.deploy` and `workspace-iac deploy`."""
    parser.add_argument("--stack", required=True, help="the stack to deploy")
    parser.add_argument("--project-dir", type=Path, default=Path.cwd(),
                        help="the Pulumi project, the directory holding Pulumi.yaml "
                        "(default: the current directory)")
    parser.add_argument("--state-dir", type=Path, default=None,
                        help="file backend directory (default: PULUMI_BACKEND_URL if set, "
                        "else .pulumi-state of the project)")
    parser.add_argument("--summary", type=Path, default=None, metavar="FILE",
                        help="also write the Markdown summary to FILE (CI: the job summary)")


def deploy(cli: PulumiCli) -> tuple[int, str]:
    """Runs the up of the stack of `cli`, under the stack's guardrails (a mandatory one
    broken stops it before anything is written, docs/guardrails.md); (exit status, the
    Markdown summary, the guardrails broken under their resources). In the single-write
    mode where the stack asks for it (`workspace:singleWrite`, docs/state.md)."""
    single_write.as_requested(cli)
    cli.select_or_init()
    result, broken = run_guarded(cli, "up", "--yes", "--refresh", "--json",
                                 timeout=UP_TIMEOUT_SECONDS)
    update = first_json(result.stdout) or {}
    failed = result.returncode != 0
    if failed and not any(d.get("severity") == "error" for d in update.get("diagnostics") or []):
        # The engine stopped before its JSON said why: the reason is in its error output.
        why = last_lines(result.stderr or result.stdout) or f"pulumi exited {result.returncode}"
        update = {**update, "diagnostics": [
            *(update.get("diagnostics") or []), {"severity": "error", "message": why}]}
    markdown = summarise(update, cli.stack, broken, heading=HEADING)
    return (EXIT_FAILED if failed else EXIT_DEPLOYED), markdown


def run(args: argparse.Namespace) -> int:
    """The deploy of parsed options: prints the summary (and writes it); the exit status."""
    problem = project_problem(args.project_dir)
    if problem is None and os.environ.get(SIGN_IN_AS):
        problem = (f"{SIGN_IN_AS}={os.environ[SIGN_IN_AS]} signs in as the read-only preview "
                   "principal, which cannot deploy: unset it, so the stack signs in as its "
                   "deploying principal (workspace:clientId)")
    if problem is not None:
        print(f"deploy: {problem}", file=sys.stderr)
        return EXIT_ERROR
    try:
        status, markdown = deploy(stack_cli(args.project_dir, args.stack, args.state_dir))
    except (EngineNotFound, GuardrailsError, single_write.SingleWriteRefused) as exc:
        print(f"deploy: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except PulumiError as exc:
        said = last_lines(exc.result.stderr or exc.result.stdout, 1)
        print(f"deploy: pulumi failed: {said or exc}", file=sys.stderr)
        return EXIT_ERROR
    sys.stdout.write(markdown)
    if args.summary is not None:
        args.summary.write_text(markdown)
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stacks.deploy", description=DESCRIPTION,
                                     epilog=EPILOG)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
