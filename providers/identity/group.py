"""Group: a workspace group (SCIM), its display name, entitlements and external id.

Members are not managed here: each membership is a `GroupMember` of its own, added and
removed with PATCH operations that name it, so members added elsewhere stay. Fields left
out (entitlements, external id) are not managed either. The display name is the natural
key: a create answered 409 adopts the group of that name when it has no members (what an
interrupted earlier create leaves); a group in use is someone else's and the 409 stands.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.client import AlreadyExists
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import Adoption, DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.validators import no_duplicates, not_blank
from providers.identity.groups_api import GroupsApi, is_account_group
from providers.identity.scim_fields import Entitlement

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# Groups the workspace itself holds; never made or deleted by a stack, nor listed by the
# audit as unmanaged.
SYSTEM_GROUPS = frozenset({"admins", "users"})


def _not_a_system_group(value: str) -> str:
    if value in SYSTEM_GROUPS:
        raise ValueError(
            f"{value!r} is a group of the workspace itself; manage its members with "
            "GroupMember (look it up with get_group) instead"
        )
    return value


class GroupModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    display_name: Annotated[str, AfterValidator(not_blank), AfterValidator(_not_a_system_group)]
    entitlements: Annotated[list[Entitlement], AfterValidator(no_duplicates)] | None = None
    external_id: Annotated[str, AfterValidator(not_blank)] | None = None


class GroupProvider(WorkspaceProvider):
    args_model = GroupModel

    def spec(self, args: GroupModel) -> Spec:
        spec: Spec = {"display_name": args.display_name}
        if args.entitlements is not None:
            spec["entitlements"] = sorted(args.entitlements)
        if args.external_id is not None:
            spec["external_id"] = args.external_id
        return spec

    def create_object(self, client: WorkspaceClient, args: GroupModel, spec: Spec):
        body: dict[str, Any] = {"displayName": spec["display_name"]}
        if "entitlements" in spec:
            body["entitlements"] = [{"value": e} for e in spec["entitlements"]]
        if "external_id" in spec:
            body["externalId"] = spec["external_id"]
        try:
            made, adopted = create_or_adopt(
                lambda: GroupsApi(client).create(body),
                lambda: self._find(client, args.display_name),
            )
        except AlreadyExists as error:
            found = self._find(client, args.display_name)
            if found is None or found.get("members"):
                error.message += (
                    " (a group of that name exists and has members: import it, "
                    "`pulumi import` with its id, to manage it)"
                )
                error.args = (str(error),)
                raise
            made, adopted = found, True
        if adopted:
            made = self._set(client, made, spec)
        return str(made["id"]), self._spec_of(made), {}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        return self._spec_of(GroupsApi(client).get(id_)), {}

    def update_object(self, client, id_, recorded, args, spec):
        return self._spec_of(self._set(client, GroupsApi(client).get(id_), spec)), {}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        GroupsApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _find(client: WorkspaceClient, display_name: str) -> dict | None:
        return next(iter(GroupsApi(client).named(display_name)), None)

    @classmethod
    def _set(cls, client: WorkspaceClient, current: Mapping[str, Any], spec: Spec) -> dict:
        """PATCH the declared fields that differ (members are never part of it); the group
        read back."""
        observed = cls._spec_of(current)
        operations: list[dict[str, Any]] = []
        if observed["display_name"] != spec["display_name"]:
            operations.append(
                {"op": "replace", "path": "displayName", "value": spec["display_name"]}
            )
        if "entitlements" in spec and observed["entitlements"] != spec["entitlements"]:
            value = [{"value": e} for e in spec["entitlements"]]
            operations.append({"op": "replace", "path": "entitlements", "value": value})
        if "external_id" in spec and observed.get("external_id") != spec["external_id"]:
            operations.append({"op": "replace", "path": "externalId", "value": spec["external_id"]})
        if not operations:
            return dict(current)
        GroupsApi(client).patch(str(current["id"]), operations)
        return GroupsApi(client).get(str(current["id"]))

    @staticmethod
    def _spec_of(resource: Mapping[str, Any]) -> Spec:
        spec: Spec = {
            "display_name": resource.get("displayName"),
            "entitlements": sorted(e["value"] for e in resource.get("entitlements") or []),
        }
        if resource.get("externalId"):
            spec["external_id"] = resource["externalId"]
        return spec


ACCOUNT_GROUP_LEFT_OUT = (
    "an account group assigned to the workspace (identity federation), not a workspace "
    "group: adopted from the account as its accountGroups, workspaceAssignments and "
    "entitlements items (workspace:accountHost and workspace:accountId list the first two)")


def _listing(client: WorkspaceClient):
    """The workspace's groups but its own (`admins`, `users`), an account group's copy with
    why it is left out (`ACCOUNT_GROUP_LEFT_OUT`)."""
    for group in GroupsApi(client).list():
        if group.get("displayName") not in SYSTEM_GROUPS:
            yield (str(group["id"]), str(group.get("displayName", "")),
                   ACCOUNT_GROUP_LEFT_OUT if is_account_group(group) else None)


KIND = declare(
    name="Group",
    provider=GroupProvider,
    config_key="groups",
    named_as=("display_name",),
    identity=("display_name",),
    doc="docs/group.md",
    summary="a workspace group: name, entitlements, external id (members: GroupMember)",
    import_id="the group's SCIM id",
    import_id_rule=import_ids.one_segment,
    stack_output=("groups", lambda resource: resource.id),
    inventory=lambda client: ((id_, name) for id_, name, why in _listing(client) if not why),
    adoption=Adoption(objects=_listing),
    drill=DrillChange(
        lambda group: {
            **group,
            "entitlements": [
                e for e in group.get("entitlements", []) if e != "databricks-sql-access"
            ],
        }
    ),
)
