"""IP access lists (CRUD); the setting that turns them on is the workspace_conf area's."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import AddressDep, AdminDep, CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0")


class ListBody(Open):
    label: str | None = None
    list_type: Literal["ALLOW", "BLOCK"] | None = None
    ip_addresses: list[str] | None = None
    enabled: bool | None = None


@router.get("/ip-access-lists", tags=["ip-access-lists"])
async def list_ip_access_lists(ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"ip_access_lists": ws.ip_access_lists.all()})


@router.post("/ip-access-lists", tags=["ip-access-lists"])
async def create_ip_access_list(
    body: ListBody, ws: WorkspaceDep, caller: AdminDep, address: AddressDep,
) -> JSONResponse:
    made = ws.ip_access_lists.create(body.as_request(), int(caller.principal_id), address)
    return ok({"ip_access_list": made})


@router.get("/ip-access-lists/{list_id}", tags=["ip-access-lists"])
async def get_ip_access_list(list_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"ip_access_list": ws.ip_access_lists.get(list_id)})


@router.patch("/ip-access-lists/{list_id}", tags=["ip-access-lists"])
async def update_ip_access_list(
    list_id: str, body: ListBody, ws: WorkspaceDep, caller: AdminDep, address: AddressDep,
) -> JSONResponse:
    ws.ip_access_lists.update(list_id, body.as_request(), int(caller.principal_id), address,
                              whole=False)
    return ok()


@router.put("/ip-access-lists/{list_id}", tags=["ip-access-lists"])
async def replace_ip_access_list(
    list_id: str, body: ListBody, ws: WorkspaceDep, caller: AdminDep, address: AddressDep,
) -> JSONResponse:
    ws.ip_access_lists.update(list_id, body.as_request(), int(caller.principal_id), address,
                              whole=True)
    return ok()


@router.delete("/ip-access-lists/{list_id}", tags=["ip-access-lists"])
async def delete_ip_access_list(list_id: str, ws: WorkspaceDep, _: AdminDep) -> JSONResponse:
    ws.ip_access_lists.delete(list_id)
    return ok()
