"""DBFS through the official SDK, unchanged: `dbfs.upload` / `download` (create, add-block,
close; get-status, read in 1 MB blocks) of a file of several blocks, `put` inline, `list`,
`mkdirs`, `move`, `delete`, and the service's limits and refusals (a block or a read over
1 MB, a file that exists without overwrite, a path that is not there, a non-empty directory
without recursive, an unknown handle)."""

from __future__ import annotations

import base64
import io
import uuid

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import BadRequest, DatabricksError, NotFound, ResourceAlreadyExists
from databricks.sdk.service.files import DbfsAPI

from workspace_emulator.testing import advance_clock, fetch_token


@pytest.fixture(scope="module")
def sdk(emulator) -> WorkspaceClient:
    return WorkspaceClient(host=emulator.base_url, token=fetch_token(emulator))


@pytest.fixture
def root() -> str:
    """A fresh directory's path for the test (not made yet)."""
    return f"/tmp/t{uuid.uuid4().hex[:8]}"


def b64(content: bytes) -> str:
    return base64.b64encode(content).decode()


def test_upload_and_download_a_file_of_several_blocks(sdk, root):
    content = bytes(range(256)) * 10_000  # 2.56 MB: three blocks of the SDK's 1 MB
    sdk.dbfs.upload(f"dbfs:{root}/wheels/app-1.0-py3-none-any.whl", io.BytesIO(content))
    with sdk.dbfs.download(f"{root}/wheels/app-1.0-py3-none-any.whl") as stream:
        assert stream.read() == content
    status = sdk.dbfs.get_status(f"{root}/wheels/app-1.0-py3-none-any.whl")
    assert (status.path, status.is_dir, status.file_size) == (
        f"{root}/wheels/app-1.0-py3-none-any.whl", False, len(content))
    assert status.modification_time and status.modification_time > 0
    # parents made on the way
    assert sdk.dbfs.get_status(f"{root}/wheels").is_dir
    assert sdk.dbfs.exists(f"dbfs:{root}/wheels/app-1.0-py3-none-any.whl")
    assert not sdk.dbfs.exists(f"{root}/wheels/none.whl")


def test_read_takes_a_range_and_stops_at_the_end(sdk, root):
    sdk.dbfs.put(f"{root}/a.txt", contents=b64(b"0123456789"))
    middle = sdk.dbfs.read(f"{root}/a.txt", offset=3, length=4)
    assert (middle.bytes_read, base64.b64decode(middle.data)) == (4, b"3456")
    tail = sdk.dbfs.read(f"{root}/a.txt", offset=8, length=100)
    assert (tail.bytes_read, base64.b64decode(tail.data)) == (2, b"89")
    past = sdk.dbfs.read(f"{root}/a.txt", offset=10)
    assert past.bytes_read == 0
    with pytest.raises(DatabricksError) as too_long:
        sdk.dbfs.read(f"{root}/a.txt", length=1024 * 1024 + 1)
    assert too_long.value.error_code == "MAX_READ_SIZE_EXCEEDED"
    with pytest.raises(BadRequest) as negative:
        sdk.dbfs.read(f"{root}/a.txt", offset=-1)
    assert negative.value.error_code == "INVALID_PARAMETER_VALUE"
    with pytest.raises(BadRequest, match="is a directory"):
        sdk.dbfs.read(root)


def test_a_block_spanning_reads_across_add_blocks(sdk, root):
    handle = sdk.dbfs.create(f"{root}/streamed.bin").handle
    sdk.dbfs.add_block(handle, b64(b"abc"))
    sdk.dbfs.add_block(handle, b64(b"defg"))
    assert not sdk.dbfs.exists(f"{root}/streamed.bin")  # whole at close
    sdk.dbfs.close(handle)
    across = sdk.dbfs.read(f"{root}/streamed.bin", offset=2, length=3)
    assert base64.b64decode(across.data) == b"cde"
    with pytest.raises(NotFound):  # closed
        sdk.dbfs.add_block(handle, b64(b"h"))


def test_put_inline_up_to_1_mb_and_overwrite_only_when_asked(sdk, root):
    path = f"{root}/conf.json"
    sdk.dbfs.put(path, contents=b64(b"{}"))
    with pytest.raises(ResourceAlreadyExists) as taken:
        sdk.dbfs.put(path, contents=b64(b"[]"))
    assert taken.value.error_code == "RESOURCE_ALREADY_EXISTS"
    with pytest.raises(ResourceAlreadyExists):
        sdk.dbfs.create(path, overwrite=False)
    sdk.dbfs.put(path, contents=b64(b"[]"), overwrite=True)
    assert base64.b64decode(sdk.dbfs.read(path).data) == b"[]"

    sdk.dbfs.put(f"{root}/mb.bin", contents=b64(b"x" * 1024 * 1024))
    assert sdk.dbfs.get_status(f"{root}/mb.bin").file_size == 1024 * 1024
    for call in (lambda: sdk.dbfs.put(f"{root}/big.bin", contents=b64(b"x" * (1024 * 1024 + 1))),
                 lambda: sdk.dbfs.add_block(sdk.dbfs.create(f"{root}/big.bin").handle,
                                            b64(b"x" * (1024 * 1024 + 1)))):
        with pytest.raises(DatabricksError) as too_big:
            call()
        assert too_big.value.error_code == "MAX_BLOCK_SIZE_EXCEEDED"
    assert not sdk.dbfs.exists(f"{root}/big.bin")


