"""GroupMember: one principal (a user, a service principal or a group) in one group.

Added with a SCIM PATCH `add` of that one member and removed with a `remove` naming it:
never a PUT of the whole group, which would drop members added elsewhere meanwhile. Adding
a member the group has already is no change, so an interrupted create converges by itself.
Every change replaces the membership; its id is `<group id>|<member id>`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import pulumi
from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from providers.core.kind import Adoption, DrillChange, Lookup, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.identity.groups_api import GroupsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# The workspace's SCIM ids are decimal numbers.
SCIM_ID = re.compile(r"^[0-9]{1,20}$")
ID_SEPARATOR = "|"


class GroupMemberModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    group_id: str
    member_id: str

    @field_validator("group_id", "member_id")
    @classmethod
    def _scim_id(cls, value: str) -> str:
        if not SCIM_ID.match(value):
            raise ValueError(
                "must be the workspace's SCIM id of the principal, a number like "
                "100000000000003 (look it up with get_group, get_user or "
                "get_service_principal)"
            )
        return value

    @field_validator("member_id")
    @classmethod
    def _not_its_own_member(cls, value: str, info: ValidationInfo) -> str:
        if value == info.data.get("group_id"):
            raise ValueError("a group cannot be a member of itself")
        return value


def membership_id(group_id: str, member_id: str) -> str:
    return f"{group_id}{ID_SEPARATOR}{member_id}"


def parse_membership_id(id_: str) -> tuple[str, str]:
    group_id, separator, member_id = id_.partition(ID_SEPARATOR)
    if not separator or not SCIM_ID.match(group_id) or not SCIM_ID.match(member_id):
        raise ValueError(f"a membership id is <group id>|<member id>, got {id_!r}")
    return group_id, member_id


class GroupMemberProvider(WorkspaceProvider):
    args_model = GroupMemberModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"group_id", "member_id"})

    def must_delete_first(self, changed: list[str]) -> bool:
        # Creating the new membership first, then removing the old one, never leaves the
        # principal out of the group in between; the two are different memberships.
        return False

    def create_object(self, client: WorkspaceClient, args: GroupMemberModel, spec: Spec):
        GroupsApi(client).add_member(args.group_id, args.member_id)
        return membership_id(args.group_id, args.member_id), dict(spec), {}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        group_id, member_id = parse_membership_id(id_)
        members = GroupsApi(client).get(group_id).get("members") or []
        member = next((m for m in members if str(m.get("value")) == member_id), None)
        if member is None:
            return None  # the group stands, the membership is gone
        return {"group_id": group_id, "member_id": member_id}, {
            "member_display": member.get("display")
        }

    def update_object(self, client, id_, recorded, args, spec):
        raise AssertionError("every change of a membership replaces it")

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        group_id, member_id = parse_membership_id(id_)
        GroupsApi(client).remove_member(group_id, member_id)


# The group every principal of the workspace is in: the service adds each one itself.
ALL_PRINCIPALS_GROUP = "users"


def _user_id_named(connection: pulumi.Input[dict], user_name: str) -> pulumi.Output[str]:
    from providers.identity.lookups import get_user

    return get_user(connection, user_name=user_name).apply(lambda user: user["id"])


def _group_members(client: Any) -> Any:
    """Every membership but those of the group every principal is in, which the service
    adds itself."""
    for group in GroupsApi(client).list():
        if group.get("displayName") == ALL_PRINCIPALS_GROUP:
            continue
        members = (
            group["members"]
            if "members" in group
            else (GroupsApi(client).get(str(group["id"])).get("members"))
        )
        group_name = group.get("displayName") or group["id"]
        for member in members or []:
            member_name = member.get("display") or member["value"]
            yield f"{group['id']}|{member['value']}", f"{group_name}: {member_name}"


# Another user of the emulator's initial data (workspace_emulator/initial_data.json).
DRILL_USER = "alice@example.com"


KIND = declare(
    name="GroupMember",
    provider=GroupMemberProvider,
    outputs={"member_display": str},
    config_key="groupMembers",
    identity=(),
    references={
        "group": Reference(target_key="groups", field="group_id"),
        "user": Lookup(field="member_id", resolve=_user_id_named),
    },
    after=("groups",),
    doc="docs/group-member.md",
    summary="one user, service principal or group in a group (SCIM PATCH, never a PUT)",
    import_id="<group id>|<member id>",
    stack_output=("group_members", lambda resource: resource.id),
    inventory=_group_members,
    adoption=Adoption(principal_of=lambda id_: id_.rpartition("|")[2]),
    # A replacement: out of the group, then the other user in.
    drill=DrillChange(lambda member: {**member, "user": DRILL_USER}),
)
