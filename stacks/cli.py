"""`workspace-iac`: the project's commands, installed with the package (docs/command.md).

    workspace-iac check   [FILE ...] [--stack STACK ...]   the stack config, offline
    workspace-iac audit   [--stack STACK] [--json] ...     what no stack manages
    workspace-iac adopt   --stack STACK [--dry-run] [--python FILE] ...
                                                        take the workspace over
    workspace-iac summary [--stack STACK] < preview.json   a preview as Markdown
    workspace-iac deploy  --stack STACK [--summary FILE]   `pulumi up`, summarised
    workspace-iac drift   --stack STACK [--json] [--issue-body FILE]
                                                        what changed outside the stack
    workspace-iac fleet   preview|up|refresh|drift|list [--stacks-file F | --match GLOB]
                          [--parallel K]                many stacks at once
    workspace-iac guardrails --stack STACK              the policy pack's flags for
                                                        `pulumi preview` (docs/guardrails.md)
    workspace-iac recover --stack STACK                  after a killed `pulumi up`

Each works on the Pulumi project in the current directory, or the one `--project-dir`
names (its Pulumi.yaml, its Pulumi.<stack>.yaml, its state), for a stack of the package's
stack program and for a team's own program alike; each takes the options and gives the exit
status of its module (stacks.check, stacks.audit, stacks.adopt, stacks.preview_summary,
stacks.deploy, stacks.drift, stacks.fleet, stacks.recover).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from types import ModuleType

from stacks import adopt, audit, check, deploy, drift, fleet, preview_summary, recover
from stacks.guardrails import command as guardrails

# Subcommand -> its module: each has DESCRIPTION, add_arguments(parser) and run(args).
COMMANDS: dict[str, ModuleType] = {
    "check": check,
    "audit": audit,
    "adopt": adopt,
    "summary": preview_summary,
    "deploy": deploy,
    "drift": drift,
    "fleet": fleet,
    "guardrails": guardrails,
    "recover": recover,
}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(
        prog="workspace-iac",
        description="Check, audit, adopt, summarise, deploy, guard, recover and report the "
        "drift of the stacks of a Pulumi project of workspace kinds, one or a fleet at once: "
        "the project in the current directory, or --project-dir.",
    )
    commands = top.add_subparsers(dest="command", required=True)
    for name, module in COMMANDS.items():
        command = commands.add_parser(
            name, help=module.DESCRIPTION, description=module.DESCRIPTION,
            epilog=getattr(module, "EPILOG", None),
        )
        module.add_arguments(command)
        command.set_defaults(run=module.run)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
