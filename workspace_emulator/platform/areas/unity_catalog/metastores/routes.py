"""Unity Catalog 2.1 routes of the workspace-level metastores API: metastores, their
assignment to workspaces, the current workspace's assignment and its metastore's summary."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.1/unity-catalog", tags=["unity-catalog"])


class MetastoreBody(Open):
    name: str | None = None
    region: str | None = None
    storage_root: str | None = None
    external_access_enabled: bool | None = None


class MetastoreChanges(Open):
    new_name: str | None = None
    owner: str | None = None
    delta_sharing_scope: str | None = None
    delta_sharing_recipient_token_lifetime_in_seconds: Any = None
    delta_sharing_organization_name: str | None = None
    external_access_enabled: bool | None = None
    privilege_model_version: str | None = None
    storage_root_credential_id: str | None = None


class AssignmentBody(Open):
    metastore_id: str | None = None
    default_catalog_name: str | None = None


@router.post("/metastores")
async def create_metastore(body: MetastoreBody, ws: WorkspaceDep, caller: CallerDep
                           ) -> JSONResponse:
    return ok(ws.metastores.create(body.as_request(), caller))


@router.get("/metastores")
async def list_metastores(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"metastores": ws.metastores.all()})


@router.get("/metastores/{metastore_id}")
async def get_metastore(metastore_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.metastores.get(metastore_id))


@router.patch("/metastores/{metastore_id}")
async def update_metastore(metastore_id: str, body: MetastoreChanges, ws: WorkspaceDep,
                           caller: CallerDep) -> JSONResponse:
    return ok(ws.metastores.update(metastore_id, body.as_request(), caller))


@router.delete("/metastores/{metastore_id}")
async def delete_metastore(metastore_id: str, ws: WorkspaceDep, caller: CallerDep,
                           force: bool = False) -> JSONResponse:
    ws.metastores.delete(metastore_id, caller, force=force)
    return ok()


@router.put("/workspaces/{workspace_id}/metastore")
async def assign_metastore(workspace_id: str, body: AssignmentBody, ws: WorkspaceDep,
                           caller: CallerDep) -> JSONResponse:
    ws.metastores.assign(workspace_id, body.as_request(), caller)
    return ok()


@router.patch("/workspaces/{workspace_id}/metastore")
async def update_assignment(workspace_id: str, body: AssignmentBody, ws: WorkspaceDep,
                            caller: CallerDep) -> JSONResponse:
    ws.metastores.update_assignment(workspace_id, body.as_request(), caller)
    return ok()


@router.delete("/workspaces/{workspace_id}/metastore")
async def unassign_metastore(workspace_id: str, ws: WorkspaceDep, caller: CallerDep,
                             metastore_id: str = "") -> JSONResponse:
    ws.metastores.unassign(workspace_id, metastore_id, caller)
    return ok()


@router.get("/current-metastore-assignment")
async def current_assignment(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.metastores.current_assignment())


@router.get("/metastore_summary")
async def metastore_summary(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.metastores.summary())
