"""VolumeFile against the emulator, in both wire forms: check (the path, the source, a pinned
digest), upload into a volume with its directories made, an update in place for new bytes,
drift read by refresh (a file changed or gone), import by path, adoption of what an
interrupted run left and another's file refused naming import, delete of the file alone, an
upload sent again by the transport after a lost answer, and a 50 MB file uploaded without
holding it in memory."""

from __future__ import annotations

import hashlib
import io
import tracemalloc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from providers.client import AlreadyExists, NotFound, WorkspaceClient
from providers.core.lifecycle import CONNECTION_KEY
from providers.core.registry import kind_named
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.files_api import FilesApi
from providers.unity_catalog.volume_file import (
    ContentChanged,
    Upload,
    VolumeFileProvider,
    canonical_path,
)
from providers.unity_catalog.volumes_api import VolumesApi
from stacks.audit import objects_near
from tests.providers.support import assert_check_names
from tests.providers.unity_catalog import fresh, make_catalog, make_schema
from workspace_emulator.testing import EmulatorInfo, clear_request_log, request_log, set_faults

WHEEL = b"PK\x03\x04 a wheel's bytes\n"


def sha256(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "Pulumi.yaml").write_text("name: files\nruntime: python\n")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "etl-1.0-py3-none-any.whl").write_bytes(WHEEL)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def volume(client: WorkspaceClient) -> Iterator[str]:
    """`/Volumes/<catalog>/<schema>/<volume>` of a volume made for the test."""
    catalog = make_catalog(client)
    schema = make_schema(client, catalog)
    name = fresh("files")
    VolumesApi(client).create({"catalog_name": catalog, "schema_name": schema.split(".")[1],
                               "name": name, "volume_type": "MANAGED"})
    yield f"/Volumes/{schema.replace('.', '/')}/{name}"
    CatalogsApi(client).delete(catalog, force=True)


@pytest.fixture
def provider() -> VolumeFileProvider:
    return VolumeFileProvider()


@pytest.fixture
def props(connection: dict[str, Any], volume: str, project: Path) -> dict[str, Any]:
    return {"path": f"{volume}/libs/etl/etl-1.0-py3-none-any.whl",
            "source": "dist/etl-1.0-py3-none-any.whl", CONNECTION_KEY: connection}


def checked(provider: VolumeFileProvider, props: dict[str, Any]) -> dict[str, Any]:
    result = provider.check({}, props)
    assert result.failures == [], result.failures
    return dict(result.inputs)


def remote_bytes(client: WorkspaceClient, path: str) -> bytes:
    with FilesApi(client).download(path) as chunks:
        return b"".join(chunks)


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"path": "/Shared/etl.whl"}, "path", "a path in a Unity Catalog volume"),
        ({"path": "dbfs:/Volumes/c/s/v/etl.whl"}, "path", "(give /Volumes/c/s/v/etl.whl)"),
        ({"path": "/Volumes/c/s/v"}, "path", "names no file inside a volume"),
        ({"path": "/Volumes/c/s/v/libs/"}, "path", "names a directory"),
        ({"path": "/Volumes/c/s/v/../etl.whl"}, "path", "must not have empty, . or .. segments"),
        ({"path": "/Volumes/c//v/etl.whl"}, "path", "must not have empty, . or .. segments"),
        ({"source": None}, "source", "required: the project's file to upload"),
        ({"source": "dist/none.whl"}, "source", "no file dist/none.whl"),
        ({"source": "/etc/passwd"}, "source", "relative to the project directory"),
        ({"source": "../x.whl"}, "source", "inside the project directory"),
        ({"content_sha256": "abc"}, "content_sha256", "64 hex digits"),
        ({"content_sha256": "0" * 64}, "content_sha256", "not the declared"),
        ({"content_base64": "eA=="}, "content_base64", "Extra inputs"),
    ],
)
def test_check_names_the_bad_field(provider, props, change, field, reason) -> None:
    assert_check_names(provider, props, change, field, reason)


def test_a_link_out_of_the_project_is_refused(provider, props, project, tmp_path_factory
                                              ) -> None:
    outside = tmp_path_factory.mktemp("outside") / "credentials"
    outside.write_text("token")
    (project / "dist" / "link.whl").symlink_to(outside)
    assert_check_names(provider, props, {"source": "dist/link.whl"}, "source",
                       "outside the project directory")


