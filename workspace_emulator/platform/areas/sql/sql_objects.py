"""What the SQL API's queries and alerts share (and Lakeview dashboards, which live the same
way): objects in a workspace folder, changed by an update mask, trashed rather than deleted,
listed page by page.

- **Folders.** `parent_path` names a folder of the workspace tree, which must be there; left
  out, the caller's home folder.
- **Update masks.** An update names the fields it changes (`update_mask`, comma-separated, or
  `*` for every updatable field): a field named but not given is cleared, a field given but
  not named is left as it is, a field that cannot be updated is refused by name.
- **Trash.** A delete moves the object to the trash (`lifecycle_state` TRASHED): a get still
  answers it, a list, an update and a second delete do not see it.
- **Pages.** `page_size` (at most 100) and the `page_token` of the previous page.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import InvalidParameter, NotFound, ServiceError
from workspace_emulator.platform.area import AreaContext
from workspace_emulator.platform.areas.workspace.workspace_objects.model import WorkspaceObjects

MAX_PAGE_SIZE = 100
DEFAULT_PAGE_SIZE = 20
ACTIVE, TRASHED = "ACTIVE", "TRASHED"


def timestamp() -> str:
    """The current time as the service writes it (RFC 3339, UTC, milliseconds)."""
    moment = datetime.datetime.fromtimestamp(clock.now_ms() / 1000, datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def home_folder(application_id: str) -> str:
    return f"/Users/{application_id}"


def parent_folder(given: Any, application_id: str,
                  folder_exists: Callable[[str], bool]) -> str:
    """The folder an object is made in: `parent_path` (an existing folder), or the caller's
    home folder."""
    if given is None:
        return home_folder(application_id)
    if not isinstance(given, str) or not given.startswith("/"):
        raise InvalidParameter("'parent_path' must be an absolute workspace path")
    path = given.rstrip("/") or "/"
    if path.startswith("/Workspace/"):
        path = path[len("/Workspace"):]
    if not folder_exists(path):
        raise NotFound(f"Path ({path}) doesn't exist.")
    return path


def mask_fields(update_mask: Any, updatable: tuple[str, ...]) -> list[str]:
    """The fields an update mask names; `*` every updatable one."""
    if not isinstance(update_mask, str) or not update_mask.strip():
        raise InvalidParameter(
            "Field 'update_mask' is required: the comma-separated fields to update, or *")
    if update_mask.strip() == "*":
        return list(updatable)
    named = [part.strip() for part in update_mask.split(",") if part.strip()]
    unknown = [name for name in named if name not in updatable]
    if unknown:
        raise InvalidParameter(
            f"update_mask names fields that cannot be updated: {', '.join(unknown)} "
            f"(updatable: {', '.join(updatable)})")
    return named


def masked(doc: dict[str, Any], given: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    """The object with each masked field as given: one the update leaves out is cleared."""
    changed = dict(doc)
    for name in fields:
        if given.get(name) is None:
            changed.pop(name, None)
        else:
            changed[name] = given[name]
    return changed


def page(items: list[dict[str, Any]], page_size: int | None, page_token: str | None,
         ) -> tuple[list[dict[str, Any]], str | None]:
    """One page of `items` and the token of the next one (None on the last)."""
    size = DEFAULT_PAGE_SIZE if not page_size else page_size
    if size < 0 or size > MAX_PAGE_SIZE:
        raise InvalidParameter(f"page_size must be between 0 and {MAX_PAGE_SIZE}")
    try:
        start = int(page_token) if page_token else 0
    except ValueError:
        raise InvalidParameter(f"Invalid page_token: {page_token}") from None
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


def text(settings: dict[str, Any], field: str) -> None:
    value = settings.get(field)
    if value is not None and not isinstance(value, str):
        raise InvalidParameter(f"'{field}' must be a string")


def required_text(settings: dict[str, Any], field: str) -> str:
    value = settings.get(field)
    if not isinstance(value, str) or not value.strip():
        raise InvalidParameter(f"Missing required field: {field}")
    return value


def boolean(settings: dict[str, Any], field: str) -> None:
    value = settings.get(field)
    if value is not None and not isinstance(value, bool):
        raise InvalidParameter(f"'{field}' must be a boolean")


def one_of(settings: dict[str, Any], field: str, allowed: tuple[str, ...]) -> None:
    value = settings.get(field)
    if value is not None and value not in allowed:
        raise InvalidParameter(f"'{field}' must be one of {', '.join(allowed)}, not {value!r}")


def folder_checker(context: AreaContext) -> Callable[[str], bool]:
    """Whether a folder of this path is in the workspace tree (an area's `AreaContext`)."""
    tree = context.state(WorkspaceObjects)

    def folder_exists(path: str) -> bool:
        try:
            return bool(tree.get_status(path).get("object_type") == "DIRECTORY")
        except ServiceError:
            return False

    return folder_exists
