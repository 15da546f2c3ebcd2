"""The workspace objects area (notebooks, files and folders), through the official SDK
(`workspace.upload`, `download`, `import_`, `export`, `get_status`, `mkdirs`, `delete`,
`list`) and over HTTP for the service's refusals: formats, paths, the parent folder, overwrite,
recursive delete, the 10 MB limit, repos in the tree, the permissions of notebooks, folders and
files, and a job's run of a missing notebook."""

from __future__ import annotations

import base64
import io
import json
import uuid
import zipfile
from collections.abc import Iterator

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import (
    NotFound,
    ResourceAlreadyExists,
)
from databricks.sdk.service.workspace import ExportFormat, ImportFormat, Language, ObjectType

from tests.emulator.jobs_support import create, job_body, notebook, results, run_job
from tests.emulator.support import Api, expect_error
from workspace_emulator.testing import fetch_token

NOTEBOOK_SOURCE = b"# Databricks notebook source\nprint('hello')\n"
REPO_PATH = "/Repos/iac/data-pipelines"  # of the initial data
REPO_ID = 3000000000000001


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture
def folder(sdk: WorkspaceClient) -> Iterator[str]:
    """A fresh folder under /Shared, deleted with its contents after the test."""
    path = f"/Shared/t-{uuid.uuid4().hex[:8]}"
    sdk.workspace.mkdirs(path)
    yield path
    try:
        sdk.workspace.delete(path, recursive=True)
    except NotFound:
        pass


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def import_body(path: str, content: bytes, **fields) -> dict:
    return {"path": path, "content": b64(content), **fields}


# --- the SDK ---------------------------------------------------------------------------


def test_upload_download_and_status_of_a_notebook(sdk, folder):
    sdk.workspace.upload(f"{folder}/etl", io.BytesIO(b"print(1)\n"), format=ImportFormat.SOURCE,
                         language=Language.PYTHON)
    status = sdk.workspace.get_status(f"{folder}/etl")
    assert status.object_type == ObjectType.NOTEBOOK and status.language == Language.PYTHON
    assert status.object_id and status.resource_id == str(status.object_id)
    assert status.created_at == status.modified_at > 0 and status.size is None
    # The service's SOURCE export starts with the notebook header.
    assert sdk.workspace.download(f"{folder}/etl").read() == (
        b"# Databricks notebook source\nprint(1)\n")
    # With the /Workspace prefix: the same object, answered without it.
    prefixed = sdk.workspace.get_status(f"/Workspace{folder}//etl/")
    assert (prefixed.path, prefixed.object_id) == (f"{folder}/etl", status.object_id)


def test_auto_makes_notebooks_of_headed_sources_and_files_of_the_rest(sdk, folder):
    sdk.workspace.upload(f"{folder}/job.py", NOTEBOOK_SOURCE, format=ImportFormat.AUTO)
    sdk.workspace.upload(f"{folder}/helpers.py", b"X = 1\n", format=ImportFormat.AUTO)
    sdk.workspace.upload(f"{folder}/query.sql", b"-- Databricks notebook source\nSELECT 1\n",
                         format=ImportFormat.AUTO)
    notebook_json = {"cells": [{"cell_type": "code", "source": ["print(2)"]}], "metadata": {}}
    sdk.workspace.upload(f"{folder}/explore.ipynb", json.dumps(notebook_json).encode(),
                         format=ImportFormat.AUTO)
    listed = {o.path: (o.object_type, o.language, o.size) for o in sdk.workspace.list(folder)}
    assert listed == {
        f"{folder}/job": (ObjectType.NOTEBOOK, Language.PYTHON, None),
        f"{folder}/helpers.py": (ObjectType.FILE, None, 6),
        f"{folder}/query": (ObjectType.NOTEBOOK, Language.SQL, None),
        f"{folder}/explore": (ObjectType.NOTEBOOK, Language.PYTHON, None),
    }
    assert sdk.workspace.download(f"{folder}/helpers.py").read() == b"X = 1\n"
    # A Jupyter notebook exports as source cell by cell, and as it was imported.
    source = sdk.workspace.download(f"{folder}/explore").read().decode()
    assert source == "# Databricks notebook source\nprint(2)\n"
    exported = sdk.workspace.download(f"{folder}/explore", format=ExportFormat.JUPYTER).read()
    assert json.loads(exported) == notebook_json


