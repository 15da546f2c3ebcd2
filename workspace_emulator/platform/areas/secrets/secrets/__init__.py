"""The secrets of a scope and its access-control list (model.py): values never logged nor
echoed."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, Mount
from workspace_emulator.platform.areas.secrets.secrets import routes
from workspace_emulator.platform.areas.secrets.secrets.model import TABLES, Secrets
from workspace_emulator.platform.fidelity import stateful

AREA = Area(
    name="secrets",
    open=lambda context: Secrets(context.db, context.directory),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=40,
    support={
        "POST /secrets/put": stateful("string or bytes; WRITE needed; values never logged"),
        "GET /secrets/list": stateful("keys and timestamps only; READ needed"),
        "GET /secrets/get": stateful("the value, base64; READ needed"),
        "POST /secrets/delete": stateful("WRITE needed"),
        "POST /secrets/acls/put": stateful("READ, WRITE or MANAGE; MANAGE needed"),
        "GET /secrets/acls/get": stateful(""),
        "GET /secrets/acls/list": stateful("MANAGE needed"),
        "POST /secrets/acls/delete": stateful(""),
    },
)
