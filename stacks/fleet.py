"""`workspace-iac fleet`: preview, deploy, refresh or report the drift of many stacks in one
command (docs/delivery.md, "Fleet").

    workspace-iac fleet preview --match 'Pulumi.*.yaml' --exclude local --parallel 4
    workspace-iac fleet up --stacks-file fleet.txt
    workspace-iac fleet drift
    workspace-iac fleet list --json          the stacks, as the workflows' matrix

The stacks come from a file or a pattern (stacks/fleet_list.py). Each runs through the
Automation API (`pulumi.automation`, the stack's own engine process) in a thread of its
own, at most `--parallel` at once; `drift` runs the drift report (stacks/drift.py) per stack.
One progress display follows them, a line per stack (waiting, running with the resources
reached and changed, done, failed), redrawn in place on a terminal and as plain lines
otherwise; one table at the end says per stack what changed, how long it took and, for a
failed one, its first error. A failing stack does not stop the others.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from stacks import fleet_list, single_write
from stacks.drift import drift_report
from stacks.preview_summary import PROVIDER_TYPE_PREFIX, ROOT_TYPE
from stacks.pulumi_cli import PulumiCli
from stacks.stack_runs import stack_cli

DESCRIPTION = "Preview, deploy, refresh or report the drift of many stacks at once."
EPILOG = ("Exit status: 0 every stack succeeded (drift: and none drifted), 1 a stack failed "
          "(drift: or drifted), 2 the list of stacks is wrong.")
ACTIONS = ("preview", "up", "refresh", "drift", "list")
EXIT_ALL_SUCCEEDED, EXIT_SOME_FAILED, EXIT_ERROR = 0, 1, 2
DEFAULT_PARALLEL = 4
# How often a terminal's display is redrawn at most, while events arrive.
REDRAW_SECONDS = 0.2
ERROR_LINE = re.compile(r"^\s*error:\s*(?P<message>.+)$", re.MULTILINE)
MAX_ERROR = 300


@dataclass
class StackRun:
    """One stack's run, as the display and the summary show it."""

    stack: str
    status: str = "waiting"  # waiting, running, done, failed
    reached: int = 0  # workspace resources the engine has reached
    changing: int = 0  # of them, those it creates, updates, replaces or deletes
    changes: dict[str, int] = field(default_factory=dict)  # the engine's summary
    drifted: int | None = None  # drift: resources changed outside the stack
    error: str | None = None
    started: float | None = None
    ended: float | None = None

    @property
    def seconds(self) -> float:
        if self.started is None:
            return 0.0
        return (time.monotonic() if self.ended is None else self.ended) - self.started

    def line(self) -> str:
        if self.status == "running":
            return (f"{self.stack}: running ({self.reached} resources, {self.changing} "
                    f"changing, {self.seconds:.0f}s)")
        if self.status == "done":
            return f"{self.stack}: done ({changes_text(self)}, {self.seconds:.1f}s)"
        if self.status == "failed":
            return f"{self.stack}: failed ({self.seconds:.1f}s): {self.error}"
        return f"{self.stack}: waiting"


def changes_text(run: StackRun) -> str:
    if run.drifted is not None:
        return f"{run.drifted} drifted" if run.drifted else "no drift"
    changed = {op: n for op, n in run.changes.items() if op != "same" and n}
    same = run.changes.get("same", 0)
    if not changed:
        return f"no changes ({same} unchanged)"
    return ", ".join(f"{n} to {op}" for op, n in changed.items()) + f" ({same} unchanged)"


class Progress:
    """One display for every stack: on a terminal the lines are redrawn in place, otherwise
    a plain line is written each time a stack changes status."""

    def __init__(self, runs: Sequence[StackRun], out: IO[str]) -> None:
        self.runs = runs
        self.out = out
        self.tty = out.isatty()
        self.lock = threading.Lock()
        self.drawn = 0
        self.last_draw = 0.0

    def start(self) -> None:
        with self.lock:
            if self.tty:
                self._draw()
            else:
                for run in self.runs:
                    self.out.write(run.line() + "\n")
                self.out.flush()

    def status_changed(self, run: StackRun) -> None:
        with self.lock:
            if self.tty:
                self._draw()
            else:
                self.out.write(run.line() + "\n")
                self.out.flush()

    def counts_changed(self) -> None:
        with self.lock:
            if self.tty and time.monotonic() - self.last_draw >= REDRAW_SECONDS:
                self._draw()

    def _draw(self) -> None:
        # Back to the first line drawn, then each line cleared and written again.
        if self.drawn:
            self.out.write(f"\x1b[{self.drawn}F")
        for run in self.runs:
            self.out.write(f"\x1b[2K{run.line()}\n")
        self.drawn = len(self.runs)
        self.last_draw = time.monotonic()
        self.out.flush()


def is_workspace_resource(resource_type: str) -> bool:
    return resource_type != ROOT_TYPE and not resource_type.startswith(PROVIDER_TYPE_PREFIX) \
        and ":dynamic/" in resource_type


def first_error(text: str) -> str:
    """The first `error:` line of an engine's output (else its first line), kept short."""
    found = ERROR_LINE.search(text)
    message = (found["message"] if found else text.strip().splitlines()[0] if text.strip()
               else "failed").strip()
    return message if len(message) <= MAX_ERROR else message[:MAX_ERROR - 1] + "…"


