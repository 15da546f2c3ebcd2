"""Grants: every direct privilege on one Unity Catalog securable, authoritatively: a catalog,
a schema, a table (a view and a materialized view are granted as `table`), a function (and a
registered model: the grants API's `function`), a volume, an external location, a storage
credential, a service credential (`credential`), the metastore (by its id), a connection, a
Delta Sharing share (SELECT goes to a recipient, named as the principal), recipient or
provider, a clean room. Each is named as `uc_privileges.full_name_of` says.

The declared `privilege_assignments` are all the direct grants the securable keeps: a
privilege granted outside the stack, or to a principal the stack does not declare, is
revoked by the next update, and the preview says who loses what (a warning naming each
principal, and the changed field). Privileges compare as sets, each principal once, named
as the service matches it: a user's name (an email address) without regard to case.
Privileges are checked per securable type before any call (`providers.unity_catalog.uc_privileges`).

Create and update read the grants and send only the difference in one PATCH
(`changes[{principal, add, remove}]`), so a create repeated after an interrupted run finds
its grants made and sends nothing. Delete revokes what the resource recorded. Another
securable replaces the resource. The id is `<securable type>/<full name>`.

Grant (providers/unity_catalog/grant.py) is the additive kind: one principal's privileges,
never touching the others'.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
from pydantic import BaseModel, ConfigDict, field_validator

from providers.core.kind import PRINCIPALS, DrillChange, NameByType, NameReference, declare
from providers.core.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, user_inputs
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.credentials_api import CredentialsApi
from providers.unity_catalog.external_locations_api import ExternalLocationsApi
from providers.unity_catalog.grants_api import GrantsApi
from providers.unity_catalog.models_api import ModelsApi
from providers.unity_catalog.schema_objects_api import SchemaObjectsApi
from providers.unity_catalog.securables import (
    SECURABLE_LISTS,
    SECURABLES_BY_TYPE,
    Held,
    SecurableModel,
    changes_between,
    converge,
    held,
    principal_name,
    privilege_list,
    privilege_rules,
    split_id,
)
from providers.unity_catalog.sharing_api import LISTS as SHARING_LISTS
from providers.unity_catalog.sharing_api import SharingApi
from providers.unity_catalog.storage_credentials_api import StorageCredentialsApi
from providers.unity_catalog.uc_names import (
    is_service_catalog,
    schema_full_names,
    volume_full_names,
)

if TYPE_CHECKING:
    from providers.client import WorkspaceClient


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


def assignments_spec(grants: Held) -> list[dict[str, Any]]:
    return [
        {"principal": name, "privileges": sorted(privileges)}
        for name, privileges in (grants[key] for key in sorted(grants))
    ]


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
        now = held(GrantsApi(client).get(securable_type, full_name))
        remaining = {
            key: (name, now[key][1] - privileges)
            for key, (name, privileges) in ours.items()
            if key in now
        }
        GrantsApi(client).update(
            securable_type, full_name, changes_between(now, remaining, remaining)
        )

    # --- helpers ------------------------------------------------------------------
    def _apply(self, client: WorkspaceClient, spec: Spec, recorded: Mapping[str, Any]) -> Spec:
        """Every direct grant of the securable made the declared ones; the observed spec."""
        securable_type, full_name = spec["securable_type"], spec["full_name"]
        now = held(GrantsApi(client).get(securable_type, full_name))
        wanted = held(spec["privilege_assignments"])
        changes = changes_between(now, wanted, set(now) | set(wanted))
        if not changes:
            return {**self._head(securable_type, full_name),
                    "privilege_assignments": assignments_spec(now)}
        GrantsApi(client).update(securable_type, full_name, changes)
        return self._observed(client, securable_type, full_name)

    def _observed(self, client: WorkspaceClient, securable_type: str, full_name: str) -> Spec:
        grants = held(GrantsApi(client).get(securable_type, full_name))
        return {
            **self._head(securable_type, full_name),
            "privilege_assignments": assignments_spec(grants),
        }

    @staticmethod
    def _head(securable_type: str, full_name: str) -> Spec:
        return {"securable_type": securable_type, "full_name": full_name}


def _granted_securables(client: Any) -> Any:
    """The securables with direct grants that the client can list: the metastore (by the id
    its catalogs carry), catalogs, the schemas of the catalogs a stack can manage, their
    tables, functions and volumes, storage credentials, service credentials (as
    `credential`), external locations, registered models (as `function`, one call per
    catalog), shares, recipients and providers. Each parent is listed once (one call per
    catalog, one per schema and kind), and each securable's grants read once. Connections
    are not listed here."""
    catalogs = list(CatalogsApi(client).list())
    own = [str(c["name"]) for c in catalogs if not is_service_catalog(c)]
    schemas = list(schema_full_names(client, own))
    metastores = sorted({str(c["metastore_id"]) for c in catalogs if c.get("metastore_id")})
    listed = [
        ("metastore", metastores),
        ("catalog", [str(c["name"]) for c in catalogs]),
        ("schema", schemas),
        *((kind, [name for schema in schemas
                  for name in SchemaObjectsApi(client).list(kind, *schema.split(".", 1))])
          for kind in ("table", "function")),
        ("volume", list(volume_full_names(client, schemas))),
        ("storage_credential", [str(c["name"]) for c in StorageCredentialsApi(client).list()]),
        ("credential", [str(c["name"]) for c in CredentialsApi(client).list("SERVICE")]),
        ("external_location", [str(x["name"]) for x in ExternalLocationsApi(client).list()]),
        ("function", [str(m["full_name"]) for catalog in own
                      for m in ModelsApi(client).list(catalog)]),
        *((kind, SharingApi(client).list(kind)) for kind in SHARING_LISTS),
    ]
    for securable_type, names in listed:
        for name in names:
            if held(GrantsApi(client).get(securable_type, name)):
                yield f"{securable_type}/{name}", f"{securable_type} {name}"


def _drill_change(item: dict[str, Any]) -> dict[str, Any]:
    """BROWSE granted to the securable's first principal, and its last principal's last
    privilege revoked (where it keeps one)."""
    first, *_, last = item["privilege_assignments"]
    first["privileges"] = [*first["privileges"], "BROWSE"]
    if len(last["privileges"]) > 1:
        last["privileges"] = last["privileges"][:-1]
    return item


KIND = declare(
    name="Grants",
    provider=GrantsProvider,
    config_key="grants",
    names={
        "full_name": NameByType("full_name", "securable_type", SECURABLES_BY_TYPE),
        "privilege_assignments[].principal": NameReference("principal", PRINCIPALS),
    },
    identity=(),
    # An account group is granted to once the workspace has it (assigned).
    after=(*SECURABLE_LISTS, "serviceCredentials", "workspaceAssignments"),
    doc="docs/grants.md",
    summary="every direct privilege on one Unity Catalog securable (authoritative)",
    import_id="<securable type>/<full name>",
    inventory=_granted_securables,
    drill=DrillChange(_drill_change),
)