def test_import_and_export_in_json(sdk, folder):
    sdk.workspace.import_(f"{folder}/scala", content=b64(b"println(1)"),
                          format=ImportFormat.SOURCE, language=Language.SCALA)
    answer = sdk.workspace.export(f"{folder}/scala", format=ExportFormat.SOURCE)
    assert answer.file_type == "scala"
    assert base64.b64decode(answer.content) == b"// Databricks notebook source\nprintln(1)"
    jupyter = sdk.workspace.export(f"{folder}/scala", format=ExportFormat.JUPYTER)
    assert jupyter.file_type == "ipynb"
    assert json.loads(base64.b64decode(jupyter.content))["cells"][0]["source"] == ["println(1)"]
    sdk.workspace.import_(f"{folder}/data.bin", content=b64(b"\x00\x01"), format=ImportFormat.RAW)
    assert base64.b64decode(sdk.workspace.export(f"{folder}/data.bin").content) == b"\x00\x01"


def test_overwrite_keeps_the_object_and_its_id(sdk, folder):
    path = f"{folder}/nb"
    sdk.workspace.upload(path, b"print(1)", language=Language.PYTHON)
    first = sdk.workspace.get_status(path)
    with pytest.raises(ResourceAlreadyExists, match="Node named 'nb' already exists"):
        sdk.workspace.upload(path, b"print(2)", language=Language.PYTHON)
    sdk.workspace.upload(path, b"SELECT 2", language=Language.SQL, overwrite=True)
    second = sdk.workspace.get_status(path)
    assert second.object_id == first.object_id and second.language == Language.SQL
    assert second.created_at == first.created_at and second.modified_at >= first.modified_at
    assert b"SELECT 2" in sdk.workspace.download(path).read()


def test_mkdirs_makes_every_folder_and_a_file_in_the_way_is_refused(sdk, folder):
    sdk.workspace.mkdirs(f"{folder}/a/b/c")
    sdk.workspace.mkdirs(f"{folder}/a/b/c")  # there already: nothing
    assert sdk.workspace.get_status(f"{folder}/a/b").object_type == ObjectType.DIRECTORY
    sdk.workspace.upload(f"{folder}/a/f.txt", b"x", format=ImportFormat.RAW)
    with pytest.raises(ResourceAlreadyExists, match="not a folder"):
        sdk.workspace.mkdirs(f"{folder}/a/f.txt/d")


def test_a_missing_parent_folder_is_not_made_by_import(sdk, folder):
    with pytest.raises(NotFound, match=rf"The parent folder \({folder}/missing\) does not exist"):
        sdk.workspace.upload(f"{folder}/missing/nb", b"1", language=Language.PYTHON)


def test_delete_of_a_folder_needs_recursive_when_it_holds_anything(sdk, api, folder):
    sdk.workspace.mkdirs(f"{folder}/full/empty")
    sdk.workspace.upload(f"{folder}/full/nb", b"1", language=Language.PYTHON)
    response = api.post("/api/2.0/workspace/delete", json={"path": f"{folder}/full"})
    body = expect_error(response, 400, "DIRECTORY_NOT_EMPTY")
    assert body["message"] == f"Folder ({folder}/full) is not empty."
    sdk.workspace.delete(f"{folder}/full/nb")
    sdk.workspace.delete(f"{folder}/full/empty")
    sdk.workspace.delete(f"{folder}/full")  # empty now
    sdk.workspace.mkdirs(f"{folder}/again/deep")
    sdk.workspace.delete(f"{folder}/again", recursive=True)
    with pytest.raises(NotFound, match=r"doesn't exist"):
        sdk.workspace.get_status(f"{folder}/again/deep")
    with pytest.raises(NotFound):
        sdk.workspace.delete(f"{folder}/again")


