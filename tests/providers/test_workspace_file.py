"""WorkspaceFile against the emulator, in both wire forms: check, bytes from a file of the
project or inline, uploaded as they are (RAW: a `.py` starting with the notebook header stays
a file), an update in place for new bytes (the object kept), drift read by refresh, import,
adoption of what an interrupted run left, and another's file refused naming import."""

from __future__ import annotations

import base64
import uuid
from pathlib import Path
from typing import Any

import pytest

from providers.client import AlreadyExists
from providers.core.lifecycle import CONNECTION_KEY
from providers.workspace.workspace_file import WorkspaceFileProvider
from providers.workspace.workspace_objects import digest
from providers.workspace.workspace_objects_api import WorkspaceObjectsApi
from tests.providers.support import assert_check_names

HEADED = b"# Databricks notebook source\nX = 1\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: files\nruntime: python\n")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "helpers.py").write_bytes(HEADED)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def provider() -> WorkspaceFileProvider:
    return WorkspaceFileProvider()


@pytest.fixture
def folder() -> str:
    return f"/Shared/files-{uuid.uuid4().hex[:8]}"


@pytest.fixture
def props(connection: dict[str, Any], folder: str, project: Path) -> dict[str, Any]:
    return {"path": f"{folder}/lib/helpers.py", "source": "lib/helpers.py",
            CONNECTION_KEY: connection}


def checked(provider: WorkspaceFileProvider, props: dict[str, Any]) -> dict[str, Any]:
    result = provider.check({}, props)
    assert result.failures == [], result.failures
    return dict(result.inputs)


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"path": "/Repos/team/x.py"}, "path", "under /Repos"),
        ({"path": "/Shared"}, "path", "every workspace has"),
        ({"source": None}, "source", "required"),
        ({"source": "lib/none.txt"}, "source", "no file"),
        ({"language": "PYTHON"}, "language", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_bytes_are_uploaded_as_they_are(provider, props, client, folder, project) -> None:
    inputs = checked(provider, props)
    assert inputs["content_sha256"] == digest(HEADED)
    made = provider.create(inputs)
    status = WorkspaceObjectsApi(client).status(made.id)
    assert status["object_type"] == "FILE" and made.outs["size"] == len(HEADED)
    assert WorkspaceObjectsApi(client).export(made.id, "AUTO") == HEADED
    assert not provider.diff(made.id, made.outs, inputs).changes
    (project / "lib" / "helpers.py").write_bytes(b"X = 2\n")
    changed = checked(provider, props)
    assert provider.diff(made.id, made.outs, changed).changed_keys == ["content_sha256"]
    updated = provider.update(made.id, made.outs, changed).outs
    assert updated["object_id"] == made.outs["object_id"] and updated["size"] == 6
    WorkspaceObjectsApi(client).import_(made.id, b"edited", format="RAW", overwrite=True)
    drifted = provider.read(made.id, updated).outs
    assert drifted["content_sha256"] == digest(b"edited")
    imported = provider.read(made.id, {CONNECTION_KEY: props[CONNECTION_KEY]}).outs
    assert imported["content_sha256"] == digest(b"edited")
    provider.delete(made.id, updated)
    WorkspaceObjectsApi(client).delete(folder, recursive=True)


def test_inline_bytes_and_adoption(provider, connection, folder, client) -> None:
    props = {"path": f"{folder}/conf.json", "content_base64": base64.b64encode(b"{}").decode(),
             CONNECTION_KEY: connection}
    first = provider.create(checked(provider, props))  # then the state was lost
    again = provider.create(checked(provider, props))
    assert again.outs["object_id"] == first.outs["object_id"]
    theirs = {**props, "content_base64": base64.b64encode(b"[]").decode()}
    with pytest.raises(AlreadyExists, match=rf"import: {folder}/conf.json"):
        provider.create(checked(provider, theirs))
    provider.delete(again.id, again.outs)
    WorkspaceObjectsApi(client).delete(folder, recursive=True)
