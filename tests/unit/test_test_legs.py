"""The legs of `make test` (docs/testing.md, "Test legs"): a test marked `modern_leg` runs on
the modern leg alone, so it is in a file that leg runs (tests/modern, or the Makefile's
MODERN_E2E), and the main leg's command leaves the mark out: no test is marked out of every
leg, and none marked for the modern leg runs on both."""

from __future__ import annotations

import ast
import re
import shlex
import tomllib
from pathlib import Path

from stacks.pulumi_cli import REPO_ROOT

MARK = "modern_leg"
MAKEFILE = (REPO_ROOT / "Makefile").read_text()


def make_variable(name: str) -> list[str]:
    """The words of the Makefile's variable `name`, its continued lines joined."""
    [value] = re.findall(rf"^{name} :?= (.*)$", MAKEFILE.replace("\\\n", " "), re.MULTILINE)
    return value.split()


def pytest_command(target: str) -> list[str]:
    """The first command of `target`'s recipe that runs pytest, as words."""
    recipe = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", MAKEFILE, re.MULTILINE)
    assert recipe, f"the Makefile has no target {target}"
    [command, *_] = [line for line in recipe.group(1).splitlines() if "/pytest" in line]
    return shlex.split(command)


def marks_the_leg(source: str) -> bool:
    """Whether `source` marks a test `modern_leg`, in any of pytest's ways of writing a mark
    (a decorator, `pytestmark`, `pytest.param(..., marks=...)`: each names it as an
    attribute of `pytest.mark`)."""
    return any(isinstance(node, ast.Attribute) and node.attr == MARK
               for node in ast.walk(ast.parse(source)))


def files_marking_the_leg() -> set[str]:
    return {str(path.relative_to(REPO_ROOT)) for path in (REPO_ROOT / "tests").rglob("*.py")
            if MARK in (source := path.read_text()) and marks_the_leg(source)}


def on_the_modern_leg(path: str) -> bool:
    return path in make_variable("MODERN_E2E") or Path(path).parts[:2] == ("tests", "modern")


def test_every_test_marked_for_the_modern_leg_is_in_a_file_it_runs() -> None:
    marked = files_marking_the_leg()
    assert marked, f"no test is marked `{MARK}`: the scan finds none"
    assert sorted(path for path in marked if not on_the_modern_leg(path)) == []


def test_every_file_of_the_modern_leg_is_there() -> None:
    assert sorted(path for path in make_variable("MODERN_E2E")
                  if not (REPO_ROOT / path).is_file()) == []


def test_the_main_leg_leaves_the_mark_out_and_the_modern_leg_runs_it() -> None:
    main = pytest_command("test")
    assert "-m" in main and main[main.index("-m") + 1] == f"not {MARK}", main
    modern = pytest_command("test-modern")
    assert "-m" not in modern, f"the modern leg runs every test of its files: {modern}"
    assert modern[-2:] == ["tests/modern", "$(MODERN_E2E)"], modern


def test_the_mark_is_registered() -> None:
    settings = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())
    markers = settings["tool"]["pytest"]["ini_options"]["markers"]
    assert [m for m in markers if m.startswith(f"{MARK}: ")], markers


def test_the_scan_finds_each_way_of_writing_the_mark() -> None:
    ways = [
        "@pytest.mark.modern_leg\nclass TestX:\n    pass\n",
        "pytestmark = [pytest.mark.engine, pytest.mark.modern_leg]\n",
        "@pytest.mark.parametrize('f', [pytest.param('a', marks=pytest.mark.modern_leg)])\n"
        "def test_x(f): pass\n",
    ]
    assert [marks_the_leg(source) for source in ways] == [True, True, True]
    assert not marks_the_leg("pytestmark = pytest.mark.engine  # not modern_leg\n")
