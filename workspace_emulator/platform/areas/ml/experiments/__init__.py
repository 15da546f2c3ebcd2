"""MLflow experiments (model.py): names are workspace paths whose folders the
workspace_objects area holds, so this area opens after it. Their permissions path
(`experiments`) knows the active ones by id."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.ml.experiments import routes
from workspace_emulator.platform.areas.ml.experiments.model import TABLES, Experiments
from workspace_emulator.platform.areas.workspace.workspace_objects.model import WorkspaceObjects
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> Experiments:
    return Experiments(context.db, context.state(WorkspaceObjects))


AREA = Area(
    name="experiments",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=110,
    support={
        "POST /mlflow/experiments/create": stateful(
            "name an absolute workspace path in an existing folder, unique among active and "
            "deleted experiments (RESOURCE_ALREADY_EXISTS); tags; default artifact location"),
        "GET /mlflow/experiments/get": stateful("deleted ones too (lifecycle_stage)"),
        "GET /mlflow/experiments/get-by-name": stateful("deleted ones too"),
        "POST /mlflow/experiments/update": stateful("new_name, as create; active only"),
        "POST /mlflow/experiments/delete": stateful("to the trash: lifecycle_stage deleted"),
        "POST /mlflow/experiments/restore": stateful("back to active"),
        "POST /mlflow/experiments/search": stateful(
            "filter on name and tags (=, !=, LIKE, ILIKE; AND), view_type, order_by, "
            "max_results and page_token"),
        "POST /mlflow/experiments/set-experiment-tag": stateful("active only"),
        "POST /mlflow/experiments/delete-experiment-tag": stateful(
            "active only; an absent key 404"),
    },
    permission_objects={"experiments": Experiments.exists},
)
