"""The account API on the emulator's own host (model.py says how assignment and identity
federation are modelled): account SCIM groups, users and service principals under
/api/2.0/accounts/{account_id}/scim/v2, and the workspace's permission assignments under
/api/2.0/accounts/{account_id}/workspaces/{workspace_id}/permissionassignments. The account
id is the scim area's (initial-data section `account`, `id`; default
00000000-0000-0000-0000-000000000000), the workspace id the emulator's; both are in
/.well-known/databricks-config."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.identity.accounts import routes
from workspace_emulator.platform.areas.identity.accounts.model import TABLES, AccountDirectory
from workspace_emulator.platform.areas.identity.scim.account import Account
from workspace_emulator.platform.fidelity import stateful

SCIM = "/accounts/{account_id}/scim/v2"
ASSIGNMENTS = "/accounts/{account_id}/workspaces/{workspace_id}/permissionassignments"


def _open(context: AreaContext) -> AccountDirectory:
    return AccountDirectory(context.db, context.directory, context.state(Account),
                            context.identity, context.settings.workspace_id)


AREA: Area[AccountDirectory] = Area(
    name="accounts",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.scim_router), Mount(routes.assignments_router)),
    route_priority=120,
    support={
        f"GET {SCIM}/Groups": stateful("workspace admins act as account admins (reads open to "
                                       "every principal); filter, paging"),
        f"POST {SCIM}/Groups": stateful("unique display name; members must be the "
                                        "account's"),
        f"GET {SCIM}/Groups/{{group_id}}": stateful(""),
        f"PUT {SCIM}/Groups/{{group_id}}": stateful("a rename reaches the workspace's copy"),
        f"PATCH {SCIM}/Groups/{{group_id}}": stateful("members add/remove/replace"),
        f"DELETE {SCIM}/Groups/{{group_id}}": stateful("leaves the workspace too"),
        f"GET {SCIM}/Users": stateful("filter, paging"),
        f"POST {SCIM}/Users": stateful("user names unique regardless of case"),
        f"GET {SCIM}/Users/{{user_id}}": stateful(""),
        f"DELETE {SCIM}/Users/{{user_id}}": stateful("leaves the workspace too"),
        f"GET {SCIM}/ServicePrincipals": stateful("filter, paging"),
        f"POST {SCIM}/ServicePrincipals": stateful("without applicationId: a new "
                                                   "application, no secret"),
        f"GET {SCIM}/ServicePrincipals/{{principal_id}}": stateful(""),
        f"DELETE {SCIM}/ServicePrincipals/{{principal_id}}": stateful("leaves the workspace "
                                                                      "too"),
        f"GET {ASSIGNMENTS}": stateful("the emulator's workspace id only"),
        f"GET {ASSIGNMENTS}/permissions": stateful("USER and ADMIN"),
        f"PUT {ASSIGNMENTS}/principals/{{principal_id}}": stateful(
            "ADMIN wins over USER; the principal appears in the workspace's SCIM, ADMIN in "
            "`admins`; its workspace entitlements kept"),
        f"DELETE {ASSIGNMENTS}/principals/{{principal_id}}": stateful(
            "the principal leaves the workspace, stays in the account"),
    },
)
