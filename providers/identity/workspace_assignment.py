"""WorkspaceAssignment: an account principal (group, user or service principal) assigned to
the workspace as USER or ADMIN, through the account connection.

The principal is named by its account id (`principal_id`), or by name: `group_name`,
`user_name` or `service_principal_application_id`, looked up in the account when the
assignment is made (in a stack, `account_group: <accountGroups item>` gives the id of a
group the stack makes, and waits for it). The permission changes in place (a PUT of the
assignment, no change when repeated, so an interrupted create converges); deleting the
resource removes the assignment, and with it the principal from the workspace (it stays in
the account). Its id: `<workspace id>|<principal id>`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from providers.client import NotFound
from providers.core.kind import Adoption, DrillChange, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.validators import not_blank
from providers.identity.account_api import (
    AccountGroupsApi,
    AccountPrincipalsApi,
    WorkspaceAssignmentApi,
    workspace_id_of,
)

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

NAME_FIELDS = ("group_name", "user_name", "service_principal_application_id")
ID_SEPARATOR = "|"
_ID = re.compile(r"^([0-9]{1,20})\|([0-9]{1,20})$")
_PRINCIPAL_ID = re.compile(r"^[0-9]{1,20}$")


def _principal_id(value: str) -> str:
    if not _PRINCIPAL_ID.match(value):
        raise ValueError("must be the principal's account id, a number (its account SCIM id)")
    return value


Name = Annotated[str, AfterValidator(not_blank)]


class WorkspaceAssignmentModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workspace_id: int = Field(gt=0)
    principal_id: Annotated[str, AfterValidator(_principal_id)] | None = None
    group_name: Name | None = None
    user_name: Name | None = None
    service_principal_application_id: Name | None = None
    permission: Literal["USER", "ADMIN"] = "USER"

    @model_validator(mode="after")
    def _one_principal(self) -> WorkspaceAssignmentModel:
        given = [n for n in ("principal_id", *NAME_FIELDS) if getattr(self, n) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of principal_id, group_name, user_name and "
                "service_principal_application_id (the account principal to assign)"
                + (f"; got {', '.join(given)}" if given else ""))
        return self


def assignment_id(workspace_id: int, principal_id: str) -> str:
    return f"{workspace_id}{ID_SEPARATOR}{principal_id}"


def parse_assignment_id(id_: str) -> tuple[int, str]:
    match = _ID.match(id_)
    if match is None:
        raise ValueError(
            "a WorkspaceAssignment id is <workspace id>|<principal's account id>, e.g. "
            f"1234567890123456|7000000000000001; got {id_!r}")
    return int(match[1]), match[2]


def _resolved(client: WorkspaceClient, args: WorkspaceAssignmentModel) -> str:
    """The principal's account id, looked up by its name where it is named."""
    if args.principal_id is not None:
        return args.principal_id
    if args.group_name is not None:
        found, what = AccountGroupsApi(client).named(args.group_name), "group"
        name = args.group_name
    elif args.user_name is not None:
        found, what = AccountPrincipalsApi(client).user_named(args.user_name), "user"
        name = args.user_name
    else:
        name = str(args.service_principal_application_id)
        found, what = AccountPrincipalsApi(client).service_principal_of(name), \
            "service principal"
    if len(found) != 1:
        raise ValueError(
            f"the account has {'no' if not found else len(found)} {what} named {name!r}; "
            "create it in the account first (AccountGroup for a group) or give its "
            "principal_id")
    return str(found[0]["id"])


def _name_of(principal: Mapping[str, Any]) -> Spec:
    for field, name_field in (("group_name", "group_name"), ("user_name", "user_name"),
                              ("service_principal_application_id",
                               "service_principal_name")):
        if principal.get(name_field):
            return {field: principal[name_field]}
    return {}


