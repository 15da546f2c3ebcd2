"""Unity Catalog connections (model.py): what a foreign catalog federates. Opened after the
metastores area (a connection joins this workspace's metastore); it tells the catalogs area
which connections a foreign catalog may name."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.unity_catalog.catalogs.model import Catalogs
from workspace_emulator.platform.areas.unity_catalog.connections import routes
from workspace_emulator.platform.areas.unity_catalog.connections.model import (
    TABLES,
    Connections,
)
from workspace_emulator.platform.areas.unity_catalog.metastores.model import Metastores
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import (
    CONNECTION,
    UnityCatalog,
)
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> Connections:
    connections = Connections(context.db, context.directory,
                              context.state(Metastores).current_id)
    context.state(Catalogs).connection_named = connections.stored_name
    context.state(UnityCatalog).hold_beside(CONNECTION, connections)  # grants on connections
    return connections


AREA = Area(
    name="connections",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=85,
    support={
        "POST /unity-catalog/connections": stateful(
            "admins; a known connection_type; options a map (host for a database type); "
            "name stored lower case, unique; in this workspace's metastore"),
        "GET /unity-catalog/connections": stateful("one page; no credential option"),
        "GET /unity-catalog/connections/{name}": stateful(
            "any case; options without the credential ones (password, client_secret, "
            "token...)"),
        "PATCH /unity-catalog/connections/{name}": stateful(
            "options (required: the whole map, credentials included), owner, new_name"),
        "DELETE /unity-catalog/connections/{name}": stateful("admins or its owner"),
    },
)
