"""The permissions area of the REST API, for jobs: a job's access-control list read, added
to (PATCH) and replaced (PUT)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from providers.client.calls import Calls

JOB_PERMISSIONS_PATH = "/api/2.0/permissions/jobs"


class JobPermissionsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"JobPermissionsApi({self.client!r})"

    def get(self, job_id: int) -> dict[str, Any]:
        """The job's `access_control_list`: every principal's direct and inherited levels."""
        return self.client.get(_path(job_id))

    def update(self, job_id: int, entries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
        """Add or change the given entries (PATCH); the others stay. The permissions after."""
        return self.client.patch(_path(job_id), _body(entries))

    def set(self, job_id: int, entries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
        """Replace every direct entry with the given ones (PUT). The permissions after."""
        return self.client.put(_path(job_id), _body(entries))


def _path(job_id: int) -> str:
    return f"{JOB_PERMISSIONS_PATH}/{int(job_id)}"


def _body(entries: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    return {"access_control_list": [dict(entry) for entry in entries]}
