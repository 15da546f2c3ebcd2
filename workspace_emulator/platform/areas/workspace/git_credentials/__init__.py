"""Git credentials: one per principal and Git provider, the token stored hashed and never
answered (model.py), and their routes (routes.py)."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, Mount
from workspace_emulator.platform.areas.workspace.git_credentials import routes
from workspace_emulator.platform.areas.workspace.git_credentials.model import TABLES, GitCredentials
from workspace_emulator.platform.fidelity import stateful

AREA = Area(
    name="git_credentials",
    open=lambda context: GitCredentials(context.db),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=92,
    support={
        "GET /git-credentials": stateful("the caller's (or, for an admin, a service "
                                         "principal's by principal_id); never the token"),
        "POST /git-credentials": stateful("one per principal and Git provider (a second "
                                          "refused, naming the first); provider any case; "
                                          "the token stored hashed"),
        "GET /git-credentials/{credential_id}": stateful("the owner's only"),
        "PATCH /git-credentials/{credential_id}": stateful("git_provider required; a token "
                                                           "given replaces the stored one"),
        "DELETE /git-credentials/{credential_id}": stateful(""),
    },
)
