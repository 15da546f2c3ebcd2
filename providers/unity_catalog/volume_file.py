"""VolumeFile: a file in a Unity Catalog volume (`/Volumes/<catalog>/<schema>/<volume>/...`),
its bytes from a file of the project (`source`), uploaded through the Files API: a wheel or a
jar a job installs, an init script, a reference data file.

The state holds the bytes' SHA-256 (`content_sha256`), never the bytes: check digests the
file, the diff compares digests, so a changed file uploads again (an update in place, over
the file, `overwrite=true`) and another path replaces the file. The file is read in chunks
for its digest and sent in blocks as the transport reads it, never held whole in memory;
the upload digests what it sends, and refuses to record a digest the uploaded bytes do not
have (the file changed during the deployment).

The directories above the file are made (`mkdir -p`) before each upload and left in place on
delete, which removes the file only. A create refused because a file is there adopts it where
it holds the declared bytes (what an interrupted run made); another's file is refused,
naming import.

Drift: the service keeps no digest of a file. A refresh reads the file's metadata (HEAD: its
size and last-modified time); where either moved since the last write, it downloads the file
(in chunks) and records the digest of what is there, so a file changed outside the stack
shows as a change of `content_sha256`, and the next update uploads the declared bytes again.
A file gone is a resource gone (the next `up` uploads it). A rewrite that keeps the size
within the same second as the last write is not seen (last-modified has whole seconds).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, BinaryIO, ClassVar

from pulumi.dynamic import CheckFailure, CheckResult
from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.client import AlreadyExists, NotFound
from providers.core.digest import file_chunks, sha256_of
from providers.core.kind import Adoption, DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider, contains_unknown, user_inputs
from providers.core.project_files import project_file
from providers.unity_catalog.files_api import FilesApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

VOLUMES = "/Volumes"
MAX_FILE_BYTES = 5 * 1024**3  # the most one Files API upload takes (5 GiB)
_SHA256 = re.compile(r"[0-9a-f]{64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def canonical_path(value: str) -> str:
    """`/Volumes/<catalog>/<schema>/<volume>/<file...>` with the three names in lower case
    (how Unity Catalog stores them; the rest keeps its case); ValueError saying what is
    wrong."""
    if not value.startswith(VOLUMES + "/"):
        hint = (f" (give {value.removeprefix('dbfs:')})"
                if value.startswith("dbfs:" + VOLUMES + "/") else "")
        raise ValueError(
            "must be a path in a Unity Catalog volume, "
            f"{VOLUMES}/<catalog>/<schema>/<volume>/<file>{hint}")
    parts = value.split("/")[2:]
    if value.endswith("/"):
        raise ValueError("names a directory (a trailing /): give the file's path")
    if len(parts) < 4:
        raise ValueError(
            f"names no file inside a volume: {VOLUMES}/<catalog>/<schema>/<volume>/<file>")
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError("must not have empty, . or .. segments")
    if _CONTROL.search(value):
        raise ValueError("must not hold control characters")
    return "/".join(["", VOLUMES.strip("/"), *(p.lower() for p in parts[:3]), *parts[3:]])


def volume_of(path: str) -> str:
    """The full name `catalog.schema.volume` of the volume a canonical path is in."""
    return ".".join(path.split("/")[2:5])


def parent_directory(path: str) -> str | None:
    """The directory a canonical path is in, None where that is the volume's root."""
    parent = path.rsplit("/", 1)[0]
    return None if parent.count("/") < 5 else parent


def path_id_problem(id_: str) -> str | None:
    """What is wrong with a volume file's path as an import id, before any request."""
    try:
        canonical_path(id_)
    except ValueError as error:
        return str(error)
    return None


def _checked_digest(value: str) -> str:
    if not _SHA256.fullmatch(value):
        raise ValueError("must be a SHA-256 digest: 64 hex digits")
    return value


