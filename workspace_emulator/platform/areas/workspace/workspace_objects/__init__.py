"""Workspace objects: the file tree of folders, notebooks and files (model.py), with the
repos of the repos area in it; import and export in the service's formats (formats.py);
paths as the service reads them (paths.py). Holds the objects of the permissions types
`notebooks`, `directories` and `files`."""

from __future__ import annotations

from collections.abc import Callable

from workspace_emulator.platform.area import Area, AreaContext, InitialData, Mount
from workspace_emulator.platform.areas.workspace.repos.model import Repos
from workspace_emulator.platform.areas.workspace.workspace_objects import routes
from workspace_emulator.platform.areas.workspace.workspace_objects.model import (
    PERMISSION_TYPES,
    TABLES,
    WorkspaceObjects,
)
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> WorkspaceObjects:
    return WorkspaceObjects(context.db, context.state(Repos))


def _add_initial(objects: WorkspaceObjects, initial: InitialData) -> None:
    for spec in initial.section("workspace_objects"):
        objects.add_initial(initial.conn, spec)


def _exists(object_type: str) -> Callable[[WorkspaceObjects, str], bool]:
    return lambda objects, object_id: objects.exists(object_type, object_id)


AREA = Area(
    name="workspace_objects",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=62,
    support={
        "GET /workspace/get-status": stateful("NOTEBOOK (language), FILE (size), DIRECTORY, "
                                              "REPO; ids, created_at/modified_at; /Workspace "
                                              "prefix"),
        "GET /workspace/list": stateful("a folder's objects by path; a notebook or file "
                                        "itself; notebooks_modified_after"),
        "POST /workspace/mkdirs": stateful("every folder of the path; a file in the way "
                                           "refused"),
        "POST /workspace/import": stateful("base64 JSON or a multipart form; SOURCE (with a "
                                           "language), JUPYTER, R_MARKDOWN, AUTO, RAW; "
                                           "parent must exist; overwrite; 10 MB"),
        "GET /workspace/export": stateful("SOURCE, JUPYTER, AUTO, R_MARKDOWN; a folder as a "
                                          "zip; direct_download"),
        "POST /workspace/delete": stateful("recursive; DIRECTORY_NOT_EMPTY without it"),
    },
    not_served={"Workspace objects": ("POST /workspace-files/import-file/{path}",
                                      "GET /workspace-files/{path}")},
    initial_data=_add_initial,
    permission_objects={type_name: _exists(object_type)
                        for type_name, object_type in PERMISSION_TYPES.items()},
)
