"""The Files API on Unity Catalog volumes through the official SDK, unchanged: upload,
download, metadata, overwrite, directories listed page by page, deletes, and the service's
refusals (a missing volume, a file that exists, a directory that is not empty)."""

from __future__ import annotations

import io
import uuid

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import AlreadyExists, BadRequest, NotFound
from databricks.sdk.service import catalog

from workspace_emulator.testing import fetch_token


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture(scope="module")
def volume(sdk) -> str:
    """A fresh volume's path, /Volumes/<catalog>/<schema>/<volume>."""
    name = f"files{uuid.uuid4().hex[:8]}"
    sdk.catalogs.create(name)
    sdk.schemas.create("s", name)
    sdk.volumes.create(name, "s", "v", catalog.VolumeType.MANAGED)
    return f"/Volumes/{name}/s/v"


def test_upload_download_and_metadata(sdk, volume):
    content = bytes(range(256)) * 9000  # 2.3 MB: several stored parts
    path = f"{volume}/wheels/pkg/app-1.0-py3-none-any.whl"
    sdk.files.upload(path, io.BytesIO(content))

    downloaded = sdk.files.download(path)
    assert downloaded.contents is not None
    assert downloaded.contents.read() == content
    assert downloaded.content_length == len(content)
    assert downloaded.content_type == "application/octet-stream"

    metadata = sdk.files.get_metadata(path)
    assert metadata.content_length == len(content)
    assert metadata.content_type == "application/octet-stream"
    assert metadata.last_modified == downloaded.last_modified
    assert metadata.last_modified is not None and metadata.last_modified.endswith(" GMT")
    # parents were made on the way
    sdk.files.get_directory_metadata(f"{volume}/wheels/pkg")


def test_overwrite_refused_unless_asked_and_then_replaces(sdk, volume):
    path = f"{volume}/conf/settings.json"
    sdk.files.upload(path, io.BytesIO(b"first"))
    with pytest.raises(AlreadyExists) as refused:
        sdk.files.upload(path, io.BytesIO(b"second"), overwrite=False)
    assert "already exists" in str(refused.value)
    assert sdk.files.download(path).contents.read() == b"first"

    sdk.files.upload(path, io.BytesIO(b"second"), overwrite=True)
    assert sdk.files.download(path).contents.read() == b"second"
    assert sdk.files.get_metadata(path).content_length == len(b"second")


def test_directories_listed_page_by_page(sdk, volume):
    folder = f"{volume}/listing"
    sdk.files.create_directory(f"{folder}/sub")
    sdk.files.create_directory(f"{folder}/sub")  # idempotent
    for n in range(5):
        sdk.files.upload(f"{folder}/f{n}.txt", io.BytesIO(b"x" * n))

    page = sdk.api_client.do("GET", f"/api/2.0/fs/directories{folder}",
                             query={"page_size": 2})
    assert [e["name"] for e in page["contents"]] == ["f0.txt", "f1.txt"]
    assert page["next_page_token"]

    entries = list(sdk.files.list_directory_contents(folder, page_size=2))
    assert [e.name for e in entries] == [*(f"f{n}.txt" for n in range(5)), "sub"]
    assert [e.path for e in entries] == [f"{folder}/{e.name}" for e in entries]
    assert [e.is_directory for e in entries] == [False] * 5 + [True]
    assert [e.file_size for e in entries[:5]] == [0, 1, 2, 3, 4]
    assert all(isinstance(e.last_modified, int) and e.last_modified > 0
               for e in entries[:5])


def test_deletes_and_a_non_empty_directory_refused(sdk, volume):
    folder = f"{volume}/gone"
    sdk.files.upload(f"{folder}/a.txt", io.BytesIO(b"a"))
    with pytest.raises(BadRequest) as refused:
        sdk.files.delete_directory(folder)
    assert refused.value.error_code == "DIRECTORY_NOT_EMPTY"

    sdk.files.delete(f"{folder}/a.txt")
    with pytest.raises(NotFound):
        sdk.files.get_metadata(f"{folder}/a.txt")
    with pytest.raises(NotFound):
        sdk.files.delete(f"{folder}/a.txt")
    sdk.files.delete_directory(folder)
    with pytest.raises(NotFound):
        sdk.files.get_directory_metadata(folder)
    with pytest.raises(NotFound):
        list(sdk.files.list_directory_contents(folder))


def test_a_missing_volume_is_404(sdk, volume):
    catalog_name = volume.split("/")[2]
    missing = f"/Volumes/{catalog_name}/s/nosuchvolume/a.txt"
    with pytest.raises(NotFound) as refused:
        sdk.files.upload(missing, io.BytesIO(b"a"))
    assert "nosuchvolume" in str(refused.value)
    with pytest.raises(NotFound):
        sdk.files.download(missing)
    with pytest.raises(NotFound):
        sdk.files.create_directory(f"/Volumes/{catalog_name}/s/nosuchvolume/d")


def test_a_path_outside_volumes_is_refused(sdk):
    with pytest.raises(BadRequest) as refused:
        sdk.files.upload("/tmp/a.txt", io.BytesIO(b"a"))
    assert "/Volumes/<catalog>/<schema>/<volume>" in str(refused.value)
