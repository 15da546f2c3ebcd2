"""A service principal created by its display name alone, where the service assigns the
application id (AWS, GCP).

Without an application id the workspace has no natural key of the principal: it takes
any number of principals of one display name. The display name stands in for one, and
only where it names a single principal:

- before the create, the name is looked up: one principal of that name is adopted (what a
  create whose answer was lost leaves behind, found on the next run); several are refused,
  as the one to manage cannot be told;
- after an answer that leaves open whether the principal was made (a 5xx, a dropped
  connection), the name is looked up again the same way before the create is sent again.

The price: a fresh create lists the name first (2 calls), and a principal of that name
someone else added is adopted as well (destroy then removes it from the workspace), as a
declared application id adopts one too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from providers.client import AlreadyExists
from providers.core.create_or_adopt import create_or_adopt
from providers.identity.service_principals_api import ServicePrincipalsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient


class AmbiguousDisplayName(ValueError):
    """Several principals have the display name a principal without application id is
    declared by."""


def create_by_display_name(
    client: WorkspaceClient, display_name: str, body: dict[str, Any]
) -> tuple[dict[str, Any], bool]:
    """(the principal, whether it was there already) for `body`, a SCIM resource without
    `applicationId` whose `displayName` is `display_name`."""
    found = only_one_named(client, display_name)
    if found is not None:
        return found, True
    try:
        return create_or_adopt(
            lambda: ServicePrincipalsApi(client).create(body),
            lambda: only_one_named(client, display_name),
        )
    except AlreadyExists:
        # Not expected of a service that assigns the id; if it says so, the name decides.
        found = only_one_named(client, display_name)
        if found is None:
            raise
        return found, True


def only_one_named(client: WorkspaceClient, display_name: str) -> dict[str, Any] | None:
    """The one principal of that display name, None where there is none; several are an
    error that names them and the ways out."""
    named = ServicePrincipalsApi(client).named(display_name)
    if len(named) > 1:
        ids = ", ".join(sorted(str(p.get("id")) for p in named))
        raise AmbiguousDisplayName(
            f"display_name {display_name!r}: {len(named)} service principals of the workspace "
            f"have this name (ids {ids}), so the one to manage cannot be told; declare "
            "application_id of the one to manage, import it by its id, or give this "
            "principal a display name of its own"
        )
    return named[0] if named else None
