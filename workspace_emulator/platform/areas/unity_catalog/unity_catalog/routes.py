"""Unity Catalog 2.1 routes: schemas, volumes, storage credentials, credentials of either
purpose (storage or service), external locations,
permissions and effective permissions, and the workspace bindings of every bindable
securable (catalogs' through the catalogs area)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.errors import InvalidParameter
from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Id64, Open, ok

router = APIRouter(prefix="/api/2.1/unity-catalog", tags=["unity-catalog"])
BINDABLE = ("catalog", "external_location", "storage_credential", "credential")


class SchemaBody(Open):
    name: str | None = None
    catalog_name: str | None = None
    comment: str | None = None
    properties: dict[str, Any] | None = None
    storage_root: str | None = None


class SchemaChanges(Open):
    new_name: str | None = None
    owner: str | None = None
    comment: str | None = None
    properties: dict[str, Any] | None = None
    enable_predictive_optimization: str | None = None


class VolumeBody(Open):
    catalog_name: str | None = None
    schema_name: str | None = None
    name: str | None = None
    volume_type: str | None = None
    storage_location: str | None = None
    comment: str | None = None


class VolumeChanges(Open):
    new_name: str | None = None
    owner: str | None = None
    comment: str | None = None


class CredentialBody(Open):
    name: str | None = None
    comment: str | None = None
    read_only: bool | None = None
    skip_validation: bool | None = None
    azure_managed_identity: dict[str, Any] | None = None
    azure_service_principal: dict[str, Any] | None = None
    aws_iam_role: dict[str, Any] | None = None
    databricks_gcp_service_account: dict[str, Any] | None = None
    cloudflare_api_token: dict[str, Any] | None = None


class AnyCredentialBody(CredentialBody):
    purpose: str | None = None


class CredentialChanges(CredentialBody):
    new_name: str | None = None
    owner: str | None = None
    isolation_mode: str | None = None
    force: bool | None = None


class LocationBody(Open):
    name: str | None = None
    url: str | None = None
    credential_name: str | None = None
    comment: str | None = None
    read_only: bool | None = None
    skip_validation: bool | None = None
    fallback: bool | None = None
    enable_file_events: bool | None = None


class LocationChanges(LocationBody):
    new_name: str | None = None
    owner: str | None = None
    isolation_mode: str | None = None
    force: bool | None = None


class PermissionsChange(Open):
    principal: str | None = None
    add: list[Any] | None = None
    remove: list[Any] | None = None


class PermissionsBody(Open):
    changes: list[PermissionsChange] | None = None
    omit_permissions_in_response: bool | None = None


class Binding(Open):
    workspace_id: Id64 | str | None = None
    binding_type: str | None = None


class BindingsBody(Open):
    add: list[Binding] | None = None
    remove: list[Binding] | None = None
    unassign_workspaces: list[Id64 | str] | None = None
    assign_workspaces: list[Id64 | str] | None = None


# schemas

@router.post("/schemas")
async def create_schema(body: SchemaBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.create_schema(body.as_request(), caller))


@router.get("/schemas")
async def list_schemas(
    ws: WorkspaceDep, _: CallerDep, catalog_name: str, max_results: int | None = None,
    page_token: str | None = None, include_browse: bool | None = None,
) -> JSONResponse:
    return ok({"schemas": ws.unity_catalog.list_schemas(catalog_name)})


@router.get("/schemas/{full_name}")
async def get_schema(full_name: str, ws: WorkspaceDep, _: CallerDep,
                     include_browse: bool | None = None) -> JSONResponse:
    return ok(ws.unity_catalog.get_schema(full_name))


@router.patch("/schemas/{full_name}")
async def update_schema(full_name: str, body: SchemaChanges, ws: WorkspaceDep,
                        caller: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.update_schema(full_name, body.as_request(), caller))


@router.delete("/schemas/{full_name}")
async def delete_schema(full_name: str, ws: WorkspaceDep, caller: CallerDep,
                        force: bool = False) -> JSONResponse:
    ws.unity_catalog.delete_schema(full_name, caller, force=force)
    return ok()


# volumes

@router.post("/volumes")
async def create_volume(body: VolumeBody, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.create_volume(body.as_request(), caller))


@router.get("/volumes")
async def list_volumes(
    ws: WorkspaceDep, _: CallerDep, catalog_name: str, schema_name: str,
    max_results: int | None = None, page_token: str | None = None,
    include_browse: bool | None = None,
) -> JSONResponse:
    return ok({"volumes": ws.unity_catalog.list_volumes(catalog_name, schema_name)})


@router.get("/volumes/{name}")
async def get_volume(name: str, ws: WorkspaceDep, _: CallerDep,
                     include_browse: bool | None = None) -> JSONResponse:
    return ok(ws.unity_catalog.get_volume(name))


@router.patch("/volumes/{name}")
async def update_volume(name: str, body: VolumeChanges, ws: WorkspaceDep,
                        caller: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.update_volume(name, body.as_request(), caller))


@router.delete("/volumes/{name}")
async def delete_volume(name: str, ws: WorkspaceDep, caller: CallerDep) -> JSONResponse:
    ws.unity_catalog.delete_volume(name, caller)
    return ok()


# storage credentials

@router.post("/storage-credentials")
async def create_storage_credential(body: CredentialBody, ws: WorkspaceDep,
                                    caller: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.create_storage_credential(body.as_request(), caller))


@router.get("/storage-credentials")
async def list_storage_credentials(
    ws: WorkspaceDep, _: CallerDep, max_results: int | None = None,
    page_token: str | None = None, include_unbound: bool | None = None,
) -> JSONResponse:
    return ok({"storage_credentials": ws.unity_catalog.list_storage_credentials()})


@router.get("/storage-credentials/{name}")
async def get_storage_credential(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.get_storage_credential(name))


@router.patch("/storage-credentials/{name}")
async def update_storage_credential(name: str, body: CredentialChanges, ws: WorkspaceDep,
                                    caller: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.update_storage_credential(name, body.as_request(), caller))


@router.delete("/storage-credentials/{name}")
async def delete_storage_credential(name: str, ws: WorkspaceDep, caller: CallerDep,
                                    force: bool = False) -> JSONResponse:
    ws.unity_catalog.delete_storage_credential(name, caller, force=force)
    return ok()


# credentials of either purpose, storage or service

@router.post("/credentials")
async def create_credential(body: AnyCredentialBody, ws: WorkspaceDep,
                            caller: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.create_credential(body.as_request(), caller))


@router.get("/credentials")
async def list_credentials(
    ws: WorkspaceDep, _: CallerDep, purpose: str | None = None,
    max_results: int | None = None, page_token: str | None = None,
    include_unbound: bool | None = None,
) -> JSONResponse:
    return ok({"credentials": ws.unity_catalog.list_credentials(purpose)})


@router.get("/credentials/{name}")
async def get_credential(name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.get_credential(name))


@router.patch("/credentials/{name}")
async def update_credential(name: str, body: CredentialChanges, ws: WorkspaceDep,
                            caller: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.update_credential(name, body.as_request(), caller))


@router.delete("/credentials/{name}")
async def delete_credential(name: str, ws: WorkspaceDep, caller: CallerDep,
                            force: bool = False) -> JSONResponse:
    ws.unity_catalog.delete_credential(name, caller, force=force)
    return ok()


# external locations

@router.post("/external-locations")
async def create_external_location(body: LocationBody, ws: WorkspaceDep,
                                   caller: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.create_external_location(body.as_request(), caller))


@router.get("/external-locations")
async def list_external_locations(
    ws: WorkspaceDep, _: CallerDep, max_results: int | None = None,
    page_token: str | None = None, include_browse: bool | None = None,
    include_unbound: bool | None = None,
) -> JSONResponse:
    return ok({"external_locations": ws.unity_catalog.list_external_locations()})


@router.get("/external-locations/{name}")
async def get_external_location(name: str, ws: WorkspaceDep, _: CallerDep,
                                include_browse: bool | None = None) -> JSONResponse:
    return ok(ws.unity_catalog.get_external_location(name))


@router.patch("/external-locations/{name}")
async def update_external_location(name: str, body: LocationChanges, ws: WorkspaceDep,
                                   caller: CallerDep) -> JSONResponse:
    return ok(ws.unity_catalog.update_external_location(name, body.as_request(), caller))


@router.delete("/external-locations/{name}")
async def delete_external_location(name: str, ws: WorkspaceDep, caller: CallerDep,
                                   force: bool = False) -> JSONResponse:
    ws.unity_catalog.delete_external_location(name, caller, force=force)
    return ok()


# grants

@router.get("/permissions/{securable_type}/{full_name}")
async def get_permissions(
    securable_type: str, full_name: str, ws: WorkspaceDep, _: CallerDep,
    principal: str | None = None, max_results: int | None = None,
    page_token: str | None = None,
) -> JSONResponse:
    return ok({"privilege_assignments": ws.unity_catalog.permissions(
        securable_type, full_name, principal)})


@router.patch("/permissions/{securable_type}/{full_name}")
async def update_permissions(
    securable_type: str, full_name: str, body: PermissionsBody, ws: WorkspaceDep,
    caller: CallerDep,
) -> JSONResponse:
    request = body.as_request()
    assignments = ws.unity_catalog.update_permissions(
        securable_type, full_name, request.get("changes"), caller)
    if request.get("omit_permissions_in_response"):
        return ok()
    return ok({"privilege_assignments": assignments})


@router.get("/effective-permissions/{securable_type}/{full_name}")
async def get_effective_permissions(
    securable_type: str, full_name: str, ws: WorkspaceDep, _: CallerDep,
    principal: str | None = None, max_results: int | None = None,
    page_token: str | None = None,
) -> JSONResponse:
    return ok({"privilege_assignments": ws.unity_catalog.effective_permissions(
        securable_type, full_name, principal)})


# workspace bindings of any bindable securable

def _bindable(securable_type: str) -> str:
    kind = securable_type.lower()
    if kind not in BINDABLE:
        raise InvalidParameter(
            f"Securable type '{securable_type}' has no workspace bindings; bindable types: "
            f"{', '.join(BINDABLE)}.")
    return kind


@router.get("/bindings/{securable_type}/{name}")
async def get_bindings(
    securable_type: str, name: str, ws: WorkspaceDep, _: CallerDep,
    max_results: int | None = None, page_token: str | None = None,
) -> JSONResponse:
    kind = _bindable(securable_type)
    if kind == "catalog":
        return ok({"bindings": ws.catalogs.bindings(name)})
    return ok({"bindings": ws.unity_catalog.bindings(kind, name)})


@router.patch("/bindings/{securable_type}/{name}")
async def update_bindings(
    securable_type: str, name: str, body: BindingsBody, ws: WorkspaceDep, caller: CallerDep,
) -> JSONResponse:
    kind = _bindable(securable_type)
    request = body.as_request()
    if kind == "catalog":
        bindings = ws.catalogs.update_bindings(
            name, caller, add=request.get("add"), remove=request.get("remove"),
            unassign_workspaces=request.get("unassign_workspaces"),
            assign_workspaces=request.get("assign_workspaces"))
        return ok({"bindings": bindings})
    added, removed = ws.catalogs.checked_binding_changes(request)
    return ok({"bindings": ws.unity_catalog.update_bindings(kind, name, caller, added,
                                                              removed)})
