"""Unity Catalog workspace bindings of any bindable securable (a catalog, an external
location, a storage credential, a service credential) and the isolation mode that makes
them count. The wire forms spell a binding's workspace id and an unbind differently
(`providers.client.wire`); bindings come back with integer workspace ids in either form.

A catalog's isolation mode is `OPEN` or `ISOLATED`; the other securables spell theirs
`ISOLATION_MODE_OPEN` or `ISOLATION_MODE_ISOLATED`. This area takes and gives the short
spelling for every type."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls
from providers.client.wire import BINDING_READ_WRITE, parse_binding_workspace_id

UNITY_CATALOG = "/api/2.1/unity-catalog"
BINDINGS_PATH = f"{UNITY_CATALOG}/bindings"
# securable type -> where the securable itself is read and changed
OBJECT_PATHS = {
    "catalog": f"{UNITY_CATALOG}/catalogs",
    "external_location": f"{UNITY_CATALOG}/external-locations",
    "storage_credential": f"{UNITY_CATALOG}/storage-credentials",
    "credential": f"{UNITY_CATALOG}/credentials",
}
BINDABLE = tuple(OBJECT_PATHS)
_LONG_MODES = ("ISOLATION_MODE_OPEN", "ISOLATION_MODE_ISOLATED")

Objects = list[dict[str, Any]]


class BindingsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"BindingsApi({self.client!r})"

    def get_securable(self, securable_type: str, name: str) -> dict[str, Any]:
        """The securable, its `isolation_mode` in the short spelling (OPEN, ISOLATED)."""
        found = dict(self.client.get(_object_path(securable_type, name)))
        if found.get("isolation_mode") in _LONG_MODES:
            found["isolation_mode"] = found["isolation_mode"].removeprefix("ISOLATION_MODE_")
        return found

    def update_isolation(self, securable_type: str, name: str, isolation_mode: str) -> None:
        """`isolation_mode`: OPEN or ISOLATED (sent as the type spells it)."""
        mode = isolation_mode if securable_type == "catalog" else f"ISOLATION_MODE_{isolation_mode}"
        self.client.patch(_object_path(securable_type, name), {"isolation_mode": mode})

    def get(self, securable_type: str, name: str) -> Objects:
        """The securable's workspace bindings (`workspace_id` an int, `binding_type`)."""
        found: Objects = []
        params: dict[str, Any] = {}
        while True:
            page = self.client.get(_bindings_path(securable_type, name), params or None)
            found += [
                {**binding, "workspace_id": parse_binding_workspace_id(binding["workspace_id"])}
                for binding in page.get("bindings") or []
            ]
            token = page.get("next_page_token")
            if not token:
                return found
            params = {"page_token": token}

    def bind(
        self,
        securable_type: str,
        name: str,
        workspace_ids: Iterable[int],
        binding_type: str = BINDING_READ_WRITE,
    ) -> None:
        """Bind the workspaces with `binding_type` (one that is bound already takes it)."""
        body = self.client.wire.bind_body(workspace_ids, binding_type)
        self.client.patch(_bindings_path(securable_type, name), body)

    def unbind(
        self,
        securable_type: str,
        name: str,
        workspace_ids: Iterable[int],
        binding_type: str = BINDING_READ_WRITE,
    ) -> None:
        body = self.client.wire.unbind_body(workspace_ids, binding_type)
        self.client.patch(_bindings_path(securable_type, name), body)


def _object_path(securable_type: str, name: str) -> str:
    return f"{OBJECT_PATHS[securable_type]}/{quote(name, safe='')}"


def _bindings_path(securable_type: str, name: str) -> str:
    return f"{BINDINGS_PATH}/{quote(securable_type, safe='')}/{quote(name, safe='')}"
