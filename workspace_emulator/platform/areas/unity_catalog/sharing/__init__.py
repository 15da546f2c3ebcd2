"""Delta Sharing's shares, recipients and providers (model.py), beside the catalogs of the
unity_catalog area, which reaches them for grants as `share`, `recipient` and `provider`
securables; so this area opens after it."""

from __future__ import annotations

from dataclasses import dataclass

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.unity_catalog.sharing import routes
from workspace_emulator.platform.areas.unity_catalog.sharing.model import (
    TABLES,
    Providers,
    Recipients,
    SharingObjects,
    shares,
)
from workspace_emulator.platform.areas.unity_catalog.unity_catalog.model import UnityCatalog
from workspace_emulator.platform.fidelity import stateful


@dataclass(frozen=True)
class Sharing:
    shares: SharingObjects
    recipients: Recipients
    providers: Providers


def _open(context: AreaContext) -> Sharing:
    unity_catalog = context.state(UnityCatalog)
    return Sharing(shares(context.db, unity_catalog), Recipients(context.db, unity_catalog),
                   Providers(context.db, unity_catalog))


_SUPPORT = {
    "shares": "name, comment, storage_root; CREATE_SHARE on the metastore; its objects "
              "not held",
    "recipients": "authentication_type TOKEN, DATABRICKS (with the recipient's global "
                  "metastore id), OAUTH_CLIENT_CREDENTIALS, OIDC_FEDERATION; a TOKEN one "
                  "answers an activation URL, never a token",
    "providers": "authentication_type; a TOKEN provider needs recipient_profile_str",
}

AREA = Area(
    name="sharing",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=114,
    support={
        key: stateful(note)
        for segment, create_note in _SUPPORT.items()
        for key, note in (
            (f"POST /unity-catalog/{segment}", create_note),
            (f"GET /unity-catalog/{segment}", "one page"),
            (f"GET /unity-catalog/{segment}/{{name}}", "any case"),
            (f"PATCH /unity-catalog/{segment}/{{name}}", "comment, owner, new_name (grants "
                                                          "follow)"),
            (f"DELETE /unity-catalog/{segment}/{{name}}", "its grants go with it"),
        )
    },
)