def source_file(source: str) -> Path:
    """The project's file `source` names (providers/core/project_files.py)."""
    return project_file(
        source, max_bytes=MAX_FILE_BYTES,
        limit=f"the Files API uploads at most {MAX_FILE_BYTES} bytes (5 GiB) in one request")


class VolumeFileModel(BaseModel):
    """A file in a Unity Catalog volume: its path and the project's file it holds."""

    model_config = ConfigDict(extra="forbid")

    path: Annotated[str, AfterValidator(canonical_path)]
    source: str | None = None  # required (a rule, which says what it is)
    content_sha256: Annotated[str, AfterValidator(_checked_digest)] | None = None


class _Digesting:
    """A file opened for an upload, digesting the bytes the transport reads from it. The
    transport sizes it by its descriptor (`fileno`, `mode`) and rewinds it (`seek`) to send
    it again; a rewind digests afresh up to where it lands."""

    mode = "rb"

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream
        self.hashed = hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        chunk = self.stream.read(size)
        self.hashed.update(chunk)
        return chunk

    def fileno(self) -> int:
        return self.stream.fileno()

    def tell(self) -> int:
        return self.stream.tell()

    def seek(self, offset: int, whence: int = 0) -> int:
        target = self.stream.seek(offset, whence)
        self.stream.seek(0)
        self.hashed = hashlib.sha256()
        while self.stream.tell() < target:
            self.read(min(1024 * 1024, target - self.stream.tell()))
        return target


class Upload:
    """The bytes of one upload of a project file: opened afresh for each time the call is
    sent; `sent_digest` is the SHA-256 of what the last send read."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.last: _Digesting | None = None

    @contextmanager
    def open(self) -> Iterator[BinaryIO]:
        with self.file.open("rb") as stream:
            self.last = _Digesting(stream)
            yield self.last  # type: ignore[misc]  # read, fileno, tell, seek: what is used

    def sent_digest(self) -> str | None:
        return None if self.last is None else self.last.hashed.hexdigest()


class ContentChanged(RuntimeError):
    """The file changed between the deployment's check and its upload."""


