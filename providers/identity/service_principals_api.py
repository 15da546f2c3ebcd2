"""The service principals area of the REST API (SCIM): one call per operation.

Resources go in and come out as SCIM resources (`applicationId`, `displayName`, ...). Only
a delete differs between the wire forms: it names the principal by its application id in
the legacy form, by the workspace's own id in the public form.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls
from providers.client.wire import SCIM_SERVICE_PRINCIPALS
from providers.identity.scim_api import PATCH_OP_SCHEMA, list_resources, quoted

SCIM_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServicePrincipal"


Resources = list[dict[str, Any]]  # (`list` is a method's name in the class below)


class ServicePrincipalsApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ServicePrincipalsApi({self.client!r})"

    def list(self, scim_filter: str | None = None) -> list[dict[str, Any]]:
        """Every resource (matching `scim_filter`, e.g. `displayName eq "etl"`), all pages."""
        return list_resources(self.client, SCIM_SERVICE_PRINCIPALS, scim_filter)

    def named(self, display_name: str) -> Resources:
        """The principals whose display name is exactly `display_name` (SCIM compares names
        without regard to case; these are the ones that match it as written)."""
        listed = self.list(f"displayName eq {quoted(display_name)}")
        return [p for p in listed if p.get("displayName") == display_name]

    def list_unless_more_than(self, most: int) -> Resources | None:
        """Every resource, or None (after the first page) when there are more than `most`."""
        return list_resources(self.client, SCIM_SERVICE_PRINCIPALS, most=most)

    def get(self, principal_id: str) -> dict[str, Any]:
        return self.client.get(_path(principal_id))

    def create(self, resource: Mapping[str, Any]) -> dict[str, Any]:
        """Add the principal; the resource made. Not repeated after a lost answer (the
        workspace holds one principal per application id: a second try answers 409)."""
        return self.client.post(SCIM_SERVICE_PRINCIPALS, dict(resource))

    def patch(self, principal_id: str, operations: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        """Apply SCIM PatchOp operations (`{op, path, value}`)."""
        body = {"schemas": [PATCH_OP_SCHEMA], "Operations": [dict(op) for op in operations]}
        return self.client.patch(_path(principal_id), body)

    def replace(self, principal_id: str, resource: Mapping[str, Any]) -> dict[str, Any]:
        """PUT the whole resource; the resource as it then stands (read back when the
        service answers without it)."""
        replaced = self.client.put(_path(principal_id), dict(resource))
        return replaced or self.get(principal_id)

    def delete(self, principal_id: str, application_id: str) -> None:
        """Remove the principal from the workspace (never from the identity provider)."""
        self.client.delete(self.client.wire.principal_delete_path(application_id, principal_id))


def _path(principal_id: str) -> str:
    return f"{SCIM_SERVICE_PRINCIPALS}/{quote(str(principal_id), safe='')}"
