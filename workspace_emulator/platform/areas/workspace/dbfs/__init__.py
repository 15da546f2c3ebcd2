"""DBFS, the workspace's own file system (`/api/2.0/dbfs/...`: model.py, routes.py). Under the
workspace domain: DBFS is the workspace's storage, as its objects are, where the Files API's
volumes are Unity Catalog's (unity_catalog/files)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, InitialData, Mount
from workspace_emulator.platform.areas.workspace.dbfs import routes
from workspace_emulator.platform.areas.workspace.dbfs.model import TABLES, Dbfs
from workspace_emulator.platform.fidelity import stateful


def _add_initial(dbfs: Dbfs, initial: InitialData) -> None:
    for file in initial.section("dbfs"):
        dbfs.add_initial(initial.conn, file)


AREA = Area(
    name="dbfs",
    open=lambda context: Dbfs(context.db),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=85,
    initial_data=_add_initial,
    support={
        "POST /dbfs/put": stateful(
            "JSON only (no multipart form); contents base64 inline, at most 1 MB decoded "
            "(else 400 MAX_BLOCK_SIZE_EXCEEDED); no contents: an empty file; parents made; "
            "an existing file without overwrite 400 RESOURCE_ALREADY_EXISTS"),
        "POST /dbfs/create": stateful(
            "a handle; the path checked as put's; the file appears at close"),
        "POST /dbfs/add-block": stateful(
            "data base64, at most 1 MB decoded; an unknown, closed or 10-minute idle handle "
            "404 RESOURCE_DOES_NOT_EXIST"),
        "POST /dbfs/close": stateful("the file written whole, its parents made"),
        "GET /dbfs/read": stateful(
            "offset, length (0.5 MB unless given, at most 1 MB: else MAX_READ_SIZE_EXCEEDED); "
            "past the end bytes_read 0; a directory 400"),
        "GET /dbfs/get-status": stateful("path, is_dir, file_size, modification_time"),
        "GET /dbfs/list": stateful("a directory's entries by path ({} when empty), or a "
                                   "file's own"),
        "POST /dbfs/mkdirs": stateful("like mkdir -p; a file on the way "
                                      "RESOURCE_ALREADY_EXISTS"),
        "POST /dbfs/delete": stateful(
            "a missing path is no error; a non-empty directory only with recursive (else "
            "400 IO_ERROR)"),
        "POST /dbfs/move": stateful(
            "a file or a whole directory; a missing source 404, a taken destination "
            "RESOURCE_ALREADY_EXISTS; the destination's parents made"),
    },
)
