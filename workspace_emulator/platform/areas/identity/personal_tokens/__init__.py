"""Personal access tokens (model.py): a principal's own, and those an admin makes on behalf
of a service principal (token management); made, listed and deleted here, and taken as
credentials by every call (`resolves_token`)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, Mount
from workspace_emulator.platform.areas.identity.personal_tokens import routes
from workspace_emulator.platform.areas.identity.personal_tokens.model import TABLES, PersonalTokens
from workspace_emulator.platform.fidelity import stateful

AREA = Area(
    name="personal_tokens",
    open=lambda context: PersonalTokens(context.db),
    tables=TABLES,
    routers=(Mount(routes.router), Mount(routes.management)),
    route_priority=100,
    support={
        "POST /token/create": stateful("a personal access token of the caller; "
                                       "lifetime_seconds (up to maxTokenLifetimeDays), "
                                       "comment; the value shown once, stored hashed; "
                                       "refused while enableTokensConfig is false"),
        "GET /token/list": stateful("the caller's unexpired tokens"),
        "POST /token/delete": stateful("the token is refused from the next call"),
        "POST /token-management/on-behalf-of/tokens": stateful(
            "admins; a token of a service principal by its application_id, as the caller's "
            "own (lifetime, comment); owner_id, created_by_id, created_by_username"),
        "GET /token-management/tokens": stateful("admins; every unexpired token of the "
                                                 "workspace; created_by_id"),
        "GET /token-management/tokens/{token_id}": stateful("admins; any principal's token"),
        "DELETE /token-management/tokens/{token_id}": stateful(
            "admins; the token is refused from the next call"),
    },
    resolves_token=PersonalTokens.resolve,
)
