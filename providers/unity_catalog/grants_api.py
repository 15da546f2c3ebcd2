"""Unity Catalog grants: the direct privilege assignments of a securable (any type the
permissions API takes: providers/unity_catalog/uc_privileges.py) and the changes to them.
The path takes the securable type in lower case and its full name; the same in both wire
forms."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

PERMISSIONS_PATH = "/api/2.1/unity-catalog/permissions"

Assignments = list[dict[str, Any]]


class GrantsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"GrantsApi({self.client!r})"

    def get(self, securable_type: str, full_name: str, principal: str | None = None) -> Assignments:
        """The direct assignments `[{principal, privileges}]`, every page; one principal's
        only where `principal` is given (the service matches it as it matches principals)."""
        found: Assignments = []
        params: dict[str, Any] = {}
        if principal is not None:
            params["principal"] = principal
        while True:
            page = self.client.get(_path(securable_type, full_name), params or None)
            found += page.get("privilege_assignments") or []
            token = page.get("next_page_token")
            if not token:
                return found
            params = {**params, "page_token": token}

    def update(
        self, securable_type: str, full_name: str, changes: Iterable[Mapping[str, Any]]
    ) -> None:
        """`changes`: `{principal, add, remove}` each; what is not named is kept."""
        body = {"changes": [dict(change) for change in changes]}
        if body["changes"]:
            self.client.patch(_path(securable_type, full_name), body)


def _path(securable_type: str, full_name: str) -> str:
    return f"{PERMISSIONS_PATH}/{quote(securable_type, safe='')}/{quote(full_name, safe='')}"
