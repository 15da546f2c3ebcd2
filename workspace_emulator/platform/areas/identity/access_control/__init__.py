"""Access control: the rule sets of service principals (model.py), reached through the
workspace's proxy of the account access-control service, with their etags."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.identity.access_control import routes
from workspace_emulator.platform.areas.identity.access_control.model import TABLES, RuleSets
from workspace_emulator.platform.areas.identity.scim.account import Account
from workspace_emulator.platform.fidelity import stateful


def _open(context: AreaContext) -> RuleSets:
    return RuleSets(context.db, context.directory, context.state(Account))


AREA = Area(
    name="access_control",
    open=_open,
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=95,
    support={
        "GET /preview/accounts/access-control/rule-sets": stateful(
            "service principals' rule sets, a new one's creator holding its manager role; "
            "the latest whatever the etag"),
        "PUT /preview/accounts/access-control/rule-sets": stateful(
            "etag checked (409 RESOURCE_CONFLICT when stale); roles user and manager; "
            "principals must exist; admins or the principal's managers"),
    },
    not_served={"Account access control": (
        "GET /preview/accounts/access-control/assignable-roles",)},
)
