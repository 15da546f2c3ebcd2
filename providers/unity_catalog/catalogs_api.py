"""The catalogs area of the REST API (Unity Catalog): catalogs (create, read, update,
delete), a catalog's isolation mode and its workspace bindings. The wire forms spell a
binding's workspace id (string or integer) and an unbind (`unassign_workspaces` or
`remove`) differently; bindings come back with integer workspace ids in either form."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls
from providers.client.wire import BINDING_READ_WRITE, parse_binding_workspace_id

CATALOGS_PATH = "/api/2.1/unity-catalog/catalogs"
BINDINGS_PATH = "/api/2.1/unity-catalog/bindings/catalog"

Objects = list[dict[str, Any]]


class CatalogsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"CatalogsApi({self.client!r})"

    def list(self) -> Objects:
        """Every catalog the caller may see, all pages."""
        found: Objects = []
        params: dict[str, Any] = {}
        while True:
            page = self.client.get(CATALOGS_PATH, params or None)
            found += page.get("catalogs") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {"page_token": token}

    def get(self, name: str) -> dict[str, Any]:
        return self.client.get(_catalog_path(name))

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """The catalog made from a create body (`name`, `comment`, `properties`, ...). Not
        repeated after a lost answer: the kind looks for what it made (create_or_adopt)."""
        return self.client.post(CATALOGS_PATH, body)

    def update(self, name: str, fields: dict[str, Any]) -> dict[str, Any]:
        """Change the given fields (`comment`, `owner`, `new_name`, ...), keep the rest."""
        return self.client.patch(_catalog_path(name), fields)

    def delete(self, name: str, force: bool = False) -> None:
        """Delete the catalog; `force`: with everything it holds."""
        params = {"force": "true"} if force else None
        self.client.request("DELETE", _catalog_path(name), params=params, idempotent=True)

    def update_isolation(self, name: str, isolation_mode: str) -> None:
        """Make the catalog ISOLATED (only bound workspaces see it) or OPEN."""
        self.client.patch(_catalog_path(name), {"isolation_mode": isolation_mode})

    def get_bindings(self, name: str) -> Objects:
        """The catalog's workspace bindings (`workspace_id` an int, `binding_type`)."""
        return [
            {**binding, "workspace_id": parse_binding_workspace_id(binding["workspace_id"])}
            for binding in self.client.get(_bindings_path(name)).get("bindings") or []
        ]

    def bind(
        self, name: str, workspace_ids: Iterable[int], binding_type: str = BINDING_READ_WRITE
    ) -> None:
        """Bind the workspaces with `binding_type` (one that is bound already takes it)."""
        body = self.client.wire.bind_body(workspace_ids, binding_type)
        self.client.patch(_bindings_path(name), body)

    def unbind(
        self, name: str, workspace_ids: Iterable[int], binding_type: str = BINDING_READ_WRITE
    ) -> None:
        body = self.client.wire.unbind_body(workspace_ids, binding_type)
        self.client.patch(_bindings_path(name), body)


def _catalog_path(name: str) -> str:
    return f"{CATALOGS_PATH}/{quote(name, safe='')}"


def _bindings_path(name: str) -> str:
    return f"{BINDINGS_PATH}/{quote(name, safe='')}"
