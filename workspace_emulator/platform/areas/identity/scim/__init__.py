"""SCIM: the directory's service principals, groups (full CRUD, PATCH of members) and users
(full CRUD: a workspace-local user, or an account user assigned where the workspace is
identity-federated, account.py) and Me, over the workspace's directory
(platform/directory.py: every area and the authentication use it, so it is no area's own;
its tables are there too). The area's state is the account (its id, its users, the
federation flag: initial-data section `account`)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, InitialData, Mount
from workspace_emulator.platform.areas.identity.scim import routes
from workspace_emulator.platform.areas.identity.scim.account import TABLES, Account
from workspace_emulator.platform.directory import Group, ServicePrincipalSpec, User
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> Account:
    return Account(context.db, context.directory)


def _add_initial(account: Account, initial: InitialData) -> None:
    account.add_initial(initial.conn, dict(initial.sections.get("account") or {}))
    directory = initial.directory
    group_ids = {}
    for group in initial.section("groups"):
        directory.add_group(initial.conn, Group(str(group["id"]), group["display_name"]))
        group_ids[group["display_name"]] = str(group["id"])
    for user in initial.section("users"):
        directory.add_user(initial.conn, User(
            id=str(user["id"]), user_name=user["user_name"],
            display_name=user.get("display_name", user["user_name"]),
            group_ids=tuple(group_ids[name] for name in user.get("groups", [])),
        ))
    for principal in initial.section("service_principals"):
        directory.create_service_principal(principal["application_id"], ServicePrincipalSpec(
            display_name=principal.get("display_name"),
            active=principal.get("active", True),
            group_ids=tuple(group_ids[name] for name in principal.get("groups", [])),
            entitlements=tuple(principal.get("entitlements", [])),
        ), conn=initial.conn)


AREA: Area[Account] = Area(
    name="scim",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=30,
    support={
        "GET /preview/scim/v2/Me": stateful("the calling service principal; the workspace "
                                             "id in X-Databricks-Org-Id"),
        "GET /preview/scim/v2/Users": stateful("initial-data users; filter, paging"),
        "GET /preview/scim/v2/Users/{user_id}": stateful(""),
        "POST /preview/scim/v2/Users": stateful("user names unique regardless of case; "
                                                "assigns the account user where federated"),
        "PUT /preview/scim/v2/Users/{user_id}": stateful("userName cannot change"),
        "PATCH /preview/scim/v2/Users/{user_id}": stateful("displayName, active, "
                                                           "entitlements, externalId"),
        "DELETE /preview/scim/v2/Users/{user_id}": stateful("from the workspace only"),
        "GET /preview/scim/v2/Groups": stateful("groups with their members; filter (quoted "
                                                "or bare values), paging; meta.resourceType "
                                                "Group of an assigned account group"),
        "GET /preview/scim/v2/Groups/{group_id}": stateful(""),
        "POST /preview/scim/v2/Groups": stateful("unique display name; members must exist"),
        "PUT /preview/scim/v2/Groups/{group_id}": stateful("replaces the group; admins/users "
                                                           "kept"),
        "PATCH /preview/scim/v2/Groups/{group_id}": stateful("add/remove touch only the "
                                                             "members named; no cycles"),
        "DELETE /preview/scim/v2/Groups/{group_id}": stateful("admins and users refused"),
        "GET /preview/scim/v2/ServicePrincipals": stateful("filter, startIndex/count paging"),
        "POST /preview/scim/v2/ServicePrincipals": stateful("application id registered and "
                                                            "unique; the caller holds its "
                                                            "manager role"),
        "GET /preview/scim/v2/ServicePrincipals/{principal_id}": stateful(""),
        "PUT /preview/scim/v2/ServicePrincipals/{principal_id}": stateful("replaces the "
                                                                          "principal"),
        "PATCH /preview/scim/v2/ServicePrincipals/{principal_id}": stateful(
            "add/remove/replace ops"),
        "DELETE /preview/scim/v2/ServicePrincipals/{principal_id}": stateful(
            "its tokens stop working"),
    },
    initial_data=_add_initial,
)
