"""What the SCIM areas (service principals, groups, users) share: the PatchOp schema and
a listing that follows SCIM's 1-based pages."""

from __future__ import annotations

from typing import Any, overload

from providers.client.calls import Calls

PATCH_OP_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
LIST_PAGE_SIZE = 100


@overload
def list_resources(client: Calls, path: str, scim_filter: str | None = None) -> (
        list[dict[str, Any]]): ...


@overload
def list_resources(client: Calls, path: str, scim_filter: str | None = None, *,
                   most: int) -> list[dict[str, Any]] | None: ...


def list_resources(
    client: Calls, path: str, scim_filter: str | None = None, *, most: int | None = None
) -> list[dict[str, Any]] | None:
    """Every resource at `path` (matching `scim_filter`, e.g. `displayName eq "etl"`), all
    pages; None, after the first page, when there are more than `most`."""
    found: list[dict[str, Any]] = []
    while True:
        params: dict[str, Any] = {"startIndex": len(found) + 1, "count": LIST_PAGE_SIZE}
        if scim_filter is not None:
            params["filter"] = scim_filter
        page = client.get(path, params)
        resources = page.get("Resources") or []
        total = int(page.get("totalResults") or 0)
        if most is not None and total > most:
            return None
        found += resources
        if not resources or len(found) >= total:
            return found


def quoted(value: str) -> str:
    """`value` as a SCIM filter's string literal."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'