class WorkspaceAssignmentProvider(WorkspaceProvider):
    args_model = WorkspaceAssignmentModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"workspace_id", "principal_id",
                                                        *NAME_FIELDS})
    computed_keys: ClassVar[frozenset[str]] = frozenset({"assigned_principal_id"})

    def create_object(self, client: WorkspaceClient, args: WorkspaceAssignmentModel,
                      spec: Spec):
        principal_id = _resolved(client, args)
        WorkspaceAssignmentApi(client).set(args.workspace_id, principal_id, [args.permission])
        return (assignment_id(args.workspace_id, principal_id), dict(spec),
                {"assigned_principal_id": principal_id})

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        workspace_id, principal_id = parse_assignment_id(id_)
        found = WorkspaceAssignmentApi(client).of(workspace_id, principal_id)
        if found is None or not found.get("permissions"):
            return None
        permissions = found["permissions"]
        observed: Spec = {"workspace_id": workspace_id,
                          "permission": "ADMIN" if "ADMIN" in permissions else "USER"}
        # Named as the recorded state names it (by id, by name, or both); an import, which
        # records nothing yet, both ways: the declaration may name it either way (adopt's
        # item by name, or `account_group:`, its id), and the one it leaves out is no change.
        named = _name_of(found.get("principal") or {})
        by_name = any(field in recorded for field in NAME_FIELDS)
        if "principal_id" in recorded or not named or not by_name:
            observed["principal_id"] = principal_id
        if named and ("principal_id" not in recorded or by_name):
            observed |= named
        return observed, {"assigned_principal_id": principal_id}

    def _recorded_shape(self, recorded: Spec, observed: Spec) -> Spec:
        # The permission is recorded where the declaration leaves it to its default too (an
        # import of `{account_group, workspace_id}`, as adopt writes a USER assignment): the
        # diff compares it with the default.
        return {**recorded, "permission": observed["permission"]} if recorded else observed

    def update_object(self, client, id_, recorded, args: WorkspaceAssignmentModel, spec: Spec):
        workspace_id, principal_id = parse_assignment_id(id_)
        WorkspaceAssignmentApi(client).set(workspace_id, principal_id, [args.permission])
        return dict(spec), {"assigned_principal_id": principal_id}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        workspace_id, principal_id = parse_assignment_id(id_)
        try:
            WorkspaceAssignmentApi(client).delete(workspace_id, principal_id)
        except NotFound:
            pass  # already unassigned


# Why the assignment of the principal the stack signs in as is not adopted.
OWN_ASSIGNMENT = (
    "the assignment of the principal the stack signs in as: adopted, a destroy would take "
    "the stack's own access to the workspace")


def _listing(client: WorkspaceClient):
    """The account's assignments of the workspace `client` reaches (its id from the
    workspace: `workspace_id_of`), through the account's connection the audit and adopt give
    it (`client.account`); none without one. The assignment of the principal the client
    signs in as is listed as left out (`OWN_ASSIGNMENT`)."""
    if client.account is None:
        return
    workspace_id = workspace_id_of(client)
    if workspace_id is None:
        return
    me = client.me()
    own = {str(me[key]) for key in ("id", "userName", "applicationId") if me.get(key)}
    for assignment in WorkspaceAssignmentApi(client.account).list(workspace_id):
        principal = assignment.get("principal") or {}
        principal_id = str(principal.get("principal_id"))
        names = {principal_id, *(str(principal[key]) for key in (
            "user_name", "service_principal_name") if principal.get(key))}
        name = next((str(principal[key]) for key in ("group_name", "user_name",
                                                       "service_principal_name",
                                                       "display_name")
                     if principal.get(key)), principal_id)
        yield (assignment_id(workspace_id, principal_id), name,
               OWN_ASSIGNMENT if names & own else None)


def _assignment_id_problem(id_: str) -> str | None:
    try:
        parse_assignment_id(id_)
    except ValueError as error:
        return str(error)
    return None


KIND = declare(
    name="WorkspaceAssignment",
    provider=WorkspaceAssignmentProvider,
    config_key="workspaceAssignments",
    identity=("workspace_id", "principal_id", *NAME_FIELDS),
    references={"account_group": Reference("accountGroups", "principal_id")},
    outputs={"assigned_principal_id": str},
    doc="docs/workspace-assignment.md",
    summary="an account principal assigned to the workspace as USER or ADMIN",
    import_id="<workspace id>|<the principal's account id>",
    import_id_rule=_assignment_id_problem,
    inventory=lambda client: ((id_, name) for id_, name, _ in _listing(client)),
    # An assigned group adopted in the same run is named by its item (`account_group`).
    adoption=Adoption(objects=_listing,
                      # The item names the principal as the account names it.
                      leaves_out={"principal_id": lambda observed, computed: any(
                          observed.get(field) for field in NAME_FIELDS)},
                      stands_for={"group_name": ("principal_id", "assigned_principal_id")}),
    drill=DrillChange(lambda item: {
        **item, "permission": "ADMIN" if item.get("permission", "USER") == "USER" else "USER"}),
    account_level=True,
)
