"""Unity Catalog tables (views and materialized views among them) and functions (model.py),
kept in the schemas of the unity_catalog area, which reaches them for grants as `table` and
`function` securables; so this area opens after it. A table of any type is put by
`ws.tables.tables.add` (the tests' hook: the API's create makes external Delta tables only)."""

from __future__ import annotations

from dataclasses import dataclass

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.unity_catalog.tables import routes
from workspace_emulator.platform.areas.unity_catalog.tables.model import (
    TABLES,
    Functions,
    Tables,
)
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import UnityCatalog
from workspace_emulator.platform.fidelity import stateful


@dataclass(frozen=True)
class TablesAndFunctions:
    tables: Tables
    functions: Functions


def _open(context: AreaContext) -> TablesAndFunctions:
    unity_catalog = context.state(UnityCatalog)
    return TablesAndFunctions(Tables(context.db, unity_catalog),
                              Functions(context.db, unity_catalog))


AREA = Area(
    name="tables",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=112,
    support={
        "POST /unity-catalog/tables": stateful(
            "external Delta tables only, as the service's API (other types: the tests' "
            "hook ws.tables.tables.add); USE_CATALOG, USE_SCHEMA, CREATE_TABLE or the "
            "schema's owner"),
        "GET /unity-catalog/tables": stateful("a schema's tables, views and materialized "
                                              "views; one page"),
        "GET /unity-catalog/tables/{full_name}": stateful("catalog.schema.table, any case"),
        "GET /unity-catalog/tables/{full_name}/exists": stateful("table_exists"),
        "DELETE /unity-catalog/tables/{full_name}": stateful("its grants go with it"),
        "POST /unity-catalog/functions": stateful(
            "function_info; the body stored, never run; CREATE_FUNCTION"),
        "GET /unity-catalog/functions": stateful("a schema's functions; one page"),
        "GET /unity-catalog/functions/{name}": stateful("catalog.schema.function, any case"),
        "DELETE /unity-catalog/functions/{name}": stateful("its grants go with it"),
    },
)
