"""Access-control lists as the permissions API keeps them, for jobs and (with their own
levels, areas/object_permissions) every other object type: at most one IS_OWNER (a user or
service principal, never a group; a job has exactly one), the admins group with an inherited
CAN_MANAGE, and direct entries for users, groups and service principals.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from workspace_emulator.errors import InvalidParameter
from workspace_emulator.platform.directory import ADMINS_GROUP, Caller, Directory

LEVELS = ("CAN_VIEW", "CAN_MANAGE_RUN", "CAN_MANAGE", "IS_OWNER")
RANK = {level: rank for rank, level in enumerate(LEVELS, start=1)}
OWNER = "IS_OWNER"
KIND_BY_FIELD = {"user_name": "user", "group_name": "group",
                 "service_principal_name": "service_principal"}
FIELD_BY_KIND = {kind: field for field, kind in KIND_BY_FIELD.items()}


@dataclass(frozen=True)
class AclEntry:
    kind: str  # user | group | service_principal
    name: str  # user name, group display name, or application id
    level: str

    @property
    def principal(self) -> tuple[str, str]:
        return (self.kind, self.name)

    def to_doc(self) -> dict[str, str]:
        return {"kind": self.kind, "name": self.name, "level": self.level}

    @classmethod
    def from_doc(cls, doc: dict[str, str]) -> AclEntry:
        return cls(doc["kind"], doc["name"], doc["level"])


def _principal_kind(kind: str, name: str, directory: Directory) -> str:
    """A `user_name` that is a service principal's application id names that principal.

    The service's SCIM `Me` gives a service principal's application id as its `userName`,
    and clients name the caller by it (the Terraform provider adds the caller, or a job's
    creator, as `user_name`); the service resolves it to the service principal.
    """
    if kind == "user" and directory.user_by_name(name) is None and \
            directory.principal_exists("service_principal", name):
        return "service_principal"
    return kind


def parse_request(
    entries: Any, directory: Directory, levels: tuple[str, ...] = LEVELS, noun: str = "job",
) -> list[AclEntry]:
    """The entries of an access_control_list request, validated against `levels` (the levels
    of the object's type)."""
    if not isinstance(entries, list):
        raise InvalidParameter("access_control_list must be a list")
    parsed = []
    for index, entry in enumerate(entries):
        where = f"access_control_list[{index}]"
        if not isinstance(entry, dict):
            raise InvalidParameter(f"{where} must be an object")
        named = [(field, entry[field]) for field in KIND_BY_FIELD if entry.get(field) is not None]
        if len(named) != 1:
            raise InvalidParameter(
                f"{where} must name exactly one of user_name, group_name, service_principal_name"
            )
        field, name = named[0]
        level = entry.get("permission_level")
        if not isinstance(name, str) or not name:
            raise InvalidParameter(f"{where}.{field} must be a non-empty string")
        if level not in levels:
            raise InvalidParameter(
                f"{where}.permission_level must be one of {', '.join(levels)} for a {noun}, "
                f"got {level!r}"
            )
        kind = _principal_kind(KIND_BY_FIELD[field], name, directory)
        if not directory.principal_exists(kind, name):
            raise InvalidParameter(f"Principal: {field}={name} does not exist")
        if kind == "group" and level == OWNER:
            raise InvalidParameter(f"Group {name} cannot be the owner of a {noun}")
        parsed.append(AclEntry(kind, name, level))
    if sum(1 for entry in parsed if entry.level == OWNER) > 1:
        raise InvalidParameter(
            f"A {noun} must have exactly one owner; the request names several")
    return parsed


def _merged(entries: Iterable[AclEntry]) -> list[AclEntry]:
    """Last entry per principal wins; order of first appearance kept."""
    by_principal: dict[tuple[str, str], AclEntry] = {}
    for entry in entries:
        by_principal[entry.principal] = entry
    return list(by_principal.values())


def _with_single_owner(entries: list[AclEntry], new_owner: AclEntry | None) -> list[AclEntry]:
    if new_owner is None:
        return entries
    return [e for e in entries if e.level != OWNER or e.principal == new_owner.principal]


def patched(current: list[AclEntry], changes: list[AclEntry]) -> list[AclEntry]:
    """PATCH: named entries are added or changed, the rest kept; a new owner replaces the old."""
    new_owner = next((e for e in changes if e.level == OWNER), None)
    return _with_single_owner(_merged([*current, *changes]), new_owner)


def replaced(current: list[AclEntry], entries: list[AclEntry]) -> list[AclEntry]:
    """PUT: the direct entries become `entries`; without an owner among them, the owner stays."""
    if any(e.level == OWNER for e in entries):
        return _merged(entries)
    owner = next((e for e in current if e.level == OWNER), None)
    if owner is None:  # a type without owners
        return _merged(entries)
    others = [e for e in _merged(entries) if e.principal != owner.principal]
    return [owner, *others]


def effective_rank(entries: list[AclEntry], caller: Caller) -> int:
    rank = 0
    for entry in entries:
        if (entry.kind == "service_principal" and entry.name == caller.application_id) or (
            entry.kind == "group" and entry.name in caller.group_names
        ):
            rank = max(rank, RANK[entry.level])
    if caller.is_admin:
        rank = max(rank, RANK["CAN_MANAGE"])
    return rank


def render(
    job_id: int | str, entries: list[AclEntry], directory: Directory, *,
    root: str = "/jobs/", object_type: str = "job",
) -> dict[str, Any]:
    """The GET answer: `root` is the path the admins' CAN_MANAGE is inherited from, which
    prefixes the object's id."""
    acl = []
    admins_direct = None
    for entry in entries:
        item: dict[str, Any] = {FIELD_BY_KIND[entry.kind]: entry.name}
        display_name = directory.display_name_of(entry.kind, entry.name)
        if display_name:
            item["display_name"] = display_name
        item["all_permissions"] = [{"permission_level": entry.level, "inherited": False}]
        if entry.principal == ("group", ADMINS_GROUP):
            admins_direct = item
        acl.append(item)
    inherited = {"permission_level": "CAN_MANAGE", "inherited": True,
                 "inherited_from_object": [root]}
    if admins_direct is not None:
        admins_direct["all_permissions"].append(inherited)
    else:
        acl.append({"group_name": ADMINS_GROUP, "all_permissions": [inherited]})
    return {"object_id": f"{root}{job_id}", "object_type": object_type,
            "access_control_list": acl}
