"""The entitlements of a SCIM principal (`EntitlementsApi(client)`): a group's, a user's or a
service principal's, read and changed with PatchOp operations that name each one."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from providers.client.calls import Calls
from providers.client.wire import SCIM_BASE
from providers.identity.scim_api import PATCH_OP_SCHEMA, quoted


class EntitlementsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"EntitlementsApi({self.client!r})"

    def held(self, collection: str, principal_id: str) -> list[str]:
        """The principal's entitlements (`collection`: Groups, Users, ServicePrincipals)."""
        resource = self.client.get(f"{SCIM_BASE}/{collection}/{principal_id}")
        return sorted(str(e.get("value")) for e in resource.get("entitlements") or [])

    def change(self, collection: str, principal_id: str, add: Iterable[str],
               remove: Iterable[str]) -> None:
        """One PATCH adding and removing the entitlements named (no call where none)."""
        added, removed = list(add), list(remove)
        operations: list[dict[str, Any]] = []
        if added:
            operations.append({"op": "add", "path": "entitlements",
                               "value": [{"value": e} for e in added]})
        operations += [{"op": "remove", "path": f"entitlements[value eq {quoted(e)}]"}
                       for e in removed]
        if operations:
            self.client.patch(f"{SCIM_BASE}/{collection}/{principal_id}",
                              {"schemas": [PATCH_OP_SCHEMA], "Operations": operations})
