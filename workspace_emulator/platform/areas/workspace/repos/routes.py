"""Repos (Git folders)."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Id64, Open, ok

router = APIRouter(prefix="/api/2.0")


class SparseCheckout(Open):
    patterns: list[str] | None = None


class CheckoutBody(Open):
    branch: str | None = None
    tag: str | None = None
    sparse_checkout: SparseCheckout | None = None


class CreateRepoBody(Open):
    url: str
    provider: str
    path: str | None = None
    sparse_checkout: SparseCheckout | None = None


@router.get("/repos", tags=["repos"])
async def list_repos(
    ws: WorkspaceDep, _: CallerDep,
    path_prefix: str | None = None, next_page_token: str | None = None,
) -> JSONResponse:
    return ok(ws.repos.page(path_prefix, next_page_token))


@router.post("/repos", tags=["repos"])
async def create_repo(body: CreateRepoBody, ws: WorkspaceDep, caller: CallerDep
                      ) -> JSONResponse:
    # A service principal's SCIM userName is its application id.
    return ok(ws.repos.create(body.as_request(), caller.application_id, caller.principal_id))


@router.delete("/repos/{repo_id}", tags=["repos"])
async def delete_repo(repo_id: Id64, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.repos.delete(repo_id)
    return ok()


@router.get("/repos/{repo_id}", tags=["repos"])
async def get_repo(
    repo_id: Id64, ws: WorkspaceDep, _: CallerDep,
) -> JSONResponse:
    return ok(ws.repos.get(repo_id))


@router.post("/repos/{repo_id}", tags=["repos"], summary="Check out a branch (seed form)")
async def checkout_repo_seed_form(
    repo_id: Id64, body: CheckoutBody, ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    return ok(ws.repos.update(repo_id, body.as_request()))


@router.patch("/repos/{repo_id}", tags=["repos"],
              summary="Check out a branch or tag, or change the sparse checkout (public form)")
async def update_repo(
    repo_id: Id64, body: CheckoutBody, ws: WorkspaceDep,
    _: CallerDep,
) -> JSONResponse:
    return ok(ws.repos.update(repo_id, body.as_request()))

