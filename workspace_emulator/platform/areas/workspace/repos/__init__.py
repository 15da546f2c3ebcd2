"""Repos (Git folders: model.py, clones of the remotes the initial data knows). Their place in
the workspace's file tree (`workspace/get-status`, `list`) is the workspace_objects area's."""

from __future__ import annotations

from workspace_emulator.platform.area import Area, InitialData, Mount
from workspace_emulator.platform.areas.workspace.git_credentials.model import GitCredentials
from workspace_emulator.platform.areas.workspace.repos import routes
from workspace_emulator.platform.areas.workspace.repos.model import TABLES, Repos
from workspace_emulator.platform.fidelity import stateful


def _add_initial(repos: Repos, initial: InitialData) -> None:
    for repo in initial.section("repos"):
        repos.add_initial(initial.conn, repo)


AREA = Area(
    name="repos",
    open=lambda context: Repos(context.db,
                               context.state(GitCredentials).has_credential),
    tables=TABLES,
    routers=(Mount(routes.router),),
    route_priority=61,
    support={
        "GET /repos": stateful("initial-data repos; path_prefix"),
        "GET /repos/{repo_id}": stateful(""),
        "POST /repos": stateful("clones known remotes only (a private one with the caller's "
                                "Git credential for its provider); /Repos/<folder>/<name>; "
                                "path unique; no path: the caller's folder"),
        "DELETE /repos/{repo_id}": stateful(""),
        "PATCH /repos/{repo_id}": stateful("branch or tag checkout among the remote's refs"),
        "POST /repos/{repo_id}": stateful("the same checkout, seed form"),
    },
    initial_data=_add_initial,
    permission_objects={"repos": Repos.exists},
)