def test_the_path_folds_the_volume_names_only() -> None:
    folded = canonical_path("/Volumes/Main/Raw/Files/Dir/A.whl")
    assert folded == "/Volumes/main/raw/files/Dir/A.whl"


def test_create_read_update_drift_import_delete(provider, props, client, project) -> None:
    inputs = checked(provider, props)
    assert inputs["content_sha256"] == sha256(WHEEL)
    assert "content" not in str(inputs).replace("content_sha256", "")  # the digest only
    made = provider.create(inputs)
    path = props["path"]
    assert made.id == path
    assert remote_bytes(client, path) == WHEEL
    assert (made.outs["size"], made.outs["content_sha256"]) == (len(WHEEL), sha256(WHEEL))
    assert WHEEL.decode(errors="replace") not in str(made.outs)
    assert provider.read(made.id, made.outs).outs == made.outs
    assert not provider.diff(made.id, made.outs, inputs).changes

    # A changed local file: a change of the digest, uploaded again over the file.
    (project / "dist" / "etl-1.0-py3-none-any.whl").write_bytes(b"wheel 2")
    changed = checked(provider, props)
    diff = provider.diff(made.id, made.outs, changed)
    assert diff.changed_keys == ["content_sha256"] and not diff.replaces
    updated = provider.update(made.id, made.outs, changed).outs
    assert remote_bytes(client, path) == b"wheel 2" and updated["size"] == 7

    # Changed outside the stack (another size): the refresh digests what is there.
    FilesApi(client).upload(path, lambda: io.BytesIO(b"edited elsewhere"), overwrite=True)
    drifted = provider.read(made.id, updated).outs
    assert drifted["content_sha256"] == sha256(b"edited elsewhere")
    assert provider.diff(made.id, drifted, changed).changed_keys == ["content_sha256"]
    provider.update(made.id, drifted, changed)
    assert remote_bytes(client, path) == b"wheel 2"

    # Imported by its path: the digest of what is there, no change against the same file.
    imported = provider.read(path, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported.id == path
    assert imported.outs["content_sha256"] == sha256(b"wheel 2")
    assert not provider.diff(path, imported.outs, changed).changes
    catalog = path.split("/")[2]
    shouted = path.replace(f"/{catalog}/", f"/{catalog.upper()}/", 1)
    imported_so = provider.read(shouted, {CONNECTION_KEY: props[CONNECTION_KEY]})
    assert imported_so.outs["path"] == path  # the volume's names folded: the same file
    assert not provider.diff(shouted, imported_so.outs, changed).changes

    # Delete removes the file only; the directories above it stay.
    provider.delete(made.id, updated)
    with pytest.raises(NotFound):
        FilesApi(client).metadata(path)
    directory = path.rsplit("/", 1)[0]
    assert client.transfer("HEAD", f"/api/2.0/fs/directories{directory}").ok
    assert provider.read(made.id, updated).id is None  # gone: the next up uploads it
    provider.delete(made.id, updated)  # already gone: deleted


def test_another_path_replaces_the_file(provider, props, volume) -> None:
    made = provider.create(checked(provider, props))
    moved = checked(provider, {**props, "path": f"{volume}/etl.whl"})
    diff = provider.diff(made.id, made.outs, moved)
    assert diff.replaces == ["path"] and not diff.delete_before_replace


def test_a_left_over_upload_is_adopted_another_file_refused(provider, props, client,
                                                            project) -> None:
    first = provider.create(checked(provider, props))  # then the state was lost
    again = provider.create(checked(provider, props))
    assert again.id == first.id and again.outs["content_sha256"] == sha256(WHEEL)
    (project / "dist" / "etl-1.0-py3-none-any.whl").write_bytes(b"other bytes")
    with pytest.raises(AlreadyExists, match=rf"import: {props['path']}`"):
        provider.create(checked(provider, props))
    assert remote_bytes(client, props["path"]) == WHEEL  # theirs left as it was


def test_a_missing_volume_fails_the_create_by_name(provider, props, volume) -> None:
    gone = {**props, "path": f"{volume}_none/etl.whl"}
    with pytest.raises(NotFound, match="_none"):
        provider.create(checked(provider, gone))


def test_bytes_changed_during_the_upload_are_not_recorded(provider, props, project) -> None:
    inputs = checked(provider, props)
    (project / "dist" / "etl-1.0-py3-none-any.whl").write_bytes(b"changed after check")
    with pytest.raises(ContentChanged, match="run the update again"):
        provider.create(inputs)


def test_an_upload_whose_answer_is_lost_is_sent_again_whole(
    provider, props, client, emulator: EmulatorInfo, project
) -> None:
    made = provider.create(checked(provider, props))
    (project / "dist" / "etl-1.0-py3-none-any.whl").write_bytes(b"x" * 300_000)
    changed = checked(provider, props)
    # The first PUT is applied and answered 500; the transport sends it again (the file
    # rewound), and the HEAD after it is answered (random state 13: one draw under 0.5).
    clear_request_log(emulator)
    set_faults(emulator, rate_500=0.5, after_write=True, random_state=13,
               paths=[f"/api/2.0/fs/files{props['path']}"])
    try:
        updated = provider.update(made.id, made.outs, changed).outs
    finally:
        set_faults(emulator)
    log = [(r["method"], r["status"], r.get("fault")) for r in request_log(emulator)
           if r["path"] == f"/api/2.0/fs/files{props['path']}"]
    assert log == [("PUT", 500, "500 after write"), ("PUT", 204, None), ("HEAD", 200, None)]
    assert remote_bytes(client, props["path"]) == b"x" * 300_000
    assert updated["content_sha256"] == sha256(b"x" * 300_000)


def test_upload_rewound_digests_afresh(tmp_path: Path) -> None:
    file = tmp_path / "f.bin"
    file.write_bytes(b"abcdef")
    upload = Upload(file)
    with upload.open() as stream:
        stream.read(4)
        stream.seek(2)
        stream.read()
    assert upload.sent_digest() == sha256(b"abcdef")


@contextmanager
def peak_traced() -> Iterator[list[int]]:
    """[the peak of Python's allocations inside the block, in bytes] (tracemalloc)."""
    found: list[int] = []
    tracemalloc.start()
    try:
        yield found
        found.append(tracemalloc.get_traced_memory()[1])
    finally:
        tracemalloc.stop()


def test_a_50_mb_file_is_digested_and_uploaded_in_chunks(connection, client, volume,
                                                        project) -> None:
    """The provider's own memory, measured by tracemalloc in this process (the emulator runs
    in its own): check and create of a 50 MB wheel each peak under 4 MB."""
    size = 50 * 1024 * 1024
    wheel = project / "dist" / "big-1.0-py3-none-any.whl"
    with wheel.open("wb") as out:
        for n in range(50):
            out.write(bytes([n]) * (1024 * 1024))
    props: dict[str, Any] = {"path": f"{volume}/big.whl", "source": "dist/big-1.0-py3-none-any.whl",
             CONNECTION_KEY: connection}
    provider = VolumeFileProvider()
    with peak_traced() as check_peak:
        inputs = checked(provider, props)
    with peak_traced() as create_peak:
        outs = provider.create(inputs).outs
    assert check_peak[0] < 4 * 1024 * 1024, check_peak
    assert create_peak[0] < 4 * 1024 * 1024, create_peak
    assert outs is not None and outs["size"] == size
    digest = hashlib.sha256()
    for n in range(50):
        digest.update(bytes([n]) * (1024 * 1024))
    assert outs["content_sha256"] == digest.hexdigest()
    with FilesApi(client).download(props["path"]) as chunks:
        received = hashlib.sha256()
        for chunk in chunks:
            received.update(chunk)
    assert received.hexdigest() == digest.hexdigest()



def test_the_audit_lists_the_files_beside_a_stacks_own_and_no_other(client, volume) -> None:
    """A file left in a folder the stack uploads to (an older wheel) is one a stack could
    own; the volume's data elsewhere is nobody's business of the audit."""
    files = FilesApi(client)
    own, old = f"{volume}/wheels/tasks-2.0.whl", f"{volume}/wheels/tasks-1.0.whl"
    data = f"{volume}/landing/orders.json"
    for path in (own, old, data):
        files.upload(path, lambda: io.BytesIO(WHEEL), overwrite=True)
    files.make_directories(f"{volume}/wheels/nested")

    beside = kind_named("VolumeFile").inventory_near
    assert beside is not None
    assert sorted(beside(client, [own])) == [(old, old), (own, own)]
    assert list(beside(client, [])) == []
    assert list(beside(client, [f"{volume}/gone/x.whl"])) == []  # a folder not there

    # The audit asks with what the stacks manage; it reports what of that is not theirs.
    listed = objects_near(client, {("volume_file", own), ("job", "1")})
    assert sorted((o.kind, o.id) for o in listed) == [("volume_file", old), ("volume_file", own)]