def test_a_folder_exports_as_a_zip_of_its_notebooks(sdk, folder):
    sdk.workspace.upload(f"{folder}/nb", b"print(1)\n", language=Language.PYTHON)
    sdk.workspace.mkdirs(f"{folder}/sub")
    sdk.workspace.upload(f"{folder}/sub/q", b"SELECT 1\n", language=Language.SQL)
    sdk.workspace.upload(f"{folder}/sub/data.csv", b"a,b\n", format=ImportFormat.RAW)
    source = zipfile.ZipFile(io.BytesIO(sdk.workspace.download(folder).read()))
    assert sorted(source.namelist()) == ["nb.py", "sub/q.sql"]
    auto = zipfile.ZipFile(io.BytesIO(sdk.workspace.download(
        folder, format=ExportFormat.AUTO).read()))
    assert sorted(auto.namelist()) == ["nb.py", "sub/data.csv", "sub/q.sql"]


def test_the_tree_holds_the_top_level_folders_and_the_repos(sdk):
    top = {o.path: o.object_type for o in sdk.workspace.list("/")}
    assert top["/Shared"] == top["/Users"] == top["/Repos"] == ObjectType.DIRECTORY
    repos = {o.path: o for o in sdk.workspace.list("/Repos/iac")}
    assert repos[REPO_PATH].object_type == ObjectType.REPO
    assert repos[REPO_PATH].object_id == REPO_ID
    assert list(sdk.workspace.list(REPO_PATH)) == []  # no contents of Git folders here
    examples = sdk.workspace.get_status("/Shared/examples/quickstart")  # of the initial data
    assert (examples.object_type, examples.object_id) == (ObjectType.NOTEBOOK, 1710000000000001)


def test_notebooks_modified_after_filters_notebooks(sdk, folder):
    sdk.workspace.upload(f"{folder}/old", b"1", language=Language.PYTHON)
    since = sdk.workspace.get_status(f"{folder}/old").modified_at
    listed = sdk.workspace.list(folder, notebooks_modified_after=since)
    assert [o.path for o in listed] == []


# --- the service's refusals, over HTTP -------------------------------------------------


@pytest.mark.parametrize(("fields", "message"), [
    ({"format": "SOURCE"}, "The zip file may not be valid"),
    ({"format": "source", "language": "PYTHON"}, "Invalid format 'source'"),
    ({"format": "SOURCE", "language": "COBOL"}, "Invalid language 'COBOL'"),
    ({"format": "JUPYTER"}, "not a valid Jupyter notebook"),
    ({"format": "HTML"}, "does not import the HTML format"),
    ({"format": "RAW", "content": "not base64!"}, "base64"),
])
def test_bad_imports_are_refused(api, folder, fields, message):
    body = {**import_body(f"{folder}/x", b"print(1)"), **fields}
    error = expect_error(api.post("/api/2.0/workspace/import", json=body), 400,
                         "INVALID_PARAMETER_VALUE")
    assert message in error["message"]


@pytest.mark.parametrize("path", ["Shared/x", "/Shared/../x", "/Shared/./x"])
def test_paths_must_be_absolute_and_not_climb(api, path):
    expect_error(api.get("/api/2.0/workspace/get-status", params={"path": path}), 400,
                 "INVALID_PARAMETER_VALUE")


def test_content_over_10_mb_is_refused(api, folder):
    body = import_body(f"{folder}/big.bin", b"x" * (10 * 1024 * 1024 + 1), format="RAW")
    expect_error(api.post("/api/2.0/workspace/import", json=body), 400,
                 "MAX_NOTEBOOK_SIZE_EXCEEDED")


def test_a_folder_is_never_overwritten_and_top_level_folders_stay(api, folder):
    body = import_body(folder, b"1", format="RAW", overwrite=True)
    expect_error(api.post("/api/2.0/workspace/import", json=body), 400,
                 "RESOURCE_ALREADY_EXISTS")
    expect_error(api.post("/api/2.0/workspace/delete", json={"path": "/Shared",
                                                           "recursive": True}), 400)


def test_nothing_is_written_inside_a_repo_nor_loose_under_repos(api):
    inside = import_body(f"{REPO_PATH}/nb", b"1", language="PYTHON")
    assert "Git folder" in expect_error(api.post("/api/2.0/workspace/import", json=inside),
                                        400)["message"]
    loose = import_body("/Repos/iac/nb", b"1", language="PYTHON")
    expect_error(api.post("/api/2.0/workspace/import", json=loose), 400)
    assert api.post("/api/2.0/workspace/mkdirs", json={"path": "/Repos/team-x"}).ok
    api.post("/api/2.0/workspace/delete", json={"path": "/Repos/team-x"})


