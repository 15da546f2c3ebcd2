"""Notebook against the emulator, in both wire forms: check, content from a file of a project
directory or inline (never in the checked inputs), create with its folder, no change for the
same content, an update in place for new content or another language (the object kept), a
path change replacing, drift read by refresh (one call while nothing moved), import, adoption
after a lost answer and of what an interrupted run left, another's notebook refused."""

from __future__ import annotations

import base64
import uuid
from pathlib import Path
from typing import Any

import pytest

from providers.client import AlreadyExists, WorkspaceClient, process
from providers.core.lifecycle import CONNECTION_KEY
from providers.workspace.notebook import NotebookProvider
from providers.workspace.workspace_objects import ContentUnavailable, digest
from providers.workspace.workspace_objects_api import WORKSPACE_PATH, WorkspaceObjectsApi
from tests.providers.ambiguous import lose_the_answer_to
from tests.providers.support import assert_check_names, failures
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log

SOURCE = "notebooks/etl.py"
HEADER = b"# Databricks notebook source\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory (its Pulumi.yaml) holding notebooks/etl.py, the working
    directory for the test (a subdirectory of it: the project is found above)."""
    (tmp_path / "Pulumi.yaml").write_text("name: notebooks\nruntime: python\n")
    (tmp_path / "notebooks").mkdir()
    (tmp_path / SOURCE).write_text("print('etl')\n")
    monkeypatch.chdir(tmp_path / "notebooks")
    return tmp_path


@pytest.fixture
def provider() -> NotebookProvider:
    return NotebookProvider()


@pytest.fixture
def folder() -> str:
    return f"/Shared/nb-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def props(connection: dict[str, Any], folder: str, project: Path) -> dict[str, Any]:
    return {"path": f"/Workspace{folder}/etl", "source": SOURCE, CONNECTION_KEY: connection}


def checked(provider: NotebookProvider, props: dict[str, Any]) -> dict[str, Any]:
    result = provider.check({}, props)
    assert result.failures == [], result.failures
    return dict(result.inputs)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def exported(client: WorkspaceClient, path: str) -> bytes:
    return WorkspaceObjectsApi(client).export(path)


# --- check ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"path": "Shared/etl"}, "path", "absolute"),
        ({"path": "/Shared/../etl"}, "path", ". or .."),
        ({"path": "/Shared"}, "path", "every workspace has"),
        ({"path": "/Workspace/Users"}, "path", "every workspace has"),
        ({"path": "/Repos/team/etl"}, "path", "under /Repos"),
        ({"path": "/Shared/etl.py"}, "path", "give /Shared/etl"),
        ({"path": "/Shared/explore.ipynb"}, "path", "no extension"),
        ({"source": None}, "source", "required"),
        ({"content_base64": b64(b"1")}, "content_base64", "not both"),
        ({"source": "notebooks/none.py"}, "source", "no file notebooks/none.py"),
        ({"source": "/etc/passwd"}, "source", "relative to the project directory"),
        ({"source": "../outside.py"}, "source", "inside the project directory"),
        ({"source": None, "content_base64": "not base64!"}, "content_base64", "base64"),
        ({"source": None, "content_base64": b64(b"x" * (64 * 1024 + 1))}, "content_base64",
         "at most 65536"),
        ({"source": None, "content_base64": b64(b"SELECT 1")}, "language", "required"),
        ({"language": "COBOL"}, "language", "PYTHON"),
        ({"format": "HTML"}, "format", "SOURCE"),
        ({"format": "JUPYTER"}, "source", "Jupyter notebook"),
        ({"format": "JUPYTER", "language": "SQL"}, "language", "PYTHON notebook"),
        ({"format": "R_MARKDOWN", "language": "PYTHON"}, "language", "R notebook"),
        ({"content_sha256": "0" * 64}, "content_sha256", "not the declared"),
        ({"content_sha256": "abc"}, "content_sha256", "64 hex digits"),
        ({"colour": "blue"}, "colour", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_check_records_the_digest_never_the_content(provider, props, project) -> None:
    inputs = checked(provider, props)
    uploaded = HEADER + (project / SOURCE).read_bytes()
    assert inputs["content_sha256"] == digest(uploaded)  # the header is part of the upload
    assert inputs["source"] == SOURCE
    inline = {**props, "source": None, "content_base64": b64(b"SELECT 1"), "language": "SQL"}
    del inline["source"]
    inputs = checked(provider, inline)
    assert "content_base64" not in inputs
    assert inputs["content_sha256"] == digest(b"-- Databricks notebook source\nSELECT 1")
    assert provider.check({}, {"path": "/Shared/x", "source": SOURCE}).failures[0].property == (
        "connection")


def test_a_file_with_the_header_is_uploaded_as_it_is(provider, props, project) -> None:
    (project / SOURCE).write_bytes(HEADER + b"print(2)\n")
    assert checked(provider, props)["content_sha256"] == digest(HEADER + b"print(2)\n")


# --- lifecycle -----------------------------------------------------------------------------


def test_create_read_update_and_delete(provider, props, client, folder, project) -> None:
    inputs = checked(provider, props)
    made = provider.create(inputs)
    path = f"{folder}/etl"
    assert made.id == path
    outs = made.outs
    status = WorkspaceObjectsApi(client).status(path)
    assert (outs["path"], outs["language"], outs["format"]) == (path, "PYTHON", "SOURCE")
    assert outs["object_id"] == status["object_id"] and outs["modified_at"] == status[
        "modified_at"]
    assert outs["workspace_path"] == f"/Workspace{path}"
    assert exported(client, path) == HEADER + b"print('etl')\n"
    assert not provider.diff(made.id, outs, inputs).changes

    (project / SOURCE).write_text("print('etl v2')\n")
    changed = checked(provider, props)
    diff = provider.diff(made.id, outs, changed)
    assert (diff.changed_keys, diff.replaces) == (["content_sha256"], [])
    updated = provider.update(made.id, outs, changed).outs
    assert updated["object_id"] == outs["object_id"]
    assert exported(client, path) == HEADER + b"print('etl v2')\n"

    to_sql = {**props, "language": "SQL"}
    (project / SOURCE).write_text("SELECT 2\n")
    as_sql = checked(provider, to_sql)
    assert sorted(provider.diff(made.id, updated, as_sql).changed_keys) == [
        "content_sha256", "language"]
    updated = provider.update(made.id, updated, as_sql).outs
    assert WorkspaceObjectsApi(client).status(path)["language"] == "SQL"
    assert updated["object_id"] == outs["object_id"]

    moved = checked(provider, {**to_sql, "path": f"{folder}/etl_v2"})
    assert provider.diff(made.id, updated, moved).replaces == ["path"]

    provider.delete(made.id, updated)
    assert folder in [o["path"] for o in WorkspaceObjectsApi(client).list("/Shared")]  # kept
    assert [o["path"] for o in WorkspaceObjectsApi(client).list(folder)] == []
    provider.delete(made.id, updated)  # gone already: deleted


def test_inline_content_comes_from_the_check_of_the_same_process(
    provider, connection, folder, client
) -> None:
    props = {"path": f"{folder}/q", "content_base64": b64(b"SELECT 1"), "language": "SQL",
             CONNECTION_KEY: connection}
    inputs = checked(provider, props)
    made = provider.create(inputs)
    assert exported(client, made.id) == b"-- Databricks notebook source\nSELECT 1"
    # Another process never checked it: the state's digest alone cannot be uploaded.
    process.start()
    with pytest.raises(ContentUnavailable, match="run the update again"):
        provider.update(made.id, made.outs, {**inputs, "language": "SQL"})
    provider.delete(made.id, made.outs)


def test_jupyter_and_the_format_from_the_extension(
    provider, connection, folder, client, project
) -> None:
    document = b'{"cells": [{"cell_type": "code", "source": ["print(3)"]}], "metadata": {}}'
    (project / "notebooks" / "explore.ipynb").write_bytes(document)
    props = {"path": f"{folder}/explore", "source": "notebooks/explore.ipynb",
             CONNECTION_KEY: connection}
    made = provider.create(checked(provider, props))
    assert (made.outs["format"], made.outs["language"]) == ("JUPYTER", "PYTHON")
    assert WorkspaceObjectsApi(client).export(made.id, "JUPYTER") == document
    assert not provider.diff(made.id, made.outs, checked(provider, {**props, "format": "AUTO"})
                             ).changes
    refreshed = provider.read(made.id, made.outs)
    assert refreshed.outs == made.outs
    provider.delete(made.id, made.outs)


def test_refresh_reads_the_status_and_exports_only_after_a_change(
    provider, props, client, emulator: EmulatorInfo
) -> None:
    made = provider.create(checked(provider, props))
    clear_request_log(emulator)
    assert provider.read(made.id, made.outs).outs == made.outs
    calls = [e["path"] for e in request_log(emulator) if e["service"] == "platform"]
    assert calls == [f"{WORKSPACE_PATH}/get-status"], "one call while nothing moved"

    WorkspaceObjectsApi(client).import_(made.id, b"print('edited')", format="SOURCE",
                                     language="PYTHON", overwrite=True)
    drifted = provider.read(made.id, made.outs).outs
    assert drifted["content_sha256"] == digest(HEADER + b"print('edited')")
    assert provider.diff(made.id, drifted, checked(provider, props)).changed_keys == [
        "content_sha256"]
    restored = provider.update(made.id, drifted, checked(provider, props)).outs
    assert exported(client, made.id) == HEADER + b"print('etl')\n"
    WorkspaceObjectsApi(client).delete(made.id)
    WorkspaceObjectsApi(client).mkdirs(made.id)  # a folder took the path: gone as a notebook
    assert provider.read(made.id, restored).id is None
    WorkspaceObjectsApi(client).delete(made.id)


def test_import_reads_everything_and_shows_no_diff(provider, props, client, folder) -> None:
    made = provider.create(checked(provider, props))
    imported = provider.read(f"/Workspace{folder}/etl", {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert {k: imported.outs[k] for k in ("path", "language", "format", "content_sha256")} == {
        k: made.outs[k] for k in ("path", "language", "format", "content_sha256")}
    assert not provider.diff(imported.id, imported.outs, checked(provider, props),
                             old_inputs={}).changes
    provider.delete(made.id, made.outs)


# --- adoption ------------------------------------------------------------------------------


def test_a_create_whose_answer_is_lost_adopts_the_notebook(
    provider, props, client, folder, monkeypatch
) -> None:
    WorkspaceObjectsApi(client).mkdirs(folder)
    lost = lose_the_answer_to(monkeypatch, f"{WORKSPACE_PATH}/import")
    made = provider.create(checked(provider, props))
    assert lost == [f"{WORKSPACE_PATH}/import"]
    assert [o["path"] for o in WorkspaceObjectsApi(client).list(folder)] == [made.id]
    provider.delete(made.id, made.outs)


def test_what_an_interrupted_create_left_is_adopted(provider, props, client, folder) -> None:
    first = provider.create(checked(provider, props))  # then the state was lost
    again = provider.create(checked(provider, props))
    assert again.outs["object_id"] == first.outs["object_id"]
    provider.delete(again.id, again.outs)


def test_another_notebook_at_the_path_is_refused_naming_import(
    provider, props, client, folder
) -> None:
    WorkspaceObjectsApi(client).mkdirs(folder)
    WorkspaceObjectsApi(client).import_(f"{folder}/etl", b"print('theirs')", format="SOURCE",
                                     language="PYTHON")
    with pytest.raises(AlreadyExists, match=rf"import: {folder}/etl"):
        provider.create(checked(provider, props))
    assert exported(client, f"{folder}/etl") == HEADER + b"print('theirs')"
    WorkspaceObjectsApi(client).delete(folder, recursive=True)


def test_failures_of_check_are_per_field(provider, props) -> None:
    assert failures(provider, props) == {}


def test_a_program_reads_language_and_format_it_did_not_declare() -> None:
    """`language`, `format` and `content_sha256` are attributes of every Notebook, the
    values the provider took (here the mocks' answer), and are sent only where declared."""
    from providers import Notebook, NotebookArgs
    from tests.providers.resource_mocks import register

    computed = {"language": "PYTHON", "format": "SOURCE", "content_sha256": "0" * 64,
                "object_id": 7, "workspace_path": "/Workspace/Shared/etl"}
    sent, read = register(
        lambda: Notebook("etl", NotebookArgs(path="/Shared/etl", source=SOURCE),
                         connection={"base_url": "https://example.com"}),
        ("path", "language", "format", "content_sha256", "object_id", "workspace_path"),
        computed,
    )
    assert {k: v for k, v in sent.items() if k != CONNECTION_KEY} == {
        "path": "/Shared/etl", "source": SOURCE}
    assert read == {"path": "/Shared/etl", **computed}
