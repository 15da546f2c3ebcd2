"""Unity Catalog 2.1 routes of registered models, their aliases and versions, and the path
the MLflow client registers a training run's version through."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Int64, Open, ok

router = APIRouter(prefix="/api/2.1/unity-catalog", tags=["unity-catalog"])
mlflow_router = APIRouter(prefix="/api/2.0/mlflow/unity-catalog", tags=["mlflow"])


class ModelBody(Open):
    catalog_name: str | None = None
    schema_name: str | None = None
    name: str | None = None
    comment: str | None = None
    storage_location: str | None = None


class ModelChanges(Open):
    comment: str | None = None
    owner: str | None = None
    new_name: str | None = None


class AliasBody(Open):
    version_num: Int64 | None = None


class VersionBody(Open):
    name: str | None = None
    source: str | None = None
    run_id: str | None = None


@router.post("/models")
async def create_model(body: ModelBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok(ws.registered_models.create(body.as_request(), caller))


@router.get("/models")
async def list_models(
    ws: WorkspaceDep, _: CallerDep, catalog_name: str | None = None,
    schema_name: str | None = None, max_results: int | None = None,
    page_token: str | None = None, include_browse: bool | None = None,
) -> JSONResponse:
    return ok({"registered_models": ws.registered_models.all(catalog_name, schema_name)})


@router.get("/models/{full_name}")
async def get_model(full_name: str, ws: WorkspaceDep, _: CallerDep,
                    include_aliases: bool = False, include_browse: bool | None = None
                    ) -> JSONResponse:
    return ok(ws.registered_models.get(full_name, include_aliases))


@router.patch("/models/{full_name}")
async def update_model(full_name: str, body: ModelChanges, ws: WorkspaceDep,
                       caller: CallerDep) -> JSONResponse:
    return ok(ws.registered_models.update(full_name, body.as_request(), caller))


@router.delete("/models/{full_name}")
async def delete_model(full_name: str, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    ws.registered_models.delete(full_name, caller)
    return ok()


@router.put("/models/{full_name}/aliases/{alias}")
async def set_alias(full_name: str, alias: str, body: AliasBody, ws: WorkspaceDep,
                    caller: CallerDep) -> JSONResponse:
    return ok(ws.registered_models.set_alias(full_name, alias, body.version_num, caller))


@router.get("/models/{full_name}/aliases/{alias}")
async def get_by_alias(full_name: str, alias: str, ws: WorkspaceDep, _: CallerDep,
                       include_aliases: bool | None = None) -> JSONResponse:
    return ok(ws.registered_models.by_alias(full_name, alias))


@router.delete("/models/{full_name}/aliases/{alias}")
async def delete_alias(full_name: str, alias: str, ws: WorkspaceDep,
                       caller: CallerDep) -> JSONResponse:
    ws.registered_models.delete_alias(full_name, alias, caller)
    return ok()


@router.get("/models/{full_name}/versions")
async def list_versions(full_name: str, ws: WorkspaceDep, _: CallerDep,
                        max_results: int | None = None, page_token: str | None = None,
                        include_browse: bool | None = None) -> JSONResponse:
    return ok({"model_versions": ws.registered_models.versions(full_name)})


@router.get("/models/{full_name}/versions/{version}")
async def get_version(full_name: str, version: int, ws: WorkspaceDep, _: CallerDep,
                      include_aliases: bool | None = None,
                      include_browse: bool | None = None) -> JSONResponse:
    return ok(ws.registered_models.get_version(full_name, version))


@router.delete("/models/{full_name}/versions/{version}")
async def delete_version(full_name: str, version: int, ws: WorkspaceDep,
                         caller: CallerDep) -> JSONResponse:
    ws.registered_models.delete_version(full_name, version, caller)
    return ok()


@mlflow_router.post("/model-versions/create")
async def create_version(body: VersionBody, ws: WorkspaceDep, caller: CallerDep
                         ) -> JSONResponse:
    request = body.as_request()
    version = ws.registered_models.create_version(str(request.get("name", "")), request,
                                                  caller)
    return ok({"model_version": version})
