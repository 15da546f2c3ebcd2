"""The permissions of jobs (`job_permissions_api(client)`): the permissions area of object type
`jobs`; other types' are `client.permissions(<object type>)`."""

from __future__ import annotations

from providers.client.calls import Calls
from providers.client.permissions import JOBS, PermissionsApi


def job_permissions_api(client: Calls) -> PermissionsApi:
    return PermissionsApi(client, JOBS)
