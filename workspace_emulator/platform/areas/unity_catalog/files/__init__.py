"""Files in Unity Catalog volumes through the Files API (model.py, routes.py). Opened after
the unity_catalog area, whose volumes the paths name."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.unity_catalog.files import routes
from workspace_emulator.platform.areas.unity_catalog.files.model import TABLES, VolumeFiles
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import UnityCatalog
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> VolumeFiles:
    return VolumeFiles(context.db, context.state(UnityCatalog))


AREA = Area(
    name="files",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=80,
    support={
        "PUT /fs/files{file_path}": stateful(
            "raw body streamed into the database in 1 MiB parts (up to 5 GiB); the volume "
            "must exist (404); parents made; overwrite=false on an existing file 409 "
            "ALREADY_EXISTS (unspecified replaces it)"),
        "GET /fs/files{file_path}": stateful(
            "the bytes, streamed; content-length, content-type, last-modified; no Range"),
        "HEAD /fs/files{file_path}": stateful("content-length, content-type, last-modified"),
        "DELETE /fs/files{file_path}": stateful("a file only (a directory 400)"),
        "PUT /fs/directories{directory_path}": stateful(
            "like mkdir -p; idempotent; a file on the way 409 ALREADY_EXISTS"),
        "GET /fs/directories{directory_path}": stateful(
            "by name; page_size up to 1000, page_token"),
        "HEAD /fs/directories{directory_path}": stateful("the volume's root included"),
        "DELETE /fs/directories{directory_path}": stateful(
            "empty only: otherwise 400 DIRECTORY_NOT_EMPTY; not the volume's root"),
    },
    not_served={"Files API multipart and presigned transfers": (
        "POST /fs/files{file_path}", "POST /fs/create-download-url")},
)
