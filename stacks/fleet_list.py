"""The stacks of a fleet: from a file, or every `Pulumi.<stack>.yaml` matching a pattern.

    python3 -m stacks.fleet_list --match 'Pulumi.*.yaml' --exclude local --json
    workspace-iac fleet list --stacks-file fleet.txt --json

A stacks file names one stack per line (`#` starts a comment); a pattern is a glob of the
project directory's settings files, `Pulumi.*.yaml` by default. The workflows build their
matrix from this list, so adding a workspace is adding its `Pulumi.<stack>.yaml`. Only the
standard library: a workflow's first job lists the stacks before any setup.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

DEFAULT_MATCH = "Pulumi.*.yaml"
SETTINGS_FILE = re.compile(r"^Pulumi\.(?P<stack>[^/]+)\.ya?ml$")
STACK_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")


class FleetListError(ValueError):
    """The list cannot be made: the fix is in the message."""


def stacks_from_file(path: Path) -> list[str]:
    if not path.is_file():
        raise FleetListError(f"--stacks-file {path}: no such file (one stack name per line)")
    names = []
    for number, raw in enumerate(path.read_text().splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if not STACK_NAME.match(line):
            raise FleetListError(f"{path}:{number}: {line!r} is not a stack name (letters, "
                                 "digits, `-`, `_` and `.`; one per line)")
        names.append(line)
    return names


def stacks_matching(project_dir: Path, pattern: str) -> list[str]:
    names = []
    for path in sorted(project_dir.glob(pattern)):
        found = SETTINGS_FILE.match(path.name)
        if found is None:
            raise FleetListError(f"--match {pattern!r} matched {path.name}, which is not a "
                                 "stack's settings file: match only Pulumi.<stack>.yaml files")
        names.append(found["stack"])
    return names


def fleet_stacks(project_dir: Path, stacks_file: Path | None = None,
                 match: str | None = None, exclude: Sequence[str] = ()) -> list[str]:
    """The fleet's stacks in order, each once, without the excluded ones."""
    if stacks_file is not None and match is not None:
        raise FleetListError("--stacks-file and --match both name the stacks: give one")
    names = (stacks_from_file(stacks_file) if stacks_file is not None
             else stacks_matching(project_dir, match or DEFAULT_MATCH))
    listed = [name for name in dict.fromkeys(names) if name not in set(exclude)]
    if not listed:
        source = (f"--stacks-file {stacks_file}" if stacks_file
                  else f"--match {match or DEFAULT_MATCH!r}")
        raise FleetListError(f"{source} names no stack (in {project_dir})")
    return listed


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--project-dir", type=Path, default=Path.cwd(),
                        help="the Pulumi project, the directory holding Pulumi.yaml "
                        "(default: the current directory)")
    parser.add_argument("--stacks-file", type=Path, default=None, metavar="FILE",
                        help="the stacks, one name a line")
    parser.add_argument("--match", default=None, metavar="GLOB",
                        help=f"every stack whose settings file matches (default: "
                        f"{DEFAULT_MATCH!r})")
    parser.add_argument("--exclude", action="append", default=[], metavar="STACK",
                        help="leave this stack out (repeatable)")


def stacks_of(args: argparse.Namespace) -> list[str]:
    return fleet_stacks(args.project_dir, args.stacks_file, args.match, args.exclude)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m stacks.fleet_list",
                                     description=__doc__.splitlines()[0])
    add_arguments(parser)
    parser.add_argument("--json", action="store_true", help="a JSON list (a CI matrix)")
    args = parser.parse_args(argv)
    try:
        names = stacks_of(args)
    except FleetListError as exc:
        print(f"fleet list: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(names) if args.json else "\n".join(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
