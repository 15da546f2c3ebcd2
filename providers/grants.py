"""Grants: every direct privilege on one Unity Catalog securable (a catalog, a schema, a
volume, an external location, a storage credential, a service credential), authoritatively.

The declared `privilege_assignments` are all the direct grants the securable keeps: a
privilege granted outside the stack, or to a principal the stack does not declare, is
revoked by the next update, and the preview says who loses what (a warning naming each
principal, and the changed field). Privileges compare as sets, each principal once, named
as the service matches it: a user's name (an email address) without regard to case.
Privileges are checked per securable type before any call (`providers.uc_privileges`).

Create and update read the grants and send only the difference in one PATCH
(`changes[{principal, add, remove}]`), so a create repeated after an interrupted run finds
its grants made and sends nothing. Delete revokes what the resource recorded. Another
securable replaces the resource. The id is `<securable type>/<full name>`.

Grant (providers/grant.py) is the additive kind: one principal's privileges, never touching
the others'.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from providers.create_or_adopt import create_or_adopt
from providers.kind import declare
from providers.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, user_inputs
from providers.uc_names import is_service_catalog, schema_full_names, volume_full_names
from providers.uc_privileges import (
    full_name_of,
    principal_key,
    privilege_problem,
    securable_type_of,
)

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# The config lists whose objects grants may name: a grant waits for them (and goes first on
# destroy). Lists the stack does not have are skipped.
SECURABLE_LISTS = ("catalogs", "schemas", "volumes", "storageCredentials", "externalLocations")

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


class PrivilegeAssignmentModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    principal: str
    privileges: list[str]

    _principal = field_validator("principal")(principal_name)
    _privileges = field_validator("privileges")(privilege_list)


class GrantsModel(SecurableModel):
    privilege_assignments: list[PrivilegeAssignmentModel]

    @field_validator("privilege_assignments")
    @classmethod
    def _each_principal_once(
        cls, value: list[PrivilegeAssignmentModel]
    ) -> list[PrivilegeAssignmentModel]:
        first: dict[str, int] = {}
        for index, assignment in enumerate(value):
            if assignment.principal in first:
                raise ValueError(
                    f"entries {first[assignment.principal]} and {index} both name "
                    f"{assignment.principal!r}; give each principal once"
                )
            first[assignment.principal] = index
        return value


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


def assignments_spec(grants: Held) -> list[dict[str, Any]]:
    return [
        {"principal": name, "privileges": sorted(privileges)}
        for name, privileges in (grants[key] for key in sorted(grants))
    ]


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


def assignment_changes(before: Held, after: Held) -> list[tuple[str, Any, Any]]:
    """(principal, privileges before, after) per principal whose privileges differ."""
    return [
        (
            key,
            sorted(before[key][1]) if key in before else None,
            sorted(after[key][1]) if key in after else None,
        )
        for key in sorted(set(before) | set(after))
        if before.get(key, (key, set()))[1] != after.get(key, (key, set()))[1]
    ]


class GrantsProvider(WorkspaceProvider):
    args_model = GrantsModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"securable_type", "full_name"})
    matched_without_case = frozenset({"full_name"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = GrantsModel.model_validate(inputs)
        problems = []
        for index, assignment in enumerate(args.privilege_assignments):
            problems += privilege_rules(
                args.securable_type,
                assignment.privileges,
                f"privilege_assignments.{index}.privileges",
            )
        return problems

    def spec(self, args: GrantsModel) -> Spec:
        wanted = held(a.model_dump() for a in args.privilege_assignments)
        return {
            "securable_type": args.securable_type,
            "full_name": args.full_name,
            "privilege_assignments": assignments_spec(wanted),
        }

    @classmethod
    def field_changes(cls, recorded, new_inputs):
        try:
            desired = cls().spec(GrantsModel.model_validate(user_inputs(new_inputs)))
        except ValueError:
            return None
        changes = [
            (k, recorded.get(k), desired[k])
            for k in ("securable_type", "full_name")
            if recorded.get(k) != desired[k]
        ]
        before = held(recorded.get("privilege_assignments") or [])
        after = held(desired["privilege_assignments"])
        changes += [
            (f"privilege_assignments[{principal}]", old, new)
            for principal, old, new in assignment_changes(before, after)
        ]
        return changes

    def describe_changes(
        self,
        result: KeyedDiffResult,
        recorded: Spec,
        desired: Spec,
        news: Mapping[str, Any],
        olds: Mapping[str, Any],
    ) -> None:
        if "privilege_assignments" not in result.changed_keys or result.replaces:
            return
        before = held(recorded.get("privilege_assignments") or [])
        after = held(desired["privilege_assignments"])
        lines = []
        losers = []
        for principal, old, new in assignment_changes(before, after):
            if new is None:
                losers.append(f"{principal} ({', '.join(old or [])})")
                lines.append(f"{principal}: loses {', '.join(old or [])} (not declared)")
            else:
                gained = sorted(set(new) - set(old or []))
                lost = sorted(set(old or []) - set(new))
                said = [f"gains {', '.join(gained)}"] if gained else []
                said += [f"loses {', '.join(lost)}"] if lost else []
                lines.append(f"{principal}: {'; '.join(said)}")
        result.field_changes = [f"privilege_assignments: {line}" for line in lines]
        result.detailed_paths = {"privilege_assignments": "update"}
        if losers:
            pulumi.log.warn(
                f"grants on {desired['securable_type']} {desired['full_name']}: "
                f"{'; '.join(losers)} lose(s) every direct privilege: not declared in "
                "privilege_assignments"
            )

    def create_object(self, client: WorkspaceClient, args: GrantsModel, spec: Spec):
        observed = converge(lambda: self._apply(client, spec, {}))
        return f"{args.securable_type}/{args.full_name}", observed, {}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        securable_type, full_name = split_id(id_)
        return self._observed(client, securable_type, full_name), {}

    def update_object(self, client, id_, recorded, args: GrantsModel, spec: Spec):
        return converge(lambda: self._apply(client, spec, recorded)), {}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        securable_type, full_name = split_id(id_)
        ours = held(recorded.get("privilege_assignments") or [])
        now = held(client.grants.get(securable_type, full_name))
        remaining = {
            key: (name, now[key][1] - privileges)
            for key, (name, privileges) in ours.items()
            if key in now
        }
        client.grants.update(
            securable_type, full_name, changes_between(now, remaining, remaining)
        )

    # --- helpers ------------------------------------------------------------------
    def _apply(self, client: WorkspaceClient, spec: Spec, recorded: Mapping[str, Any]) -> Spec:
        """Every direct grant of the securable made the declared ones; the observed spec."""
        securable_type, full_name = spec["securable_type"], spec["full_name"]
        now = held(client.grants.get(securable_type, full_name))
        wanted = held(spec["privilege_assignments"])
        changes = changes_between(now, wanted, set(now) | set(wanted))
        if not changes:
            return {**self._head(securable_type, full_name),
                    "privilege_assignments": assignments_spec(now)}
        client.grants.update(securable_type, full_name, changes)
        return self._observed(client, securable_type, full_name)

    def _observed(self, client: WorkspaceClient, securable_type: str, full_name: str) -> Spec:
        grants = held(client.grants.get(securable_type, full_name))
        return {
            **self._head(securable_type, full_name),
            "privilege_assignments": assignments_spec(grants),
        }

    @staticmethod
    def _head(securable_type: str, full_name: str) -> Spec:
        return {"securable_type": securable_type, "full_name": full_name}


def _granted_securables(client: Any) -> Any:
    """The securables with direct grants that the client can list: catalogs, the schemas of
    the catalogs a stack can manage, their volumes, storage credentials, service credentials
    (as `credential`) and external locations. Each parent is listed once (one call per
    catalog, one per schema), and each securable's grants read once."""
    catalogs = list(client.catalogs.list())
    own = [str(c["name"]) for c in catalogs if not is_service_catalog(c)]
    schemas = list(schema_full_names(client, own))
    listed = [
        ("catalog", [str(c["name"]) for c in catalogs]),
        ("schema", schemas),
        ("volume", list(volume_full_names(client, schemas))),
        ("storage_credential", [str(c["name"]) for c in client.storage_credentials.list()]),
        ("credential", [str(c["name"]) for c in client.credentials.list("SERVICE")]),
        ("external_location", [str(x["name"]) for x in client.external_locations.list()]),
    ]
    for securable_type, names in listed:
        for name in names:
            if held(client.grants.get(securable_type, name)):
                yield f"{securable_type}/{name}", f"{securable_type} {name}"


KIND = declare(
    name="Grants",
    provider=GrantsProvider,
    config_key="grants",
    identity=(),
    after=(*SECURABLE_LISTS, "serviceCredentials"),
    doc="docs/grants.md",
    summary="every direct privilege on one Unity Catalog securable (authoritative)",
    import_id="<securable type>/<full name>",
    inventory=_granted_securables,
)
