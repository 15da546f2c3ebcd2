"""The permissions area of the REST API: the access-control list of any object the service's
permissions API serves (`/api/2.0/permissions/<object type>/<id>`: jobs, clusters,
notebooks, ...), read, added to (PATCH) and replaced (PUT), and the levels the service
allows on the object."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

PERMISSIONS_PATH = "/api/2.0/permissions"
JOBS = "jobs"


class PermissionsApi:
    """The permissions of the objects of one type (`jobs`, `clusters`, ...)."""

    def __init__(self, client: Calls, object_type: str) -> None:
        self.client = client
        self.object_type = object_type

    def __repr__(self) -> str:
        return f"PermissionsApi({self.client!r}, {self.object_type!r})"

    def get(self, object_id: str | int) -> dict[str, Any]:
        """The object's `access_control_list`: every principal's direct and inherited levels."""
        return self.client.get(self._path(object_id))

    def update(self, object_id: str | int, entries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
        """Add or change the given entries (PATCH); the others stay. The permissions after."""
        return self.client.patch(self._path(object_id), _body(entries))

    def set(self, object_id: str | int, entries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
        """Replace every direct entry with the given ones (PUT). The permissions after."""
        return self.client.put(self._path(object_id), _body(entries))

    def levels(self, object_id: str | int) -> list[str]:
        """The permission levels the service allows on the object."""
        answer = self.client.get(f"{self._path(object_id)}/permissionLevels")
        return [str(d["permission_level"]) for d in answer.get("permission_levels") or []]

    def _path(self, object_id: str | int) -> str:
        if self.object_type == JOBS:
            return f"{PERMISSIONS_PATH}/{JOBS}/{int(object_id)}"
        return f"{PERMISSIONS_PATH}/{self.object_type}/{quote(str(object_id), safe='')}"


def _body(entries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    return {"access_control_list": [dict(entry) for entry in entries]}
