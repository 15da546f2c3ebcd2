"""Grants on Unity Catalog securables as the Grants and Grant kinds read and change them: the
securable types, their privileges, who holds what, and the change between two sets."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from providers.core.create_or_adopt import create_or_adopt
from providers.unity_catalog.uc_privileges import (
    full_name_of,
    principal_key,
    privilege_problem,
    securable_type_of,
)

if TYPE_CHECKING:
    pass


# The config lists whose objects grants may name: a grant waits for them (and goes first on
# destroy). Lists the stack does not have are skipped.
SECURABLE_LISTS = ("catalogs", "schemas", "volumes", "storageCredentials", "externalLocations",
                   "registeredModels", "connections")
# Securable type (as `securable_type` spells it, folded) -> the config list declaring its
# objects: a full name of that type names an item of the list (Kind.names).
SECURABLES_BY_TYPE = {
    "catalog": "catalogs", "schema": "schemas", "volume": "volumes",
    "storage_credential": "storageCredentials", "external_location": "externalLocations",
    "credential": "serviceCredentials", "function": "registeredModels",
    "connection": "connections",
}


# principal key -> (principal as named, its privileges)
Held = dict[str, tuple[str, set[str]]]


def principal_name(value: str) -> str:
    if not value or value != value.strip():
        raise ValueError(
            "must be a user name, a group name or a service principal's application id, "
            "without surrounding spaces"
        )
    return principal_key(value)


def privilege_list(value: list[str]) -> list[str]:
    if not value:
        raise ValueError("give at least one privilege")
    repeated = sorted({p for p in value if value.count(p) > 1})
    if repeated:
        raise ValueError(f"lists {', '.join(repeated)} more than once")
    return value


class SecurableModel(BaseModel):
    """The securable a grant is on: its type and its full name."""

    model_config = ConfigDict(extra="forbid")

    securable_type: str
    full_name: str

    @field_validator("securable_type")
    @classmethod
    def _type(cls, value: str) -> str:
        return securable_type_of(value)

    @field_validator("full_name")
    @classmethod
    def _full_name(cls, value: str, info: ValidationInfo) -> str:
        securable_type = info.data.get("securable_type")
        if securable_type is None:
            return value
        return full_name_of(securable_type, value)


def privilege_rules(
    securable_type: str, privileges: Iterable[str], path: str
) -> list[tuple[str, str]]:
    return [
        (f"{path}.{index}", problem)
        for index, privilege in enumerate(privileges)
        if (problem := privilege_problem(privilege, securable_type))
    ]


def split_id(id_: str) -> tuple[str, str]:
    """`<securable type>/<full name>` -> (type, full name as the service keys it)."""
    securable_type, _, full_name = id_.partition("/")
    try:
        securable_type = securable_type_of(securable_type)
        return securable_type, full_name_of(securable_type, full_name)
    except ValueError as error:
        raise ValueError(
            f"a Grants id is <securable type>/<full name> (e.g. schema/main.sales): {error}"
        ) from None


def held(assignments: Iterable[Mapping[str, Any]]) -> Held:
    """Direct assignments (the service's or a spec's) by principal key; none empty."""
    found: Held = {}
    for assignment in assignments:
        name = str(assignment.get("principal") or "")
        privileges = set(assignment.get("privileges") or [])
        if name and privileges:
            key = principal_key(name)
            found[key] = (key, found.get(key, (key, set()))[1] | privileges)
    return found


def changes_between(now: Held, wanted: Held, principals: Iterable[str]) -> list[dict[str, Any]]:
    """The PATCH changes that take the `principals` (keys) from `now` to `wanted`."""
    changes = []
    for key in sorted(set(principals)):
        has = now.get(key, (key, set()))[1]
        wants = wanted.get(key, (key, set()))[1]
        change: dict[str, Any] = {"principal": (wanted.get(key) or now.get(key) or (key,))[0]}
        if wants - has:
            change["add"] = sorted(wants - has)
        if has - wants:
            change["remove"] = sorted(has - wants)
        if len(change) > 1:
            changes.append(change)
    return changes


def converge(apply: Any) -> Any:
    """`apply()` (read, then send the difference), once more after an answer that leaves
    open whether it took effect: the second read finds what the first one did."""
    return create_or_adopt(apply, lambda: None)[0]
