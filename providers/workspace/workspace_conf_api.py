"""The workspace settings area of the REST API: named keys with string values."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from providers.client.calls import Calls

WORKSPACE_CONF_PATH = "/api/2.0/workspace-conf"


class WorkspaceConfApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"WorkspaceConfApi({self.client!r})"

    def get(self, keys: Iterable[str]) -> dict[str, str | None]:
        """Each key's value (None where it holds none)."""
        names = sorted(set(keys))
        if not names:
            return {}
        found: dict[str, Any] = self.client.get(WORKSPACE_CONF_PATH, {"keys": ",".join(names)})
        return {key: None if found.get(key) is None else str(found[key]) for key in names}

    def set(self, values: dict[str, str]) -> None:
        if values:
            self.client.patch(WORKSPACE_CONF_PATH, values)
