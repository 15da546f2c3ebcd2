"""MLflow 2.0 routes of experiments: create, get, get-by-name, update, delete, restore,
search, set-experiment-tag, delete-experiment-tag."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from workspace_emulator.platform.auth import CallerDep, WorkspaceDep
from workspace_emulator.platform.wire import Open, ok

router = APIRouter(prefix="/api/2.0/mlflow/experiments", tags=["mlflow"])


class CreateBody(Open):
    name: str | None = None
    artifact_location: str | None = None
    tags: list[Any] | None = None


class IdBody(Open):
    experiment_id: str | None = None


class UpdateBody(IdBody):
    new_name: str | None = None


class TagBody(IdBody):
    key: str | None = None
    value: str | None = None


class SearchBody(Open):
    filter: str | None = None
    max_results: int | None = None
    order_by: list[str] | None = None
    page_token: str | None = None
    view_type: str | None = None


@router.post("/create")
async def create_experiment(body: CreateBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"experiment_id": ws.experiments.create(body.as_request())})


@router.get("/get")
async def get_experiment(experiment_id: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"experiment": ws.experiments.get(experiment_id)})


@router.get("/get-by-name")
async def get_by_name(experiment_name: str, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    return ok({"experiment": ws.experiments.get_by_name(experiment_name)})


@router.post("/update")
async def update_experiment(body: UpdateBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.experiments.rename(body.experiment_id, body.new_name)
    return ok()


@router.post("/delete")
async def delete_experiment(body: IdBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.experiments.delete(body.experiment_id)
    return ok()


@router.post("/restore")
async def restore_experiment(body: IdBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.experiments.restore(body.experiment_id)
    return ok()


@router.post("/search")
async def search_experiments(body: SearchBody, ws: WorkspaceDep, _: CallerDep
                             ) -> JSONResponse:
    return ok(ws.experiments.search(body.as_request()))


@router.post("/set-experiment-tag")
async def set_tag(body: TagBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.experiments.set_tag(body.experiment_id, body.key, body.value)
    return ok()


@router.post("/delete-experiment-tag")
async def delete_tag(body: TagBody, ws: WorkspaceDep, _: CallerDep) -> JSONResponse:
    ws.experiments.delete_tag(body.experiment_id, body.key)
    return ok()
