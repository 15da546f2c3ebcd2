"""`workspace-iac` without the engine: its subcommands, and the project it works on is the
current directory or `--project-dir`, never the checkout the package runs from."""

from __future__ import annotations

from pathlib import Path

import pytest

from stacks import cli
from stacks.pulumi_cli import REPO_ROOT

NOTEBOOK = "stacks/notebooks/nightly_report.py"  # the file Pulumi.dev.yaml's notebook names


def team_project(directory: Path) -> Path:
    """A project outside the checkout holding the checkout's dev stack file and the
    notebook file its item names."""
    directory.mkdir()
    (directory / "Pulumi.yaml").write_text("name: team\nruntime: python\n")
    (directory / "Pulumi.dev.yaml").write_text((REPO_ROOT / "Pulumi.dev.yaml").read_text())
    (directory / NOTEBOOK).parent.mkdir(parents=True)
    (directory / NOTEBOOK).write_bytes((REPO_ROOT / NOTEBOOK).read_bytes())
    return directory


def test_the_subcommands_take_their_modules_options() -> None:
    parser = cli.parser()
    adopt = parser.parse_args(["adopt", "--stack", "dev", "--dry-run", "--python", "a.py"])
    audit = parser.parse_args(["audit", "--json", "--project-dir", "/srv/team"])
    check = parser.parse_args(["check", "--stack", "dev"])
    summary = parser.parse_args(["summary", "--stack", "dev"])

    assert (adopt.stack, adopt.dry_run, adopt.python) == ("dev", True, Path("a.py"))
    assert (audit.stack, audit.json, audit.project_dir) == ("local", True, Path("/srv/team"))
    assert check.stack == ["dev"]
    assert summary.stack == "dev"
    assert {args.run.__module__ for args in (adopt, audit, check, summary)} == {
        "stacks.adopt", "stacks.audit", "stacks.check", "stacks.preview_summary"}


def test_the_project_is_the_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = team_project(tmp_path / "team")
    monkeypatch.chdir(project)

    assert cli.main(["check"]) == 0
    assert capsys.readouterr().out == "Pulumi.dev.yaml: ok\n"


def test_sources_are_the_projects_wherever_the_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project = team_project(tmp_path / "team")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)

    assert cli.main(["check", "--project-dir", str(project), "--stack", "dev"]) == 0
    assert capsys.readouterr().out == "Pulumi.dev.yaml: ok\n"
    (project / NOTEBOOK).unlink()
    assert cli.main(["check", "--project-dir", str(project)]) == 1
    # The notebook and the volume file of the dev stack both upload it.
    assert capsys.readouterr().out == (
        f"Pulumi.dev.yaml: workspace:notebooks[0].source: no file {NOTEBOOK} in the project "
        f"directory {project}\n"
        f"Pulumi.dev.yaml: workspace:volumeFiles[0].source: no file {NOTEBOOK} in the project "
        f"directory {project}\n")


@pytest.mark.parametrize("command", [["check"], ["audit", "--stack", "dev"],
                                     ["adopt", "--stack", "dev"]])
def test_a_directory_without_pulumi_yaml_is_refused(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)

    assert cli.main(command) == 2
    assert capsys.readouterr().err == (
        f"{command[0]}: {tmp_path} holds no Pulumi.yaml: run from the Pulumi project's "
        "directory or name it with --project-dir\n")
