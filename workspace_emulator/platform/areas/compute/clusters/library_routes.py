"""The libraries of a cluster, under /api/2.0 (the cluster model keeps them)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0")


class LibrariesBody(Open):
    cluster_id: str
    libraries: list[dict[str, Any]]


@router.post("/libraries/install", tags=["libraries"])
async def install_libraries(body: LibrariesBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.clusters.install_libraries(body.cluster_id, body.libraries)
    return ok()


@router.post("/libraries/uninstall", tags=["libraries"])
async def uninstall_libraries(
    body: LibrariesBody, ws: WorkspaceDep, _: CallerDep
) -> JSONResponse:
    ws.clusters.uninstall_libraries(body.cluster_id, body.libraries)
    return ok()


@router.get("/libraries/cluster-status", tags=["libraries"])
async def library_statuses(cluster_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"cluster_id": cluster_id,
               "library_statuses": ws.clusters.library_statuses(cluster_id)})


@router.get("/libraries/all-cluster-statuses", tags=["libraries"])
async def all_library_statuses(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"statuses": ws.clusters.all_library_statuses()})
