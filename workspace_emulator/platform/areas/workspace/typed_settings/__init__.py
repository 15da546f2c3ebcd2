"""Typed workspace settings: each setting type's message, default and etag (model.py), and
their routes (routes.py)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, Mount
from workspace_emulator.platform.areas.workspace.typed_settings import routes
from workspace_emulator.platform.areas.workspace.typed_settings.model import TABLES, TypedSettings
from workspace_emulator.platform.fidelity import stateful

AREA = Area(
    name="typed_settings",
    open=lambda context: TypedSettings(context.db),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=92,
    support={
        "GET /settings/types/{type_name}/names/default": stateful(
            "13 workspace setting types; a setting never written reads as a new workspace's "
            "default (the service answers NOT_FOUND for an unset default namespace) with its "
            "etag"),
        "PATCH /settings/types/{type_name}/names/default": stateful(
            "allow_missing, field_mask (paths or *) and setting; a stale etag 409 "
            "RESOURCE_CONFLICT; values checked per field; a new etag"),
        "DELETE /settings/types/{type_name}/names/default": stateful(
            "the default back; a stale etag 409 RESOURCE_CONFLICT; the types without a "
            "DELETE (automatic cluster update, compliance security profile, enhanced "
            "security monitoring) 404"),
    },
)
