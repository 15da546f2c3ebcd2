"""The fleet's list of stacks (stacks/fleet_list.py) and its display and summary
(stacks/fleet.py), without the engine: the list from a file or a pattern, each bad list
refused naming the fix; the display as plain lines off a terminal and redrawn in place on
one; the table and the exit status."""

from __future__ import annotations

import argparse
import ast
import io
import sys
from pathlib import Path

import pytest

from stacks import fleet, fleet_list
from stacks.fleet import Progress, StackRun, exit_status, first_error, summary_table
from stacks.fleet_list import FleetListError, fleet_stacks
from stacks.pulumi_cli import REPO_ROOT


def project(tmp_path: Path, *stacks: str) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: workspace\nruntime: python\n")
    for stack in stacks:
        (tmp_path / f"Pulumi.{stack}.yaml").write_text("config: {}\n")
    return tmp_path


def test_a_pattern_lists_every_matching_stack_but_the_excluded(tmp_path: Path) -> None:
    directory = project(tmp_path, "dev", "local", "prod", "eu-sales")
    assert fleet_stacks(directory) == ["dev", "eu-sales", "local", "prod"]
    assert fleet_stacks(directory, exclude=["local"]) == ["dev", "eu-sales", "prod"]
    assert fleet_stacks(directory, match="Pulumi.eu-*.yaml") == ["eu-sales"]
    assert fleet_stacks(REPO_ROOT, exclude=["local"]) == ["dev", "prod", "staging"]


def test_a_stacks_file_names_one_stack_a_line_with_comments(tmp_path: Path) -> None:
    listed = tmp_path / "fleet.txt"
    listed.write_text("# the business units\ndev\n\nprod   # last\ndev\n")
    assert fleet_stacks(tmp_path, stacks_file=listed) == ["dev", "prod"]


@pytest.mark.parametrize(("text", "match", "message"), [
    (None, None, "--stacks-file {file}: no such file (one stack name per line)"),
    ("dev prod\n", None, "{file}:1: 'dev prod' is not a stack name (letters, digits, `-`, "
                         "`_` and `.`; one per line)"),
    ("# nothing\n", None, "--stacks-file {file} names no stack (in {dir})"),
    ("dev\n", "Pulumi.*.yaml", "--stacks-file and --match both name the stacks: give one"),
])
def test_a_bad_list_is_refused_naming_the_fix(
    tmp_path: Path, text: str | None, match: str | None, message: str
) -> None:
    listed = tmp_path / "fleet.txt"
    if text is not None:
        listed.write_text(text)
    with pytest.raises(FleetListError) as raised:
        fleet_stacks(tmp_path, stacks_file=listed, match=match)
    assert str(raised.value) == message.format(file=listed, dir=tmp_path)


def test_a_pattern_matching_another_file_is_refused(tmp_path: Path) -> None:
    directory = project(tmp_path, "dev")
    with pytest.raises(FleetListError, match="matched Pulumi.yaml, which is not a stack's"):
        fleet_stacks(directory, match="Pulumi.*")
    with pytest.raises(FleetListError, match=r"--match 'Pulumi.x\*.yaml' names no stack"):
        fleet_stacks(directory, match="Pulumi.x*.yaml")


def test_the_list_needs_only_the_standard_library() -> None:
    """The workflows list the stacks before any setup, with the runner's python3."""
    tree = ast.parse(Path(fleet_list.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module}
    assert imported - {"__future__"} <= set(sys.stdlib_module_names)


def test_fleet_list_prints_the_matrix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = project(tmp_path, "dev", "local", "prod")
    assert fleet_list.main(["--project-dir", str(directory), "--exclude", "local",
                            "--json"]) == 0
    assert capsys.readouterr().out == '["dev", "prod"]\n'
    args = argparse.Namespace(action="list", project_dir=directory, stacks_file=None,
                              match=None, exclude=[], parallel=4, json=True, state_dir=None)
    out = io.StringIO()
    assert fleet.run(args, out) == 0
    assert out.getvalue() == '["dev", "local", "prod"]\n'
    assert fleet.run(argparse.Namespace(**{**vars(args), "parallel": 0}), out) == 2


# --- the display and the summary --------------------------------------------------------


def runs() -> list[StackRun]:
    done = StackRun("dev", "done", changes={"update": 2, "same": 41}, started=10.0, ended=48.2)
    failed = StackRun("eu-sales", "failed", error="could not sign in", started=10.0,
                      ended=13.1)
    return [done, failed]


def test_off_a_terminal_each_status_change_is_one_plain_line() -> None:
    out = io.StringIO()
    stacks = [StackRun("dev"), StackRun("prod")]
    progress = Progress(stacks, out)
    progress.start()
    stacks[0].status, stacks[0].started = "running", 0.0
    stacks[0].ended = 0.0
    progress.status_changed(stacks[0])
    progress.counts_changed()  # no line: counts are shown on a terminal only
    stacks[0].status, stacks[0].changes = "done", {"same": 3}
    progress.status_changed(stacks[0])
    assert out.getvalue().splitlines() == [
        "dev: waiting", "prod: waiting", "dev: running (0 resources, 0 changing, 0s)",
        "dev: done (no changes (3 unchanged), 0.0s)"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_lines_are_redrawn_in_place() -> None:
    out = Terminal()
    stacks = [StackRun("dev"), StackRun("prod")]
    progress = Progress(stacks, out)
    progress.start()
    stacks[1].status, stacks[1].started, stacks[1].ended = "failed", 0.0, 1.0
    stacks[1].error = "boom"
    progress.status_changed(stacks[1])
    assert out.getvalue() == (
        "\x1b[2Kdev: waiting\n\x1b[2Kprod: waiting\n"
        "\x1b[2F\x1b[2Kdev: waiting\n\x1b[2Kprod: failed (1.0s): boom\n")


def test_the_summary_names_changes_durations_and_the_first_error() -> None:
    assert summary_table("up", runs()).splitlines() == [
        "stack     result  changes                     duration  first error",
        "dev       done    2 to update (41 unchanged)  38.2s",
        "eu-sales  failed  -                           3.1s      could not sign in",
        "fleet up: 1 of 2 stacks succeeded; failed: eu-sales",
    ]
    assert exit_status(runs()) == 1
    assert exit_status(runs()[:1]) == 0
    drifted = StackRun("dev", "done", drifted=2, started=0.0, ended=1.0)
    assert "dev    done    2 drifted" in summary_table("drift", [drifted])
    assert summary_table("drift", [drifted]).splitlines()[-1] == (
        "fleet drift: 1 of 1 stacks succeeded; drifted: dev")
    assert exit_status([drifted]) == 1


def test_the_first_error_is_the_engines_first_error_line() -> None:
    text = "Updating (dev):\n    error: the first\n    error: the second\n"
    assert first_error(text) == "the first"
    assert first_error("no marker\nsecond line") == "no marker"
    assert len(first_error("error: " + "x" * 1000)) == fleet.MAX_ERROR
