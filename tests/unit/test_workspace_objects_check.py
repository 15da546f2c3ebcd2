"""Directory, Notebook and WorkspaceFile: the rules of their inputs, each failure naming its
field, before any call (paths as the service reads them, content from a project file or
inline, a notebook's language and format); what check records (the digest, never the
content); and the stack config's check of their lists."""

from __future__ import annotations

import base64
import copy
from pathlib import Path
from typing import Any

import pytest

from providers.core.lifecycle import CONNECTION_KEY, UNKNOWN, WorkspaceProvider
from providers.workspace.directory import DirectoryProvider
from providers.workspace.notebook import NotebookModel, NotebookProvider, effective_format, prepared
from providers.workspace.workspace_file import WorkspaceFileProvider
from providers.workspace.workspace_objects import (
    MAX_CONTENT_BYTES,
    canonical_path,
    digest,
    object_path,
    project_directory,
    raw_content,
    remembered,
)
from stacks.config import file_values
from stacks.config_rules import problems
from stacks.pulumi_cli import REPO_ROOT

NOTEBOOK = "stacks/notebooks/nightly_report.py"  # a notebook of the repository


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def failures(provider: type[WorkspaceProvider], inputs: dict[str, Any]) -> dict[str, str]:
    return {f.property: f.reason for f in provider.input_failures(inputs)}


@pytest.fixture
def in_the_repository(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT / "stacks")  # the program's directory: the project above


# --- paths -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("given", "recorded"), [
    ("/Shared/etl", "/Shared/etl"),
    ("/Workspace/Shared/etl", "/Shared/etl"),
    ("/Workspace//Shared///etl/", "/Shared/etl"),
    ("/Users/ana@example.com/etl", "/Users/ana@example.com/etl"),
    ("/Workspace", "/"),
    ("/Workspaces/x", "/Workspaces/x"),  # another top-level folder, not the mount
])
def test_paths_are_recorded_as_the_service_records_them(given: str, recorded: str) -> None:
    assert canonical_path(given) == recorded


