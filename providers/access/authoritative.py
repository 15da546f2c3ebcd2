"""The authoritative mode of an access-control list (Permissions' `authoritative: true`):
only the declared entries remain. What that takes away, named for the warning a preview and
an apply give, and the entries the set (PUT) form of the permissions API is sent.

Who is not "losing" anything: the owner (IS_OWNER, which the set form always carries, since
an object keeps one) and every inherited entry (a folder's, the workspace admins'), which are
not direct entries of the object and which the set form does not change.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pulumi

OWNER = "IS_OWNER"

Principal = tuple[str, str]
Entry = dict[str, str]


def kept_and_declared(
    direct: Mapping[Principal, Entry], declared: Iterable[Entry], principal_of: Any
) -> dict[Principal, Entry]:
    """The entries to set: the owner's as it stands, then each declared one."""
    entries = {p: e for p, e in direct.items() if e["permission_level"] == OWNER}
    for entry in declared:
        principal = principal_of(entry)
        if principal is not None:
            entries[principal] = dict(entry)
    return entries


def dropped(
    direct: Mapping[Principal, Entry], declared: Iterable[Principal]
) -> list[tuple[Principal, str]]:
    """(principal, level) of each direct entry, the owner's aside, that no declared entry
    names: what setting only the declared entries takes away."""
    wanted = set(declared)
    return sorted(
        (principal, entry["permission_level"])
        for principal, entry in direct.items()
        if principal not in wanted and entry["permission_level"] != OWNER
    )


def describe(losers: list[tuple[Principal, str]]) -> list[str]:
    return [f"{field} {name!r} loses {level}" for (field, name), level in losers]


def warn(target: str, losers: list[tuple[Principal, str]]) -> None:
    """A warning naming each principal and level `target` (`jobs/123`) loses; none when no
    one loses anything."""
    if losers:
        pulumi.log.warn(
            f"permissions on {target} are authoritative: {'; '.join(describe(losers))} "
            "(not declared in access_controls)"
        )
