"""Secret scopes: workspace-backed and key-vault-backed (model.py); their secrets and access
control lists are the secrets area's."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, InitialData, Mount
from workspace_emulator.platform.areas.secrets.secret_scopes import routes
from workspace_emulator.platform.areas.secrets.secret_scopes.model import TABLES, SecretScopes
from workspace_emulator.platform.fidelity import stateful


def _add_initial(scopes: SecretScopes, initial: InitialData) -> None:
    for scope in initial.section("secret_scopes"):
        scopes.create(scope, created_by="initial data", creator_is_principal=False)


AREA = Area(
    name="secret_scopes",
    open=lambda context: SecretScopes(context.db),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=60,
    support={
        "POST /secrets/scopes/create": stateful("workspace-backed and key-vault-backed "
                                                "scopes"),
        "POST /secrets/scopes/delete": stateful(""),
        "GET /secrets/scopes/list": stateful(""),
    },
    initial_data=_add_initial,
)