class VolumeFileProvider(WorkspaceProvider):
    args_model = VolumeFileModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"path"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        if inputs.get("source") is None:
            return [("source", "required: the project's file to upload, its path relative "
                               "to the project directory (the one holding Pulumi.yaml)")]
        try:
            source_file(inputs["source"])
        except ValueError as error:
            return [("source", str(error))]
        return []

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        """Records the source file's digest in `content_sha256` (a declared one must be it)."""
        result = super().check(olds, news)
        if result.failures or contains_unknown(user_inputs(news)):
            return result
        checked = dict(news)
        key = sha256_of(file_chunks(source_file(news["source"])))
        declared = news.get("content_sha256")
        if declared is not None and declared != key:
            reason = (f"the SHA-256 of {news['source']} is {key}, not the declared "
                      f"{declared} (the file changed, or the digest is of another file)")
            return CheckResult(checked, [CheckFailure("content_sha256", reason)])
        checked["content_sha256"] = key
        return CheckResult(checked, [])

    def spec(self, args: VolumeFileModel) -> Spec:
        return {
            "path": args.path,
            "content_sha256": args.content_sha256
            or sha256_of(file_chunks(source_file(str(args.source)))),
        }

    def create_object(self, client: WorkspaceClient, args: VolumeFileModel, spec: Spec):
        path = spec["path"]
        try:
            self._upload(client, args, spec, overwrite=False)
        except AlreadyExists as error:
            if not self._holds_declared(client, spec):
                error.message += (
                    f" ({path} holds a file made outside this stack: import it, `import: "
                    f"{path}` in the stack config or `pulumi import`, or give another path)")
                error.args = (str(error),)
                raise
        found = FilesApi(client).metadata(path)
        return path, self._observed(path, spec["content_sha256"]), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        files = FilesApi(client)
        found = files.metadata(id_)
        unchanged = (
            recorded.get("content_sha256") is not None
            and recorded.get("size") == found["size"]
            and recorded.get("modified_at") == found["last_modified"]
        )
        if unchanged:
            content_sha256 = str(recorded["content_sha256"])
        else:
            with files.download(id_) as chunks:
                content_sha256 = sha256_of(chunks)
        return self._observed(id_, content_sha256), self._computed(found)

    def update_object(self, client, id_, recorded, args: VolumeFileModel, spec: Spec):
        self._upload(client, args, spec, overwrite=True)
        found = FilesApi(client).metadata(id_)
        return self._observed(id_, spec["content_sha256"]), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        FilesApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _upload(client: WorkspaceClient, args: VolumeFileModel, spec: Spec, *,
                overwrite: bool) -> None:
        """Makes the directories above the file, then uploads it; the bytes sent must be
        those whose digest the deployment checked."""
        files = FilesApi(client)
        parent = parent_directory(spec["path"])
        if parent is not None:
            files.make_directories(parent)
        upload = Upload(source_file(str(args.source)))
        files.upload(spec["path"], upload.open, overwrite=overwrite)
        sent = upload.sent_digest()
        if sent != spec["content_sha256"]:
            raise ContentChanged(
                f"{args.source} changed since this deployment checked it (SHA-256 "
                f"{spec['content_sha256']}, uploaded {sent}): run the update again, which "
                "checks it anew")

    @staticmethod
    def _holds_declared(client: WorkspaceClient, spec: Spec) -> bool:
        """Whether the file at the declared path holds the declared bytes."""
        files = FilesApi(client)
        try:
            with files.download(spec["path"]) as chunks:
                return sha256_of(chunks) == spec["content_sha256"]
        except NotFound:
            return False

    @staticmethod
    def _observed(path: str, content_sha256: str) -> Spec:
        """The path as recorded (the volume's names in lower case: an id imported as
        `/Volumes/Main/...` is the declared `/Volumes/main/...`)."""
        try:
            path = canonical_path(path)
        except ValueError:
            pass  # not a path a declaration could give: shown as the service has it
        return {"path": path, "content_sha256": content_sha256}

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {"size": found["size"], "modified_at": found["last_modified"]}


def _drill_change(item: dict[str, Any]) -> dict[str, Any]:
    """Another file of the project as the content: another digest, the same path."""
    item.pop("content_sha256", None)
    other = "README.md" if item.get("source") != "README.md" else "pyproject.toml"
    return {**item, "source": other}


def _files_beside(client: Any, managed_paths: Iterable[str]) -> Iterator[tuple[str, str]]:
    """The files (not folders) in each folder a managed file is in, by canonical path."""
    for folder in sorted({path.rsplit("/", 1)[0] for path in managed_paths}):
        try:
            entries = list(FilesApi(client).list_directory(folder))
        except NotFound:
            continue  # the folder went with its files
        for entry in entries:
            if not entry.get("is_directory"):
                path = canonical_path(str(entry["path"]))
                yield path, path


KIND = declare(
    name="VolumeFile",
    provider=VolumeFileProvider,
    outputs={"size": int, "modified_at": int},
    shown={"content_sha256": str},
    config_key="volumeFiles",
    after=("volumes",),  # uploaded into them, deleted before them
    identity=("path",),
    doc="docs/volume-file.md",
    summary="a file in a Unity Catalog volume, uploaded from a project file through the "
            "Files API; the state keeps its digest",
    import_id="path, /Volumes/<catalog>/<schema>/<volume>/<file>",
    import_id_rule=path_id_problem,
    stack_output=("volume_files", lambda resource: resource.id),
    # A volume's files are mostly data (what tables, notebooks and jobs write), which no
    # stack made; nothing tells a stack's upload from theirs. The audit lists only the files
    # beside a stack's own (an old wheel left in the folder the stack uploads to).
    inventory_near=_files_beside,
    adoption=Adoption(refused=(
        "a volume's files are mostly data no stack made, so adopt takes none: declare a file "
        "the stack should own with its source and `import: <its path>`")),
    drill=DrillChange(_drill_change),
)
