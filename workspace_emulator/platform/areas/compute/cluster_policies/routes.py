"""Cluster policies and policy families, under /api/2.0."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import AdminDep, CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0")


class PolicyBody(Open):
    name: str | None = None


class PolicyIdBody(Open):
    policy_id: str


@router.post("/policies/clusters/create", tags=["cluster policies"])
async def create_policy(body: PolicyBody, ws: WorkspaceDep, caller: AdminDep) -> JSONResponse:
    return ok({"policy_id": ws.cluster_policies.create(body.as_request(), caller.application_id)})


@router.post("/policies/clusters/edit", tags=["cluster policies"])
async def edit_policy(body: PolicyIdBody, ws: WorkspaceDep, _: AdminDep) -> JSONResponse:
    ws.cluster_policies.edit(body.as_request())
    return ok()


@router.get("/policies/clusters/get", tags=["cluster policies"])
async def get_policy(policy_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.cluster_policies.get(policy_id))


@router.get("/policies/clusters/list", tags=["cluster policies"])
async def list_policies(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"policies": ws.cluster_policies.all()})


@router.post("/policies/clusters/delete", tags=["cluster policies"])
async def delete_policy(body: PolicyIdBody, ws: WorkspaceDep, _: AdminDep) -> JSONResponse:
    ws.cluster_policies.delete(body.as_request())
    return ok()


@router.get("/policy-families", tags=["cluster policies"])
async def list_policy_families(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"policy_families": ws.cluster_policies.families()})


@router.get("/policy-families/{policy_family_id}", tags=["cluster policies"])
async def get_policy_family(
    policy_family_id: str, ws: WorkspaceDep, _: CallerDep
) -> JSONResponse:
    return ok(ws.cluster_policies.family(policy_family_id))