@pytest.mark.parametrize(("path", "folder", "reason"), [
    ("Shared/etl", False, "absolute"),
    ("/Shared/./etl", False, ". or .."),
    ("/Shared/e\ttl", False, "control characters"),
    ("/", True, "every workspace has"),
    ("/Workspace/Repos", True, "every workspace has"),
    ("/Repos/team", False, "under /Repos"),
    ("/Repos/team/repo/sub", True, "under /Repos"),
])
def test_paths_a_stack_cannot_hold(path: str, folder: bool, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        object_path(path, folder=folder)
    assert object_path("/Repos/team", folder=True) == "/Repos/team"


# --- content -------------------------------------------------------------------------------


def test_the_project_directory_is_found_above_the_program(in_the_repository: None) -> None:
    assert project_directory() == REPO_ROOT


@pytest.mark.parametrize(("change", "field", "reason"), [
    ({}, "", ""),
    ({"source": None}, "source", "a file of the project (`source`)"),
    ({"source": "stacks/notebooks/none.py"}, "source", "no file stacks/notebooks/none.py"),
    ({"source": str(REPO_ROOT / NOTEBOOK)}, "source", "relative to the project directory"),
    ({"source": "C:/notebooks/x.py"}, "source", "relative to the project directory"),
    ({"source": "../elsewhere/x.py"}, "source", "inside the project directory"),
    ({"content_base64": b64(b"1")}, "content_base64", "source or content_base64, not both"),
    ({"source": None, "content_base64": "%%%"}, "content_base64", "must be base64"),
    ({"source": None, "content_base64": b64(b"1" * 65537)}, "content_base64", "at most 65536"),
    ({"path": "/Shared/report.py"}, "path", "give /Shared/report"),
    ({"path": "/Shared/report.Rmd"}, "path", "no extension"),
    ({"format": "DBC"}, "format", "'SOURCE', 'JUPYTER', 'R_MARKDOWN' or 'AUTO'"),
    ({"format": "JUPYTER"}, "source", "not a Jupyter notebook"),
    ({"source": None, "content_base64": b64(b"SELECT 1")}, "language", "required for SOURCE"),
    ({"content_sha256": "A" * 64}, "content_sha256", "64 hex digits"),
])
def test_every_notebook_rule_names_its_field(
    in_the_repository: None, change: dict[str, Any], field: str, reason: str
) -> None:
    base = {"path": "/Shared/report", "source": NOTEBOOK}
    found = failures(NotebookProvider, {k: v for k, v in {**base, **change}.items()
                                        if v is not None})
    if not field:
        assert found == {}
    else:
        assert reason in found.get(field, ""), found


def test_a_source_too_large_for_the_service(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "Pulumi.yaml").write_text("name: big\n")
    (tmp_path / "big.bin").write_bytes(b"\0" * (MAX_CONTENT_BYTES + 1))
    monkeypatch.chdir(tmp_path)
    found = failures(WorkspaceFileProvider, {"path": "/Shared/big.bin", "source": "big.bin"})
    assert "10 MB" in found["source"]


def test_a_source_linked_out_of_the_project_is_refused(tmp_path: Path, monkeypatch) -> None:
    """A committed link to a file outside the project (the deploy job's environment, a
    credentials file), or through a folder link leading out, is refused naming the field and
    the link; a link that stays inside the project is read."""
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (project / "Pulumi.yaml").write_text("name: linked\n")
    (outside / "environ").write_text("PULUMI_CONFIG_PASSPHRASE=hunter2\n")
    (project / "env.py").symlink_to(outside / "environ")
    (project / "home").symlink_to(outside)
    (project / "real.py").write_text("x = 1\n")
    (project / "alias.py").symlink_to(project / "real.py")
    monkeypatch.chdir(project)
    for source in ("env.py", "home/environ"):
        found = failures(WorkspaceFileProvider, {"path": "/Shared/x.py", "source": source})
        assert set(found) == {"source"}, found
        assert f"{source} is a symbolic link" in found["source"]
        assert str((outside / "environ").resolve()) in found["source"]
        assert "outside the project directory" in found["source"]
        assert "hunter2" not in found["source"]
    assert failures(WorkspaceFileProvider, {"path": "/Shared/x.py", "source": "alias.py"}) == {}
    with pytest.raises(ValueError, match="symbolic link"):
        raw_content({"source": "env.py"})
    assert raw_content({"source": "alias.py"}) == b"x = 1\n"


def test_unknown_inputs_are_not_judged() -> None:
    assert failures(NotebookProvider, {"path": "/Shared/x", "source": UNKNOWN}) == {}


@pytest.mark.parametrize(("declared", "fmt", "language"), [
    ({"source": "a/etl.py"}, "SOURCE", "PYTHON"),
    ({"source": "a/etl.SQL"}, "SOURCE", "SQL"),
    ({"source": "a/etl.scala"}, "SOURCE", "SCALA"),
    ({"source": "a/etl.r"}, "SOURCE", "R"),
    ({"source": "a/etl.ipynb"}, "JUPYTER", "PYTHON"),
    ({"source": "a/etl.Rmd"}, "R_MARKDOWN", "R"),
    ({"source": "a/etl.txt", "language": "SQL"}, "SOURCE", "SQL"),
    ({"source": "a/etl.py", "format": "AUTO"}, "SOURCE", "PYTHON"),
    ({"source": "a/etl.py", "language": "SCALA"}, "SOURCE", "SCALA"),
    ({"content_base64": "", "language": "R"}, "SOURCE", "R"),
])
def test_format_and_language_from_the_file(declared, fmt, language) -> None:
    args = NotebookModel(path="/Shared/etl", **declared)
    spec = NotebookProvider().spec(args.model_copy(update={"content_sha256": "0" * 64}))
    assert (effective_format(args), spec["format"], spec["language"]) == (fmt, fmt, language)


def test_source_gets_the_header_of_its_language_once() -> None:
    sql = NotebookModel(path="/Shared/q", language="SQL", content_base64="")
    assert prepared(sql, b"SELECT 1") == b"-- Databricks notebook source\nSELECT 1"
    headed = b"-- Databricks notebook source\r\nSELECT 1"
    assert prepared(sql, headed) == headed
    jupyter = NotebookModel(path="/Shared/j", source="x.ipynb")
    assert prepared(jupyter, b"{}") == b"{}"


def test_check_keeps_the_digest_and_drops_inline_content() -> None:
    news = {"path": "/Shared/q", "content_base64": b64(b"SELECT 1"), "language": "SQL",
            CONNECTION_KEY: {"base_url": "https://example.com"}}
    result = NotebookProvider().check({}, news)
    assert result.failures == []
    key = digest(b"-- Databricks notebook source\nSELECT 1")
    assert result.inputs == {"path": "/Shared/q", "language": "SQL", "content_sha256": key,
                             CONNECTION_KEY: news[CONNECTION_KEY]}
    assert remembered(key) == b"-- Databricks notebook source\nSELECT 1"


def test_directory_rules() -> None:
    assert failures(DirectoryProvider, {"path": "/Shared/team"}) == {}
    assert "boolean" in failures(DirectoryProvider, {"path": "/Shared/t",
                                                     "delete_recursive": 1.5})[
        "delete_recursive"]
    assert DirectoryProvider().spec(DirectoryProvider.args_model(path="/Workspace/Shared/t/")
                                    ) == {"path": "/Shared/t", "delete_recursive": False}


# --- the stack's config --------------------------------------------------------------------


def test_the_config_check_names_the_item_and_field(in_the_repository: None) -> None:
    values = copy.deepcopy(file_values(REPO_ROOT / "Pulumi.dev.yaml")[0])
    values["notebooks"] = [
        {"name": "report", "path": "/Shared/report", "source": NOTEBOOK},
        {"name": "broken", "path": "/Shared/broken.py", "source": NOTEBOOK},
        {"name": "unread", "path": "/Shared/unread", "source": "stacks/notebooks/none.py"},
    ]
    values["directories"] = [{"name": "a", "path": "/Shared/a"},
                             {"name": "b", "path": "/Shared/a"}]
    found = problems(values)
    assert any(p.startswith("workspace:notebooks[1].path: ") and "give /Shared/broken" in p
               for p in found), found
    assert any(p.startswith("workspace:notebooks[2].source: no file") for p in found), found
    assert not any("notebooks[0]" in p for p in found), found
    assert any("directories" in p and "/Shared/a" in p for p in found), found