def test_list_mkdirs_move_and_delete(sdk, root):
    sdk.dbfs.mkdirs(f"{root}/empty")
    sdk.dbfs.put(f"{root}/data/b.csv", contents=b64(b"b"))
    sdk.dbfs.put(f"{root}/data/a.csv", contents=b64(b"a"))
    listed = [(f.path, f.is_dir) for f in sdk.dbfs.list(root)]
    assert listed == [(f"{root}/data", True), (f"{root}/empty", True)]
    assert [f.path for f in sdk.dbfs.list(f"{root}/data")] == [f"{root}/data/a.csv",
                                                               f"{root}/data/b.csv"]
    assert list(sdk.dbfs.list(f"{root}/empty")) == []
    assert [f.file_size for f in sdk.dbfs.list(f"{root}/data/a.csv")] == [1]  # a file's own
    with pytest.raises(ResourceAlreadyExists):  # a file on the way
        sdk.dbfs.mkdirs(f"{root}/data/a.csv/x")

    sdk.dbfs.move(f"{root}/data", f"{root}/moved/data")
    assert [f.path for f in sdk.dbfs.list(f"{root}/moved/data")] == [
        f"{root}/moved/data/a.csv", f"{root}/moved/data/b.csv"]
    assert not sdk.dbfs.exists(f"{root}/data/a.csv")
    with pytest.raises(NotFound):
        sdk.dbfs.move(f"{root}/data", f"{root}/elsewhere")
    with pytest.raises(ResourceAlreadyExists):
        sdk.dbfs.move(f"{root}/moved/data/a.csv", f"{root}/moved/data/b.csv")

    # The SDK's dbfs.delete refuses a directory without recursive before any call: the
    # service's own answer through its plain API.
    service = DbfsAPI(sdk.api_client)
    with pytest.raises(BadRequest) as not_empty:
        service.delete(f"{root}/moved", recursive=False)
    assert not_empty.value.error_code == "IO_ERROR"
    service.delete(f"{root}/empty")  # empty: no recursive needed
    sdk.dbfs.delete(f"{root}/moved", recursive=True)
    assert [f.path for f in sdk.dbfs.list(root)] == []
    sdk.dbfs.delete(f"{root}/moved", recursive=True)  # gone already: no error
    with pytest.raises(NotFound) as missing:
        sdk.dbfs.get_status(f"{root}/moved")
    assert missing.value.error_code == "RESOURCE_DOES_NOT_EXIST"


def test_bad_paths_are_refused_naming_the_field(sdk):
    with pytest.raises(BadRequest, match="must be absolute"):
        sdk.dbfs.put("tmp/relative.txt", contents=b64(b"x"))
    with pytest.raises(BadRequest, match=r"'\.\.'"):
        sdk.dbfs.mkdirs("/tmp/../etc")
    with pytest.raises(BadRequest, match="destination_path"):
        sdk.dbfs.move("/tmp", "")


def test_a_handle_idle_for_10_minutes_is_gone(manual):
    sdk = WorkspaceClient(host=manual.base_url, token=fetch_token(manual))
    handle = sdk.dbfs.create("/tmp/idle.bin").handle
    assert handle is not None
    sdk.dbfs.add_block(handle, b64(b"a"))
    advance_clock(manual, 9 * 60)
    sdk.dbfs.add_block(handle, b64(b"b"))  # used: its idle time starts again
    advance_clock(manual, 10 * 60 + 1)
    with pytest.raises(NotFound, match="idle"):
        sdk.dbfs.close(handle)
    assert not sdk.dbfs.exists("/tmp/idle.bin")


def test_the_initial_data_holds_the_init_scripts_the_examples_name(sdk):
    """The local stack's job cluster and the examples name these: a run needs them."""
    for script in ("/init/setup.sh", "/init/deps.sh", "/init/install-deps.sh"):
        status = sdk.dbfs.get_status(f"dbfs:{script}")
        assert not status.is_dir and status.file_size > 0
    assert base64.b64decode(sdk.dbfs.read("/init/setup.sh").data).startswith(b"#!/bin/bash\n")
