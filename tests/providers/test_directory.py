"""Directory against the emulator, in both wire forms: check, a create making the folder
and its parents, adopting an empty folder (or one holding only folders) and refusing one
that holds notebooks, naming import; delete alone, refused for a folder that holds anything
with the error naming delete_recursive, and with everything when delete_recursive is
recorded; delete_recursive changed in place without a call; refresh and import."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from providers.client import WorkspaceClient, WorkspaceError
from providers.core.lifecycle import CONNECTION_KEY
from providers.workspace.directory import DirectoryProvider, DirectoryTaken
from providers.workspace.workspace_objects_api import WorkspaceObjectsApi
from tests.providers.support import assert_check_names
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log


@pytest.fixture
def provider() -> DirectoryProvider:
    return DirectoryProvider()


@pytest.fixture
def path() -> str:
    return f"/Shared/dir-{uuid.uuid4().hex[:8]}/team"


@pytest.fixture
def props(connection: dict[str, Any], path: str) -> dict[str, Any]:
    return {"path": path, CONNECTION_KEY: connection}


def paths_in(client: WorkspaceClient, folder: str) -> list[str]:
    return [o["path"] for o in WorkspaceObjectsApi(client).list(folder)]


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"path": "relative/x"}, "path", "absolute"),
        ({"path": "/"}, "path", "every workspace has"),
        ({"path": "/Repos"}, "path", "every workspace has"),
        ({"path": "/Repos/team/sub"}, "path", "under /Repos"),
        ({"delete_recursive": "yes"}, "delete_recursive", "boolean"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_a_folder_of_git_folders_is_a_directory(provider, props) -> None:
    assert provider.check({}, {**props, "path": "/Repos/team"}).failures == []


def test_create_makes_the_parents_and_delete_only_the_folder(provider, props, path, client
                                                             ) -> None:
    made = provider.create(props)
    parent = path.rsplit("/", 1)[0]
    assert made.id == path and paths_in(client, parent) == [path]
    outs = made.outs
    assert outs["object_id"] == WorkspaceObjectsApi(client).status(path)["object_id"]
    assert (outs["delete_recursive"], outs["workspace_path"]) == (False, f"/Workspace{path}")
    assert provider.read(made.id, outs).outs == outs
    provider.delete(made.id, outs)
    assert paths_in(client, parent) == []  # the parent the create made stays
    WorkspaceObjectsApi(client).delete(parent)


def test_a_folder_that_holds_anything_is_deleted_only_with_delete_recursive(
    provider, props, path, client, emulator: EmulatorInfo
) -> None:
    made = provider.create(props)
    WorkspaceObjectsApi(client).mkdirs(f"{path}/made/outside")
    WorkspaceObjectsApi(client).import_(f"{path}/made/nb", b"1", format="SOURCE",
                                     language="PYTHON")
    with pytest.raises(WorkspaceError, match="set delete_recursive: true") as refused:
        provider.delete(made.id, made.outs)
    assert refused.value.code == "DIRECTORY_NOT_EMPTY"
    assert f"{path}/made/nb" in str(refused.value)
    recursive = {**props, "delete_recursive": True}
    assert provider.diff(made.id, made.outs, recursive).changed_keys == ["delete_recursive"]
    clear_request_log(emulator)
    updated = provider.update(made.id, made.outs, recursive).outs
    assert [e for e in request_log(emulator) if e["service"] == "platform"] == []
    provider.delete(made.id, updated)
    with pytest.raises(WorkspaceError):
        WorkspaceObjectsApi(client).status(path)


def test_an_empty_folder_or_one_of_folders_is_adopted(provider, props, path, client) -> None:
    WorkspaceObjectsApi(client).mkdirs(f"{path}/sub/deeper")
    status = WorkspaceObjectsApi(client).status(path)
    made = provider.create(props)
    assert made.outs["object_id"] == status["object_id"]
    provider.delete(made.id, {**made.outs, "delete_recursive": True})


def test_a_folder_holding_notebooks_or_another_object_is_refused(provider, props, path, client
                                                                 ) -> None:
    WorkspaceObjectsApi(client).mkdirs(f"{path}/deep")
    WorkspaceObjectsApi(client).import_(f"{path}/deep/nb", b"1", format="SOURCE",
                                     language="PYTHON")
    with pytest.raises(DirectoryTaken, match=rf"holds {path}/deep/nb.*import: {path}"):
        provider.create(props)
    WorkspaceObjectsApi(client).delete(path, recursive=True)
    WorkspaceObjectsApi(client).import_(path, b"1", format="RAW")
    with pytest.raises(DirectoryTaken, match="a file is there"):
        provider.create(props)
    WorkspaceObjectsApi(client).delete(path)


def test_import_reads_delete_recursive_false(provider, props, path, client) -> None:
    WorkspaceObjectsApi(client).mkdirs(path)
    imported = provider.read(f"/Workspace{path}", {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert (imported.outs["path"], imported.outs["delete_recursive"]) == (path, False)
    assert not provider.diff(imported.id, imported.outs, props, old_inputs={}).changes
    provider.delete(imported.id, imported.outs)
