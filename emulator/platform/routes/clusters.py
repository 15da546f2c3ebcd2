"""Clusters under /api/2.0 and /api/2.1: list, get, start, stop (seed), delete (terminate)."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from fastapi.responses import JSONResponse

from emulator.platform.auth import authenticated_caller, workspace
from emulator.platform.models import Caller, Workspace
from emulator.platform.wire import Open, ok

router = APIRouter(tags=["clusters"])


class ClusterIdBody(Open):
    cluster_id: str


@router.get("/clusters/list")
async def list_clusters(
    ws: Workspace = Depends(workspace), _: Caller = Depends(authenticated_caller)
) -> JSONResponse:
    return ok({"clusters": ws.clusters.list()})


@router.get("/clusters/get")
async def get_cluster(
    cluster_id: str, ws: Workspace = Depends(workspace),
    _: Caller = Depends(authenticated_caller),
) -> JSONResponse:
    return ok(ws.clusters.get(cluster_id))


@router.post("/clusters/start")
async def start_cluster(
    body: ClusterIdBody, ws: Workspace = Depends(workspace),
    _: Caller = Depends(authenticated_caller),
) -> JSONResponse:
    ws.clusters.start(body.cluster_id)
    return ok()


@router.post("/clusters/stop")
async def stop_cluster(
    body: ClusterIdBody, ws: Workspace = Depends(workspace),
    caller: Caller = Depends(authenticated_caller),
) -> JSONResponse:
    ws.clusters.terminate(body.cluster_id, caller.application_id)
    return ok()


@router.post("/clusters/delete")
async def terminate_cluster(
    body: ClusterIdBody, ws: Workspace = Depends(workspace),
    caller: Caller = Depends(authenticated_caller),
) -> JSONResponse:
    ws.clusters.terminate(body.cluster_id, caller.application_id)
    return ok()