def test_export_answers_json_or_the_bytes(api, sdk, folder):
    sdk.workspace.upload(f"{folder}/f.json", b'{"a": 1}', format=ImportFormat.RAW)
    answer = api.get("/api/2.0/workspace/export", params={"path": f"{folder}/f.json"}).json()
    assert answer == {"content": b64(b'{"a": 1}'), "file_type": "json"}
    raw = api.get("/api/2.0/workspace/export",
                  params={"path": f"{folder}/f.json", "direct_download": "true"})
    assert raw.content == b'{"a": 1}'
    expect_error(api.get("/api/2.0/workspace/export", params={"path": f"{folder}/none"}), 404,
                 "RESOURCE_DOES_NOT_EXIST")


# --- permissions of workspace objects ----------------------------------------------------


def test_notebooks_folders_and_files_have_permissions(api: Api, sdk, folder):
    sdk.workspace.upload(f"{folder}/nb", b"1", language=Language.PYTHON)
    sdk.workspace.upload(f"{folder}/f.txt", b"1", format=ImportFormat.RAW)
    ids = {o.object_type: o.object_id for o in sdk.workspace.list(folder)}
    ids[ObjectType.DIRECTORY] = sdk.workspace.get_status(folder).object_id
    grant = {"access_control_list": [{"group_name": "analysts", "permission_level": "CAN_RUN"}]}
    for object_type, type_name in ((ObjectType.NOTEBOOK, "notebooks"),
                                   (ObjectType.FILE, "files"),
                                   (ObjectType.DIRECTORY, "directories")):
        path = f"/api/2.0/permissions/{type_name}/{ids[object_type]}"
        assert api.patch(path, json=grant).ok, path
        entries = api.get(path).json()["access_control_list"]
        assert {"group_name": "analysts", "all_permissions": [
            {"permission_level": "CAN_RUN", "inherited": False}]} in entries
    # A notebook's id is no file's.
    expect_error(api.get(f"/api/2.0/permissions/files/{ids[ObjectType.NOTEBOOK]}"), 404)
    sdk.workspace.delete(f"{folder}/nb")
    expect_error(api.get(f"/api/2.0/permissions/notebooks/{ids[ObjectType.NOTEBOOK]}"), 404)


# --- a job's run of a notebook -------------------------------------------------------------


def test_a_run_of_a_missing_notebook_fails_naming_it(api, folder):
    missing = notebook("ghost", notebook_task={"notebook_path": f"/Workspace{folder}/ghost"})
    response = api.post("/api/2.2/jobs/create", json=job_body(missing))  # none uploaded
    assert response.status_code == 200, response.text
    job_id = response.json()["job_id"]
    run = run_job(api, job_id)
    assert run["state"]["result_state"] == "FAILED"
    task = run["tasks"][0]
    assert task["state"]["state_message"].startswith(
        f'Unable to access the notebook "/Workspace{folder}/ghost". Either it does not exist')
    api.post("/api/2.0/workspace/mkdirs", json={"path": f"{folder}/ghost"})  # a folder there
    again = run_job(api, job_id)
    assert again["tasks"][0]["state"]["state_message"].endswith(
        "it is a directory, not a notebook.")


def test_runs_find_uploaded_notebooks_and_skip_git_and_repo_paths(api, folder):
    # `create` uploads the notebooks of the tasks (jobs_support.import_notebooks).
    uploaded = run_job(api, create(api, job_body(notebook("a"), notebook("b", "a"))))
    assert results(uploaded) == {"a": "SUCCESS", "b": "SUCCESS"}
    in_repo = notebook("r", notebook_task={"notebook_path": f"{REPO_PATH}/notebooks/etl",
                                           "source": "WORKSPACE"})
    from_git = notebook("g", notebook_task={"notebook_path": "notebooks/etl", "source": "GIT"})
    body = job_body(in_repo, from_git, git_source={
        "git_url": "https://github.com/example-org/data-pipelines.git",
        "git_provider": "gitHub", "git_branch": "main"})
    response = api.post("/api/2.2/jobs/create", json=body)  # no upload: nothing to find
    assert response.status_code == 200, response.text
    run = run_job(api, response.json()["job_id"])
    assert results(run) == {"r": "SUCCESS", "g": "SUCCESS"}
