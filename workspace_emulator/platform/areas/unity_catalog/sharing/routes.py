"""Unity Catalog 2.1 routes of Delta Sharing's shares, recipients and providers."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.1/unity-catalog", tags=["unity-catalog"])
# path segment -> (the sharing area's attribute, the list's key)
KINDS = {"shares": "shares", "recipients": "recipients", "providers": "providers"}


class SharingBody(Open):
    name: str | None = None
    comment: str | None = None
    storage_root: str | None = None
    authentication_type: str | None = None
    data_recipient_global_metastore_id: str | None = None
    recipient_profile_str: str | None = None
    sharing_code: str | None = None
    ip_access_list: dict[str, Any] | None = None
    properties_kvpairs: dict[str, Any] | None = None
    expiration_time: int | None = None


class SharingChanges(SharingBody):
    new_name: str | None = None
    owner: str | None = None


def _routes(segment: str) -> None:
    async def create(body: SharingBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
        return ok(getattr(ws.sharing, segment).create(body.as_request(), caller))

    async def list_all(ws: WorkspaceDep, _: CallerDep, max_results: int | None = None,
                       page_token: str | None = None) -> JSONResponse:
        return ok({segment: getattr(ws.sharing, segment).list()})

    async def get(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
        return ok(getattr(ws.sharing, segment).get(name))

    async def update(name: str, body: SharingChanges, ws: WorkspaceDep, caller: CallerDep
                     ) -> JSONResponse:
        return ok(getattr(ws.sharing, segment).update(name, body.as_request(), caller))

    async def delete(name: str, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
        getattr(ws.sharing, segment).delete(name, caller)
        return ok()

    router.add_api_route(f"/{segment}", create, methods=["POST"], name=f"create_{segment}")
    router.add_api_route(f"/{segment}", list_all, methods=["GET"], name=f"list_{segment}")
    router.add_api_route(f"/{segment}/{{name}}", get, methods=["GET"], name=f"get_{segment}")
    router.add_api_route(f"/{segment}/{{name}}", update, methods=["PATCH"],
                         name=f"update_{segment}")
    router.add_api_route(f"/{segment}/{{name}}", delete, methods=["DELETE"],
                         name=f"delete_{segment}")


for _segment in KINDS:
    _routes(_segment)
