"""What the Query and Alert kinds share: objects of the SQL API in a workspace folder,
changed by an update mask naming the changed fields only, trashed on delete, and found again
after a create whose answer was lost.

- **Folders.** `parent_path` is an absolute workspace path, recorded without the
  `/Workspace` prefix and a trailing slash; the folder must exist (a Directory item of the
  stack, or one every workspace has). Left out, the service puts the object in the caller's
  home folder. It cannot be changed in place: another folder replaces the object.
- **Updates.** The update mask names the spec keys whose declared value differs from the
  recorded one, as the API's fields; a key declared before and left out now is named
  without a value, which clears it.
- **Trash.** A delete moves the object to the trash; an object read in the trash is gone.
- **Left-overs.** A create answered in a way that leaves open whether it was made adopts an
  active object of the declared display name and folder that the stack's principal owns and
  that holds what the create sent: what an interrupted run leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

TRASHED = "TRASHED"


def is_trashed(found: Mapping[str, Any]) -> bool:
    return found.get("lifecycle_state") == TRASHED


def changed_fields(recorded: Mapping[str, Any], desired: Mapping[str, Any],
                   updatable: Iterable[str], field_of: Mapping[str, str] | None = None
                   ) -> list[str]:
    """The update mask: the API's fields of the updatable spec keys whose desired value is
    not the recorded one (`field_of` renames a spec key: a digest names the text)."""
    names = field_of or {}
    return sorted({names.get(key, key) for key in updatable
                   if desired.get(key) != recorded.get(key)})


def left_over(client: WorkspaceClient, listed: Iterable[dict[str, Any]],
              sent: Mapping[str, Any], compared: tuple[str, ...]) -> dict[str, Any] | None:
    """The active object a lost create of `sent` (the create body) made: of the declared
    display name and folder, owned by the stack's principal, holding the `compared` fields
    as sent."""
    caller = (client.connection.client_id or "").lower()
    for found in listed:
        if is_trashed(found) or found.get("display_name") != sent.get("display_name"):
            continue
        if sent.get("parent_path") and found.get("parent_path") != sent["parent_path"]:
            continue
        owner = str(found.get("owner_user_name") or "").lower()
        if caller and owner and owner != caller:
            continue
        if all(found.get(key) == sent.get(key) for key in compared):
            return found
    return None


def unique_names(values: list[Any], name_of: Callable[[Any], Any], where: str
                 ) -> list[tuple[str, str]]:
    """(path, reason) for each element whose name an earlier one has."""
    seen: set[Any] = set()
    problems = []
    for index, value in enumerate(values):
        name = name_of(value)
        if name in seen:
            problems.append((f"{where}[{index}].name", f"{name!r} is declared twice"))
        seen.add(name)
    return problems
