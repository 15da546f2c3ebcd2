"""Clusters under /api/2.0 and /api/2.1: list, get, start, stop (seed), delete (terminate)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from emulator.platform.auth import CallerDep, WorkspaceDep
from emulator.platform.wire import Open, ok

router = APIRouter(tags=["clusters"])


class ClusterIdBody(Open):
    cluster_id: str


@router.get("/clusters/list")
async def list_clusters(
    ws: WorkspaceDep, _: CallerDep
) -> JSONResponse:
    return ok({"clusters": ws.clusters.all()})


@router.get("/clusters/get")
async def get_cluster(
    cluster_id: str, ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    return ok(ws.clusters.get(cluster_id))


@router.post("/clusters/start")
async def start_cluster(
    body: ClusterIdBody, ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    ws.clusters.start(body.cluster_id)
    return ok()


@router.post("/clusters/stop")
async def stop_cluster(
    body: ClusterIdBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    ws.clusters.terminate(body.cluster_id, caller.application_id)
    return ok()


@router.post("/clusters/delete")
async def terminate_cluster(
    body: ClusterIdBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    ws.clusters.terminate(body.cluster_id, caller.application_id)
    return ok()
