"""Adopt's project files (stacks/adopt_content.py) without a workspace: where a notebook's
or file's content goes, a file of the project never overwritten with other content, two
objects never written to one file, and the items judged against files not written yet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from providers.core.registry import kind_named
from providers.workspace.workspace_objects import source_file, source_roots
from stacks import adopt, adopt_content
from stacks.adopt_content import ContentPlace
from tests.unit.test_adopt import Candidate, fake

NOTEBOOK = kind_named("Notebook")
WORKSPACE_FILE = kind_named("WorkspaceFile")
SOURCE = b"# Databricks notebook source\nprint('etl')\n"


def notebook(path: str, content: bytes = SOURCE) -> Candidate:
    name = f"{path.lstrip('/')}.py"
    return Candidate(NOTEBOOK, path, path, {"path": path, "source": name},
                     files={name: content})


def run(project: Path, *found: Candidate, folder: str = "workspace") -> adopt.Plan:
    selection = adopt.select([NOTEBOOK, WORKSPACE_FILE])
    return adopt.plan(None, selection, adopt.known_of({}, {}, "dev", [NOTEBOOK, WORKSPACE_FILE]),  # type: ignore[arg-type]
                      source=fake(*found), place=ContentPlace(project, folder))


def test_the_item_names_its_content_under_the_content_folder(tmp_path: Path) -> None:
    result = run(tmp_path, notebook("/Shared/etl/daily"), folder="nb")
    [item] = result.additions["notebooks"]
    assert item == {"name": "shared-etl-daily", "import": "/Shared/etl/daily",
                    "path": "/Shared/etl/daily", "source": "nb/Shared/etl/daily.py"}
    assert result.files == {"nb/Shared/etl/daily.py": SOURCE}
    assert not (tmp_path / "nb").exists()  # planning writes nothing


def test_a_project_file_with_other_content_is_never_overwritten(tmp_path: Path) -> None:
    kept = tmp_path / "workspace/Shared/etl/daily.py"
    kept.parent.mkdir(parents=True)
    kept.write_bytes(b"# the team's own\n")
    same = tmp_path / "workspace/Shared/etl/weekly.py"
    same.write_bytes(SOURCE)
    result = run(tmp_path, notebook("/Shared/etl/daily"), notebook("/Shared/etl/weekly"))
    [refused] = result.refused
    assert refused.id == "/Shared/etl/daily"
    assert "workspace/Shared/etl/daily.py exists with other content" in refused.problem
    assert "--content-dir" in refused.problem
    # A file holding the same bytes is the object's already (an earlier run wrote it).
    assert [i["import"] for i in result.additions["notebooks"]] == ["/Shared/etl/weekly"]
    assert kept.read_bytes() == b"# the team's own\n"


def test_two_objects_never_share_a_project_file(tmp_path: Path) -> None:
    file = Candidate(WORKSPACE_FILE, "/Shared/etl/daily.py", "/Shared/etl/daily.py",
                     {"path": "/Shared/etl/daily.py", "source": "Shared/etl/daily.py"},
                     files={"Shared/etl/daily.py": b"x = 1\n"})
    result = run(tmp_path, notebook("/Shared/etl/daily"), file)
    assert [r.id for r in result.refused] == ["/Shared/etl/daily.py"]
    assert "another object adopted in this run takes" in result.refused[0].problem
    assert result.files == {"workspace/Shared/etl/daily.py": SOURCE}


@pytest.mark.parametrize("folder", ["/abs", "../outside", "a/../../b", " "])
def test_a_content_folder_outside_the_project_is_refused(folder: str) -> None:
    with pytest.raises(ValueError, match="--content-dir"):
        adopt_content.checked_folder(folder)


def test_staged_files_are_read_before_the_projects_and_written_only_by_write(
    tmp_path: Path,
) -> None:
    (tmp_path / "stacks").mkdir()
    (tmp_path / "stacks/kept.py").write_text("kept\n")
    place = ContentPlace(tmp_path)
    with adopt_content.staged(place, {"workspace/new.py": b"new\n"}):
        assert source_file("workspace/new.py").read_bytes() == b"new\n"
        assert source_file("stacks/kept.py").read_text() == "kept\n"
        with pytest.raises(ValueError, match="no file workspace/other.py"):
            source_file("workspace/other.py")
    assert not (tmp_path / "workspace").exists()
    adopt_content.write(tmp_path, {"workspace/Shared/new.py": b"new\n"})
    assert (tmp_path / "workspace/Shared/new.py").read_bytes() == b"new\n"


def test_the_rules_judge_the_new_items_against_the_staged_files(tmp_path: Path) -> None:
    """An item naming content not written yet passes the config's rules while staged; an
    item the rules refuse takes its file with it."""
    result = run(tmp_path, notebook("/Shared/etl/daily"))
    values: dict[str, Any] = {}
    kinds = {"notebooks": NOTEBOOK}
    with adopt_content.staged(ContentPlace(tmp_path), result.files):
        screened = adopt.screened(values, set(), result, kinds)
    assert screened.refused == [] and adopt.named_files(screened) == result.files
    with source_roots(tmp_path):  # not staged: the file is not there yet
        refused = adopt.screened(values, set(), run(tmp_path, notebook("/Shared/x")), kinds)
    assert [r.id for r in refused.refused] == ["/Shared/x"]
    assert adopt.named_files(refused) == {}


def test_the_content_goes_where_the_program_reads_its_sources(tmp_path: Path) -> None:
    """A project whose Pulumi.yaml runs a program elsewhere (`main`) reads `source` files
    from that program's project, where the engine runs it; one without `main`, from its
    own directory."""
    program = tmp_path / "checkout"
    (program / "stacks").mkdir(parents=True)
    (program / "Pulumi.yaml").write_text("name: workspace\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "Pulumi.yaml").write_text(f"name: e2e\nmain: {program / 'stacks'}\n")
    assert adopt_content.sources_directory(scratch) == program.resolve()
    assert adopt_content.sources_directory(program) == program.resolve()


def test_adopt_never_writes_through_a_symbolic_link(tmp_path: Path) -> None:
    """A committed folder link leading out of the project, or a project file that is a link,
    refuses the object (nothing planned for it), and `write` refuses it too; a folder link
    that stays inside the project is written through."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "workspace").symlink_to(outside)
    result = run(project, notebook("/Shared/etl"))
    [refused] = result.refused
    assert "the project folder workspace is a symbolic link to" in refused.problem
    assert "outside the project" in refused.problem and "--content-dir" in refused.problem
    assert result.files == {} and "notebooks" not in result.additions
    with pytest.raises(ValueError, match="symbolic link"):
        adopt_content.write(project, {"workspace/Shared/etl.py": SOURCE})
    assert list(outside.iterdir()) == []

    (project / "nb").mkdir()
    (outside / "target.py").write_bytes(SOURCE)
    (project / "nb/Shared").mkdir()
    (project / "nb/Shared/etl.py").symlink_to(outside / "target.py")
    [refused] = run(project, notebook("/Shared/etl"), folder="nb").refused
    assert "the project file nb/Shared/etl.py is a symbolic link" in refused.problem
    with pytest.raises(ValueError, match="nb/Shared/etl.py is a symbolic link"):
        adopt_content.write(project, {"nb/Shared/etl.py": b"changed\n"})
    assert (outside / "target.py").read_bytes() == SOURCE

    (project / "inside").mkdir()
    (project / "linked").symlink_to(project / "inside")
    result = run(project, notebook("/Shared/etl"), folder="linked")
    assert result.refused == []
    adopt_content.write(project, result.files)
    assert (project / "inside/Shared/etl.py").read_bytes() == SOURCE


@pytest.mark.parametrize("dry_run", [False, True])
def test_the_summary_names_each_project_file_to_review(dry_run: bool) -> None:
    """Adopt prints every content file it wrote (or would write), to be reviewed before
    the commit, a name's control characters escaped."""
    result = adopt.Plan(
        additions={"notebooks": [{"name": "daily"}], "workspaceFiles": [{"name": "rules"}]},
        files={"workspace/Shared/etl/daily.sql": b"SELECT 1\n",
               "workspace/Shared/etl/rules\x1b.yml": b"retries: 2\n"},
    )
    text = adopt.summary(result, "Pulumi.dev.yaml", dry_run, 1.0, "dev")
    verb = "would write" if dry_run else "wrote"
    assert f"{verb} 2 project file(s)" in text
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(verb))
    assert lines[at + 1:at + 3] == ["  workspace/Shared/etl/daily.sql",
                                    "  workspace/Shared/etl/rules\\x1b.yml"]
