"""Field validators every domain's input models share."""

from __future__ import annotations


def not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


def no_duplicates(values: list[str] | None) -> list[str] | None:
    if values is not None:
        repeated = sorted({v for v in values if values.count(v) > 1})
        if repeated:
            raise ValueError(f"lists {', '.join(map(repr, repeated))} more than once")
    return values


WORKSPACE_PREFIX = "/Workspace"


def workspace_folder(value: str) -> str:
    """A folder's workspace path as the service records it (no `/Workspace` prefix, no
    trailing slash): where a query, alert or dashboard lives (`parent_path`)."""
    if not value.startswith("/"):
        raise ValueError("must be an absolute workspace path, starting with / (a folder)")
    if value == WORKSPACE_PREFIX or value.startswith(WORKSPACE_PREFIX + "/"):
        value = value[len(WORKSPACE_PREFIX):] or "/"
    if any(part in (".", "..") for part in value.split("/")):
        raise ValueError("must not have . or .. segments")
    return value.rstrip("/") or "/"
