"""WorkspaceFile: a file at a workspace path (a Python module, a requirements file, a SQL
script, a wheel a job installs), its bytes from a file of the project (`source`) or inline
(`content_base64`), uploaded as they are (the RAW format: never read as a notebook).

The state holds the bytes' SHA-256, never the bytes (providers/workspace/workspace_objects.py): new
bytes are an update in place (the file imported again over itself, keeping its object id),
another path replaces the file. The folders above it are made as needed and left in place on
delete. A refresh reads the file's status, and its bytes where `modified_at` moved since the
last write: a file changed in the workspace shows as drift. A create refused because the path
is taken adopts a file there holding the declared bytes (what an interrupted run made).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pulumi.dynamic import CheckResult
from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.client import NotFound
from providers.core.kind import Adoption, DrillChange, always, declare
from providers.core.lifecycle import Spec, WorkspaceProvider, contains_unknown, user_inputs
from providers.workspace.workspace_objects import (
    canonical_path,
    checked_digest,
    checked_inputs,
    content_source_rules,
    create_at,
    current_digest,
    digest,
    object_path,
    path_id_problem,
    raw_content,
    same_path,
    stack_objects,
    upload_content,
    upload_making_parent,
    workspace_path,
)
from providers.workspace.workspace_objects_api import WorkspaceObjectsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

FILE_FORMAT = "RAW"  # the bytes as they are, a file whatever its name or first line
EXPORT_FORMAT = "AUTO"  # a file's bytes, whatever its name


def _file_path(value: str) -> str:
    return object_path(value)


class WorkspaceFileModel(BaseModel):
    """A workspace file: its path and bytes."""

    model_config = ConfigDict(extra="forbid")

    path: Annotated[str, AfterValidator(_file_path)]
    source: str | None = None
    content_base64: str | None = None
    content_sha256: Annotated[str, AfterValidator(checked_digest)] | None = None


def exported_bytes(client: Any, path: str, observed: Mapping[str, Any]) -> tuple[str, bytes]:
    """(the file's file in the project: its own path, its bytes), for adoption."""
    return path.lstrip("/"), WorkspaceObjectsApi(client).export(path, EXPORT_FORMAT)


class WorkspaceFileProvider(WorkspaceProvider):
    args_model = WorkspaceFileModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"path"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        return content_source_rules(inputs)

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        result = super().check(olds, news)
        if result.failures or contains_unknown(user_inputs(news)):
            return result
        inputs, failures = checked_inputs(news, raw_content(user_inputs(news)) or b"")
        return CheckResult(inputs, failures)

    def spec(self, args: WorkspaceFileModel) -> Spec:
        return {
            "path": args.path,
            "content_sha256": args.content_sha256 or digest(self._content(args)),
        }

    def create_object(self, client: WorkspaceClient, args: WorkspaceFileModel, spec: Spec):
        path, content = spec["path"], self._content(args)

        create_at(path, lambda: self._upload(client, path, content, overwrite=False),
                  lambda: self._declared_at(client, spec))
        status = WorkspaceObjectsApi(client).status(path)
        return path, self._observed(status, spec, spec["content_sha256"]), self._computed(status)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        status = WorkspaceObjectsApi(client).status(id_)
        if status.get("object_type") != "FILE":
            return None  # gone as a file: something else took the path
        content_sha256 = current_digest(
            status, recorded, lambda: WorkspaceObjectsApi(client).export(id_, EXPORT_FORMAT))
        like = {"path": recorded.get("path") or id_}
        return self._observed(status, like, content_sha256), self._computed(status)

    def update_object(self, client, id_, recorded, args: WorkspaceFileModel, spec: Spec):
        self._upload(client, spec["path"], self._content(args), overwrite=True)
        status = WorkspaceObjectsApi(client).status(id_)
        return self._observed(status, spec, spec["content_sha256"]), self._computed(status)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        WorkspaceObjectsApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _content(args: WorkspaceFileModel) -> bytes:
        inputs = args.model_dump()
        return upload_content(inputs, raw_content(inputs))

    @staticmethod
    def _upload(client: WorkspaceClient, path: str, content: bytes, *, overwrite: bool) -> None:
        """Imports the file; where its folder is missing, makes it and imports again."""
        objects = WorkspaceObjectsApi(client)
        upload_making_parent(objects, path, lambda: objects.import_(
            path, content, format=FILE_FORMAT, overwrite=overwrite))

    @staticmethod
    def _declared_at(client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The file at the declared path where it holds the declared bytes, else None."""
        objects = WorkspaceObjectsApi(client)
        try:
            status = objects.status(spec["path"])
            if status.get("object_type") != "FILE":
                return None
            exported = objects.export(spec["path"], EXPORT_FORMAT)
        except NotFound:
            return None
        return status if digest(exported) == spec["content_sha256"] else None

    @staticmethod
    def _observed(status: Mapping[str, Any], like: Mapping[str, Any], content_sha256: str) -> Spec:
        path = str(status.get("path") or like.get("path"))
        declared = like.get("path")
        return {
            "path": canonical_path(declared) if declared and same_path(path, declared) else path,
            "content_sha256": content_sha256,
        }

    @staticmethod
    def _computed(status: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "object_id": status.get("object_id"),
            "modified_at": status.get("modified_at"),
            "size": status.get("size"),
            "workspace_path": workspace_path(canonical_path(str(status.get("path")))),
        }


# What the drill's update uploads inline in place of a file's bytes: another digest, the
# same path.
DRILL_CONTENT = b'{"updated by": "the after-write drill"}\n'


def _drill_change(file: dict[str, Any]) -> dict[str, Any]:
    for key in ("source", "content_sha256"):
        file.pop(key, None)
    return {**file, "content_base64": base64.b64encode(DRILL_CONTENT).decode()}


KIND = declare(
    name="WorkspaceFile",
    provider=WorkspaceFileProvider,
    outputs={"object_id": int, "modified_at": int, "size": int, "workspace_path": str},
    shown={"content_sha256": str},
    config_key="workspaceFiles",
    after=("directories",),  # made in them, deleted before them
    identity=("path",),
    doc="docs/workspace-file.md",
    summary="a file at a workspace path, its bytes from a project file or inline; the state "
            "keeps their digest",
    import_id="workspace path",
    import_id_rule=path_id_problem,
    stack_output=("workspace_files", lambda resource: resource.object_id),
    inventory=lambda client: stack_objects(client, "FILE"),
    # The bytes go into a file of the project at the file's own path.
    adoption=Adoption(content=exported_bytes, leaves_out={"content_sha256": always}),
    drill=DrillChange(_drill_change),
)
