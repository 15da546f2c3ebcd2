"""AccountGroup: a group of the account (account SCIM), made through the account connection.

A workspace sees it once a WorkspaceAssignment assigns it (identity federation); there it is
named by its display name (grants, job permissions) and given entitlements (Entitlements).
Members are not managed here. The display name is the natural key: a create answered 409
adopts the account's group of that name when it has no members (what an interrupted
create leaves); a group in use is someone else's and the 409 stands.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.client import AlreadyExists
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.validators import not_blank
from providers.identity.account_api import AccountGroupsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient


class AccountGroupModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    display_name: Annotated[str, AfterValidator(not_blank)]
    external_id: Annotated[str, AfterValidator(not_blank)] | None = None


class AccountGroupProvider(WorkspaceProvider):
    args_model = AccountGroupModel

    def create_object(self, client: WorkspaceClient, args: AccountGroupModel, spec: Spec):
        body: dict[str, Any] = {"displayName": args.display_name}
        if args.external_id is not None:
            body["externalId"] = args.external_id
        groups = AccountGroupsApi(client)
        try:
            made, adopted = create_or_adopt(
                lambda: groups.create(body), lambda: _find(client, args.display_name))
        except AlreadyExists as error:
            found = _find(client, args.display_name)
            if found is None or found.get("members"):
                error.message += (
                    " (the account has a group of that name with members: import it, "
                    "`pulumi import` with its id, to manage it)")
                error.args = (str(error),)
                raise
            made, adopted = found, True
        if adopted:
            made = _set(client, made, spec)
        return str(made["id"]), _spec_of(made), {}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        return _spec_of(AccountGroupsApi(client).get(id_)), {}

    def update_object(self, client, id_, recorded, args, spec):
        return _spec_of(_set(client, AccountGroupsApi(client).get(id_), spec)), {}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        AccountGroupsApi(client).delete(id_)


def _find(client: WorkspaceClient, display_name: str) -> dict | None:
    return next(iter(AccountGroupsApi(client).named(display_name)), None)


def _set(client: WorkspaceClient, current: Mapping[str, Any], spec: Spec) -> dict:
    observed = _spec_of(current)
    operations: list[dict[str, Any]] = []
    if observed["display_name"] != spec["display_name"]:
        operations.append({"op": "replace", "path": "displayName", "value": spec["display_name"]})
    if "external_id" in spec and observed.get("external_id") != spec["external_id"]:
        operations.append({"op": "replace", "path": "externalId", "value": spec["external_id"]})
    if not operations:
        return dict(current)
    AccountGroupsApi(client).patch(str(current["id"]), operations)
    return AccountGroupsApi(client).get(str(current["id"]))


def _inventory(client: WorkspaceClient):
    """The account's groups, through the account's connection the audit and adopt give the
    workspace's client (`client.account`); none without one."""
    if client.account is None:
        return
    for group in AccountGroupsApi(client.account).list():
        yield str(group["id"]), str(group.get("displayName", ""))


def _spec_of(resource: Mapping[str, Any]) -> Spec:
    spec: Spec = {"display_name": resource.get("displayName")}
    if resource.get("externalId"):
        spec["external_id"] = resource["externalId"]
    return spec


KIND = declare(
    name="AccountGroup",
    provider=AccountGroupProvider,
    config_key="accountGroups",
    identity=("display_name",),
    named_as=("display_name",),
    doc="docs/account-group.md",
    summary="a group of the account (account SCIM): name, external id; assigned to the "
            "workspace by WorkspaceAssignment",
    import_id="the group's account SCIM id",
    import_id_rule=import_ids.numeric,
    stack_output=("account_groups", lambda resource: resource.id),
    inventory=lambda client: _inventory(client),
    drill=DrillChange(lambda group: {**group, "external_id": "drill-changed"}),
    account_level=True,
)