def automation_stack(cli: PulumiCli) -> Any:
    """The stack of `cli` in the Automation API: the project's directory, the same
    backend and engine environment as the CLI's, the program inline where needed."""
    from pulumi import automation as auto

    options = auto.LocalWorkspaceOptions(work_dir=str(cli.project_dir), env_vars=cli.env(),
                                         program=cli.program)
    return auto.create_or_select_stack(stack_name=cli.stack, work_dir=str(cli.project_dir),
                                       program=cli.program, opts=options)


def run_stack(action: str, cli: PulumiCli, run: StackRun, progress: Progress) -> None:
    """Runs `action` on one stack, recording into `run`; never raises."""
    errors: list[str] = []

    def on_event(event: Any) -> None:
        pre = event.resource_pre_event
        if pre is not None and is_workspace_resource(pre.metadata.type):
            run.reached += 1
            run.changing += pre.metadata.op.value not in ("same", "read", "refresh")
            progress.counts_changed()
        diagnostic = event.diagnostic_event
        if diagnostic is not None and diagnostic.severity == "error":
            errors.append(diagnostic.message)

    run.status, run.started = "running", time.monotonic()
    progress.status_changed(run)
    try:
        if action == "drift":
            report = drift_report(cli)
            run.drifted = len(report.resources)
        else:
            if action == "up":
                # The stack's own choice (workspace:singleWrite); a refusal fails it alone.
                single_write.as_requested(cli)
            stack = automation_stack(cli)
            if action == "preview":
                result = stack.preview(on_event=on_event)
                run.changes = counts(result.change_summary)
            elif action == "up":
                run.changes = counts(stack.up(on_event=on_event).summary.resource_changes)
            else:
                run.changes = counts(stack.refresh(on_event=on_event).summary.resource_changes)
        run.status = "done"
    except Exception as exc:  # noqa: BLE001 - any stack's failure is reported, not raised
        run.status = "failed"
        run.error = first_error(errors[0] if errors else str(exc))
    run.ended = time.monotonic()
    progress.status_changed(run)


def counts(summary: Any) -> dict[str, int]:
    return {getattr(op, "value", str(op)): int(n) for op, n in (summary or {}).items()}


def run_fleet(action: str, clis: Sequence[PulumiCli], parallel: int,
              out: IO[str]) -> list[StackRun]:
    """Runs `action` on every stack, at most `parallel` at once; each stack's run."""
    runs = [StackRun(cli.stack) for cli in clis]
    progress = Progress(runs, out)
    progress.start()
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        for cli, run in zip(clis, runs, strict=True):
            pool.submit(run_stack, action, cli, run, progress)
    return runs


def summary_table(action: str, runs: Sequence[StackRun]) -> str:
    """The table at the end: per stack its result, changes, duration and first error."""
    rows = [("stack", "result", "drift" if action == "drift" else "changes", "duration",
             "first error")]
    for run in runs:
        rows.append((run.stack, run.status, changes_text(run) if run.status == "done" else "-",
                     f"{run.seconds:.1f}s", run.error or ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=False))
             + "  " + row[-1] for row in rows]
    failed = [run.stack for run in runs if run.status == "failed"]
    drifted = [run.stack for run in runs if run.drifted]
    verdict = f"fleet {action}: {len(runs) - len(failed)} of {len(runs)} stacks succeeded"
    verdict += f"; failed: {', '.join(failed)}" if failed else ""
    verdict += f"; drifted: {', '.join(drifted)}" if drifted else ""
    return "\n".join([*(line.rstrip() for line in lines), verdict, ""])


def exit_status(runs: Sequence[StackRun]) -> int:
    if any(run.status != "done" or run.drifted for run in runs):
        return EXIT_SOME_FAILED
    return EXIT_ALL_SUCCEEDED


# --- the command ----------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The fleet's options, for `python -m stacks.fleet` and `workspace-iac fleet`."""
    parser.add_argument("action", choices=ACTIONS, help="what to do with every stack")
    fleet_list.add_arguments(parser)
    parser.add_argument("--state-dir", type=Path, default=None,
                        help="file backend directory (default: PULUMI_BACKEND_URL if set, "
                        "else .pulumi-state of the project)")
    parser.add_argument("--parallel", type=int, default=DEFAULT_PARALLEL, metavar="K",
                        help="at most K stacks at once (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="list: a JSON list (a CI matrix)")


def run(args: argparse.Namespace, out: IO[str] | None = None) -> int:
    """The fleet of parsed options: the display, then the table; the exit status."""
    out = out or sys.stdout
    if args.parallel < 1:
        print(f"fleet: --parallel {args.parallel}: give at least 1", file=sys.stderr)
        return EXIT_ERROR
    try:
        names = fleet_list.stacks_of(args)
    except fleet_list.FleetListError as exc:
        print(f"fleet: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if args.action == "list":
        print(json.dumps(names) if args.json else "\n".join(names), file=out)
        return EXIT_ALL_SUCCEEDED
    runs = run_fleet(args.action, [stack_cli(args.project_dir, name, args.state_dir)
                                   for name in names], args.parallel, out)
    out.write("\n" + summary_table(args.action, runs))
    return exit_status(runs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m stacks.fleet", description=DESCRIPTION,
                                     epilog=EPILOG)
    add_arguments(parser)
    return run(parser.parse_args(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
