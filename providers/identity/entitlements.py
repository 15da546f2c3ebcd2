"""Entitlements: the workspace entitlements of one group, user or service principal (an
account principal assigned to the workspace, or one of its own).

Authoritative for the entitlements it manages, which are the four the workspace grants:
allow-cluster-create, allow-instance-pool-create, databricks-sql-access and
workspace-access. Among those the principal holds exactly the declared ones (a managed one
added outside is removed by the next up; removed outside, given back); any other
entitlement the principal has is left alone. Each change is a SCIM PATCH adding or
removing the entitlements that differ, never a replacement of the principal. Deleting the
resource removes the declared entitlements. Its id: `<groups|users|servicePrincipals>/<id>`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, get_args

from pydantic import AfterValidator, BaseModel, ConfigDict, model_validator

from providers.core.kind import DrillChange, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.validators import no_duplicates
from providers.identity.entitlements_api import EntitlementsApi
from providers.identity.groups_api import GroupsApi, is_account_group
from providers.identity.scim_fields import Entitlement

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

MANAGED = frozenset(get_args(Entitlement))
# The principal's id field -> the SCIM collection it is in.
COLLECTIONS = {"group_id": "Groups", "user_id": "Users",
               "service_principal_id": "ServicePrincipals"}
ID_PREFIXES = {"Groups": "groups", "Users": "users", "ServicePrincipals": "servicePrincipals"}
_ID = re.compile(r"^(groups|users|servicePrincipals)/([0-9]{1,20})$")
_SCIM_ID = re.compile(r"^[0-9]{1,20}$")


def _scim_id(value: str) -> str:
    if not _SCIM_ID.match(value):
        raise ValueError(
            "must be the workspace's SCIM id of the principal, a number like "
            "100000000000003 (look it up with get_group, get_user or get_service_principal)")
    return value


ScimId = Annotated[str, AfterValidator(_scim_id)]


class EntitlementsModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    group_id: ScimId | None = None
    user_id: ScimId | None = None
    service_principal_id: ScimId | None = None
    entitlements: Annotated[list[Entitlement], AfterValidator(no_duplicates)]

    @model_validator(mode="after")
    def _one_principal(self) -> EntitlementsModel:
        given = [name for name in COLLECTIONS if getattr(self, name) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of group_id, user_id and service_principal_id (the "
                "principal whose entitlements these are)"
                + (f"; got {', '.join(given)}" if given else ""))
        return self

    def principal(self) -> tuple[str, str]:
        """(SCIM collection, id)."""
        name = next(n for n in COLLECTIONS if getattr(self, n) is not None)
        return COLLECTIONS[name], str(getattr(self, name))


def entitlements_id(collection: str, principal_id: str) -> str:
    return f"{ID_PREFIXES[collection]}/{principal_id}"


def parse_entitlements_id(id_: str) -> tuple[str, str]:
    match = _ID.match(id_)
    if match is None:
        raise ValueError(
            "an Entitlements id is <groups|users|servicePrincipals>/<SCIM id>, e.g. "
            f"groups/100000000000003; got {id_!r}")
    collection = next(c for c, p in ID_PREFIXES.items() if p == match[1])
    return collection, match[2]


def _held(client: WorkspaceClient, collection: str, principal_id: str) -> list[str]:
    """The managed entitlements the principal holds."""
    return [e for e in EntitlementsApi(client).held(collection, principal_id) if e in MANAGED]


def _converge(client: WorkspaceClient, collection: str, principal_id: str,
              wanted: list[str]) -> list[str]:
    """The managed entitlements made exactly `wanted`; what the principal holds after."""
    held = _held(client, collection, principal_id)
    added = [e for e in wanted if e not in held]
    removed = [e for e in held if e not in wanted]
    if not added and not removed:
        return held
    EntitlementsApi(client).change(collection, principal_id, added, removed)
    return _held(client, collection, principal_id)


class EntitlementsProvider(WorkspaceProvider):
    args_model = EntitlementsModel
    replace_keys = frozenset(COLLECTIONS)

    def spec(self, args: EntitlementsModel) -> Spec:
        collection, principal_id = args.principal()
        field = next(n for n, c in COLLECTIONS.items() if c == collection)
        return {field: principal_id, "entitlements": sorted(args.entitlements)}

    def create_object(self, client: WorkspaceClient, args: EntitlementsModel, spec: Spec):
        # Setting them is no change when repeated: an interrupted create converges.
        collection, principal_id = args.principal()
        held = _converge(client, collection, principal_id, spec["entitlements"])
        return entitlements_id(collection, principal_id), {**spec, "entitlements": held}, {}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        collection, principal_id = parse_entitlements_id(id_)
        field = next(n for n, c in COLLECTIONS.items() if c == collection)
        return {field: principal_id,
                "entitlements": _held(client, collection, principal_id)}, {}

    def update_object(self, client, id_, recorded, args: EntitlementsModel, spec: Spec):
        collection, principal_id = parse_entitlements_id(id_)
        held = _converge(client, collection, principal_id, spec["entitlements"])
        return {**spec, "entitlements": held}, {}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        collection, principal_id = parse_entitlements_id(id_)
        declared = set(recorded.get("entitlements") or [])
        held = _held(client, collection, principal_id)
        _converge(client, collection, principal_id, [e for e in held if e not in declared])


def _listing(client: WorkspaceClient):
    """The entitlements of the account groups assigned to the workspace, of each that holds
    any the kind manages (a group of the workspace's own declares its entitlements on its
    Group item; a user's and a principal's are theirs)."""
    for group in GroupsApi(client).list():
        held = {str(e.get("value")) for e in group.get("entitlements") or []}
        if is_account_group(group) and held & MANAGED:
            yield (entitlements_id("Groups", str(group["id"])),
                   str(group.get("displayName") or group["id"]))


def _entitlements_id_problem(id_: str) -> str | None:
    try:
        parse_entitlements_id(id_)
    except ValueError as error:
        return str(error)
    return None


KIND = declare(
    name="Entitlements",
    provider=EntitlementsProvider,
    config_key="entitlements",
    identity=("group_id", "user_id", "service_principal_id"),
    references={
        # An account group's workspace id is its account id (identity federation).
        "account_group": Reference("accountGroups", "group_id"),
        "group": Reference("groups", "group_id"),
        "user": Reference("users", "user_id"),
        "service_principal": Reference("servicePrincipals", "service_principal_id"),
    },
    # An account principal is in the workspace once assigned.
    after=("workspaceAssignments",),
    doc="docs/entitlements.md",
    summary="the workspace entitlements of a group, user or service principal "
            "(authoritative for the four the workspace grants)",
    import_id="<groups|users|servicePrincipals>/<the principal's SCIM id>",
    import_id_rule=_entitlements_id_problem,
    inventory=_listing,
    drill=DrillChange(lambda item: {
        **item, "entitlements": sorted(set(item.get("entitlements", []))
                                       ^ {"allow-cluster-create"})}),
)
