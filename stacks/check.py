"""The offline check of a project's stack config files (docs/command.md).

    workspace-iac check [FILE ...] [--stack STACK ...] [--project-dir DIR] [--explain]

Judges each file as `pulumi preview` would before any call to the workspace (every key of
the `workspace` namespace, each list's items, the `source` files they name), without the
engine and without decrypting anything: the files named, the project's Pulumi.<STACK>.yaml
of each `--stack`, or, with neither, every Pulumi.<stack>.yaml of the project (the current
directory or `--project-dir`). Prints each problem as `<file>: workspace:<key>: why`, or
`<file>: ok`. `--explain` then prints, per item, what each of its API name fields names:
the item of the stack it resolved to (the item waits for it), or a plain name.

Exit status: 0 no problems, 1 problems (listed), 2 the check could not run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from providers.workspace.workspace_objects import source_roots
from stacks import split
from stacks.adopt_content import sources_directory
from stacks.config import file_values, report_file
from stacks.config_rules import explained
from stacks.guardrails.pack import with_rule_files
from stacks.guardrails.settings import GuardrailsError, rule_files
from stacks.guardrails.settings import problems as guardrail_problems

EXIT_OK, EXIT_PROBLEMS, EXIT_ERROR = 0, 1, 2
DESCRIPTION = "Check the stack config files of a Pulumi project offline (no engine, no workspace)."
EPILOG = "Exit status: 0 no problems, 1 problems (listed), 2 error."


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE",
                        help="a stack config file (default: every Pulumi.<stack>.yaml of the "
                        "project)")
    parser.add_argument("--stack", action="append", default=[], metavar="STACK",
                        help="check the project's Pulumi.<STACK>.yaml (repeatable)")
    parser.add_argument("--project-dir", type=Path, default=Path.cwd(),
                        help="the Pulumi project, the directory holding Pulumi.yaml "
                        "(default: the current directory)")
    parser.add_argument("--explain", action="store_true",
                        help="also print which name fields (catalog_name, principal, ...) "
                        "name items of the stack and which stay plain names")


def files_to_check(args: argparse.Namespace) -> list[Path]:
    named = [*args.files, *(args.project_dir / f"Pulumi.{stack}.yaml" for stack in args.stack)]
    if named:
        return named
    return sorted(args.project_dir.glob("Pulumi.*.yaml"))


def run(args: argparse.Namespace) -> int:
    """The check of parsed options: prints each file's problems; returns the exit status."""
    if not (args.project_dir / "Pulumi.yaml").is_file():
        print(f"check: {args.project_dir} holds no Pulumi.yaml: run from the Pulumi project's "
              "directory or name it with --project-dir", file=sys.stderr)
        return EXIT_ERROR
    files = files_to_check(args)
    if not files:
        print(f"check: {args.project_dir} holds no stack config file (Pulumi.<stack>.yaml): "
              "name one, or make one with `pulumi stack init`", file=sys.stderr)
        return EXIT_ERROR
    missing = [path for path in files if not path.is_file()]
    if missing:
        print(f"check: no such file: {', '.join(map(str, missing))}", file=sys.stderr)
        return EXIT_ERROR
    beside = project_problems(args.project_dir)
    # A `source` names a file of the project, wherever the command runs from.
    with source_roots(sources_directory(args.project_dir)):
        results = [report_file(path, display_name(path, args.project_dir),
                               beside.get(path.resolve(), []))
                   for path in files]
    if args.explain:
        for path in files:
            label = display_name(path, args.project_dir)
            for line in explained(file_values(path)[0]):
                print(f"{label}: {line}")
    return EXIT_OK if all(results) else EXIT_PROBLEMS


def project_problems(project_dir: Path) -> dict[Path, list[str]]:
    """The problems of each stack file that only the project shows, by file: a kind two
    stacks of one workspace own (docs/split.md), a guardrail the stack's rules lack
    (docs/guardrails.md)."""
    stacks = {path.name.removeprefix("Pulumi.").removesuffix(".yaml"): path
              for path in project_dir.glob("Pulumi.*.yaml")}
    values = {name: file_values(path)[0] for name, path in stacks.items()}
    found: dict[Path, list[str]] = {}
    for name, problem in split.overlaps(values):
        found.setdefault(stacks[name].resolve(), []).append(problem)
    for name, path in stacks.items():
        try:
            files = [str(f) for f in rule_files(values[name], project_dir)]
            with with_rule_files(files):
                found.setdefault(path.resolve(), []).extend(guardrail_problems(values[name]))
        except GuardrailsError as problem:
            found.setdefault(path.resolve(), []).append(str(problem))
    return found


def display_name(path: Path, project_dir: Path) -> str:
    """The file as the user knows it: relative to the project where it is inside it."""
    try:
        return str(path.resolve().relative_to(project_dir.resolve()))
    except ValueError:
        return str(path)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stacks.check", description=DESCRIPTION,
                                     epilog=EPILOG)
    add_arguments(parser)
    return run(parser.parse_args(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
