"""Directory: a folder at a workspace path, made with the folders above it, and deleted
alone, or with everything in it where `delete_recursive` says so.

`delete_recursive` is this kind's own, never sent until the delete (false by default): a
delete of a folder that holds anything is refused by the service (DIRECTORY_NOT_EMPTY), and
the error names `delete_recursive`; the folder and what it holds stay. Setting it is an update
of the state alone (no call), which has to be recorded (`pulumi up`) before the delete that
uses it. Another path replaces the folder (its id is its path). The folders above it that the
create made are left in place on delete.

A create finding a folder at the path adopts it when it holds no notebooks, files or repos
(at any depth: what an interrupted run, or the stack's folders made first as parents, leave);
one holding any is refused, naming import, and so is a notebook, file or repo at the path.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, StrictBool

from providers.client import NotFound, WorkspaceError
from providers.core.kind import DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.workspace.workspace_objects import (
    canonical_path,
    object_path,
    path_id_problem,
    same_path,
    stack_objects,
    workspace_path,
)
from providers.workspace.workspace_objects_api import WorkspaceObjectsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

NOT_EMPTY = "DIRECTORY_NOT_EMPTY"
# How many objects a create looks at below a folder it finds, at most, before it refuses
# to adopt the folder (a folder holding that many is no interrupted run's).
LOOKED_AT = 1000
SHOWN_HELD = 3


class DirectoryTaken(Exception):
    """The declared path holds something this resource cannot adopt."""


def _folder_path(value: str) -> str:
    return object_path(value, folder=True)


class DirectoryModel(BaseModel):
    """A folder: its path, and whether a delete takes what it holds with it."""

    model_config = ConfigDict(extra="forbid")

    path: Annotated[str, AfterValidator(_folder_path)]
    delete_recursive: StrictBool = False


def held_objects(client: WorkspaceClient, path: str, limit: int = LOOKED_AT) -> list[str]:
    """The notebooks, files and repos at any depth below the folder at `path` (some of them,
    where there are many), by path."""
    held: list[str] = []
    folders, looked_at = [path], 0
    while folders and looked_at < limit and len(held) < SHOWN_HELD:
        for entry in WorkspaceObjectsApi(client).list(folders.pop()):
            looked_at += 1
            if entry.get("object_type") == "DIRECTORY":
                folders.append(str(entry.get("path")))
            else:
                held.append(str(entry.get("path")))
    if folders and not held:
        held.append(f"more than {limit} objects")
    return held


class DirectoryProvider(WorkspaceProvider):
    args_model = DirectoryModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"path"})

    def spec(self, args: DirectoryModel) -> Spec:
        return {"path": args.path, "delete_recursive": args.delete_recursive}

    def create_object(self, client: WorkspaceClient, args: DirectoryModel, spec: Spec):
        path = spec["path"]
        objects = WorkspaceObjectsApi(client)
        try:
            status = objects.status(path)
        except NotFound:
            objects.mkdirs(path)
            status = objects.status(path)
        else:
            self._refuse_to_adopt(client, path, status)
        return path, self._observed(status, spec), self._computed(status)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        status = WorkspaceObjectsApi(client).status(id_)
        if status.get("object_type") != "DIRECTORY":
            return None  # gone as a folder: something else took the path
        like = {"path": recorded.get("path") or id_,
                "delete_recursive": bool(recorded.get("delete_recursive", False))}
        return self._observed(status, like), self._computed(status)

    def update_object(self, client, id_, recorded, args: DirectoryModel, spec: Spec):
        # Only delete_recursive changes in place, and it is the state's alone.
        computed = {key: recorded.get(key) for key in self.computed_keys}
        return spec, computed

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        recursive = bool(recorded.get("delete_recursive", False))
        try:
            WorkspaceObjectsApi(client).delete(id_, recursive=recursive)
        except WorkspaceError as error:
            if error.code != NOT_EMPTY:
                raise
            held = ", ".join(held_objects(client, id_)) or "objects"
            error.message += (
                f" (the folder {id_} holds {held}: set delete_recursive: true on the Directory "
                "and run `pulumi up` before deleting it to delete it with everything it holds, "
                "or delete its contents first)")
            error.args = (str(error),)
            raise

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _refuse_to_adopt(client: WorkspaceClient, path: str, status: Mapping[str, Any]) -> None:
        kind = status.get("object_type")
        if kind != "DIRECTORY":
            raise DirectoryTaken(
                f"cannot make the folder {path}: a {str(kind).lower()} is there; give another "
                "path, or remove it")
        held = held_objects(client, path)
        if held:
            raise DirectoryTaken(
                f"the folder {path} exists already and holds {', '.join(held)}, made outside "
                f"this stack: import it (`import: {path}` in the stack config, or `pulumi "
                "import`) to manage it, or give another path")

    @staticmethod
    def _observed(status: Mapping[str, Any], like: Mapping[str, Any]) -> Spec:
        path = str(status.get("path") or like.get("path"))
        declared = like.get("path")
        return {
            "path": canonical_path(declared) if declared and same_path(path, declared) else path,
            "delete_recursive": bool(like.get("delete_recursive", False)),
        }

    @staticmethod
    def _computed(status: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "object_id": status.get("object_id"),
            "workspace_path": workspace_path(canonical_path(str(status.get("path")))),
        }


KIND = declare(
    name="Directory",
    provider=DirectoryProvider,
    outputs={"object_id": int, "workspace_path": str},
    config_key="directories",
    identity=("path",),
    doc="docs/directory.md",
    summary="a workspace folder, made with its parents; a delete of a non-empty one only "
            "with delete_recursive",
    import_id="workspace path",
    import_id_rule=path_id_problem,
    stack_output=("directories", lambda resource: resource.object_id),
    defaults={"delete_recursive": False},
    # Empty folders only: a folder holding anything is made by what it holds.
    inventory=lambda client: stack_objects(client, "DIRECTORY"),
    # A folder's one setting is the state's own (how its delete goes): no call is made.
    drill=DrillChange(
        lambda folder: {**folder, "delete_recursive": not folder.get("delete_recursive", False)}
    ),
)
