"""The permissions of jobs (`client.job_permissions`): the permissions area of object type
`jobs`; other types' are `client.permissions(<object type>)`."""

from __future__ import annotations

from providers.client.calls import Calls
from providers.client.permissions import JOBS, PermissionsApi


def AREA(client: Calls) -> PermissionsApi:  # noqa: N802 - named as every area's maker is
    return PermissionsApi(client, JOBS)
