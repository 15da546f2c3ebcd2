"""Clusters under /api/2.0 and /api/2.1: create, edit, resize, get, list, start, restart,
stop (seed), delete (terminate), permanent-delete, pin, unpin, events, and what a cluster is
built from (list-node-types, spark-versions)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse

from workspace_emulator.platform.areas.compute.cluster_policies.compute_catalog import (
    NODE_TYPES,
    SPARK_VERSIONS,
)
from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(tags=["clusters"])


class ClusterIdBody(Open):
    cluster_id: str


class ClusterBody(Open):
    """A cluster's spec (every field the service takes; it is stored as given)."""

    spark_version: str | None = None


class EditBody(ClusterBody):
    cluster_id: str


def _as_bool(text: str | None) -> bool | None:
    return None if text is None else text.strip().lower() == "true"


@router.get("/clusters/list")
async def list_clusters(
    ws: WorkspaceDep, _: CallerDep,
    is_pinned: Annotated[str | None, Query(alias="filter_by.is_pinned")] = None,
    states: Annotated[list[str] | None, Query(alias="filter_by.cluster_states")] = None,
    sources: Annotated[list[str] | None, Query(alias="filter_by.cluster_sources")] = None,
    policy_id: Annotated[str | None, Query(alias="filter_by.policy_id")] = None,
) -> JSONResponse:
    return ok({"clusters": ws.clusters.all(
        pinned=_as_bool(is_pinned), states=states or (), sources=sources or (),
        policy_id=policy_id)})


@router.get("/clusters/get")
async def get_cluster(
    cluster_id: str, ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    return ok(ws.clusters.get(cluster_id))


@router.post("/clusters/create")
async def create_cluster(body: ClusterBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok({"cluster_id": ws.clusters.create(body.as_request(), caller.application_id)})


@router.post("/clusters/edit")
async def edit_cluster(body: EditBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    ws.clusters.edit(body.as_request(), caller.application_id)
    return ok()


@router.post("/clusters/resize")
async def resize_cluster(body: ClusterIdBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.clusters.resize(body.as_request())
    return ok()


@router.post("/clusters/start")
async def start_cluster(
    body: ClusterIdBody, ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    ws.clusters.start(body.cluster_id)
    return ok()


@router.post("/clusters/restart")
async def restart_cluster(body: ClusterIdBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.clusters.restart(body.cluster_id)
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


@router.post("/clusters/permanent-delete")
async def permanent_delete_cluster(
    body: ClusterIdBody, ws: WorkspaceDep, _: CallerDep
) -> JSONResponse:
    ws.clusters.permanent_delete(body.cluster_id)
    return ok()


@router.post("/clusters/pin")
async def pin_cluster(body: ClusterIdBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.clusters.set_pinned(body.cluster_id, True)
    return ok()


@router.post("/clusters/unpin")
async def unpin_cluster(body: ClusterIdBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.clusters.set_pinned(body.cluster_id, False)
    return ok()


@router.post("/clusters/events")
async def cluster_events(body: ClusterIdBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.clusters.events(body.as_request()))


@router.get("/clusters/list-node-types")
async def list_node_types(_: CallerDep) -> JSONResponse:
    return ok({"node_types": NODE_TYPES})


@router.get("/clusters/spark-versions")
async def spark_versions(_: CallerDep) -> JSONResponse:
    return ok({"versions": SPARK_VERSIONS})
