"""Unity Catalog registered models, their aliases and versions (model.py), kept in the
schemas of the unity_catalog area, which reaches them as `function` securables for grants;
so this area opens after it. Access to a model is its grants: the `registered-models` type of
/api/2.0/permissions is the workspace model registry's, which the emulator does not hold."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.ml.registered_models import routes
from workspace_emulator.platform.areas.ml.registered_models.model import (
    TABLES,
    RegisteredModels,
)
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import UnityCatalog
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> RegisteredModels:
    return RegisteredModels(context.db, context.state(UnityCatalog))


AREA = Area(
    name="registered_models",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router), Mount(routes.mlflow_router)),
    route_priority=110,
    support={
        "POST /unity-catalog/models": stateful(
            "the schema must exist (USE_CATALOG, USE_SCHEMA, CREATE_MODEL or its owner); "
            "name stored lower case; storage_location under an external location, else "
            "managed"),
        "GET /unity-catalog/models": stateful("of a schema, a catalog or all; one page"),
        "GET /unity-catalog/models/{full_name}": stateful("any case; include_aliases"),
        "PATCH /unity-catalog/models/{full_name}": stateful(
            "comment, owner, new_name (versions and grants follow)"),
        "DELETE /unity-catalog/models/{full_name}": stateful(
            "its versions, aliases and grants go with it"),
        "PUT /unity-catalog/models/{full_name}/aliases/{alias}": stateful(
            "the version must exist; 'latest' and v<n> reserved"),
        "GET /unity-catalog/models/{full_name}/aliases/{alias}": stateful(
            "the version the alias names"),
        "DELETE /unity-catalog/models/{full_name}/aliases/{alias}": stateful(""),
        "GET /unity-catalog/models/{full_name}/versions": stateful("newest first; one page"),
        "GET /unity-catalog/models/{full_name}/versions/{version}": stateful(
            "with its aliases"),
        "DELETE /unity-catalog/models/{full_name}/versions/{version}": stateful(
            "its aliases go with it"),
        "POST /mlflow/unity-catalog/model-versions/create": stateful(
            "the MLflow client's registration of a training run's version (name: the "
            "model's full name, source); READY at once"),
    },
)
