"""Lookups of the workspace tree, repos and IP access lists. (providers/lookups/__init__.py says
what a lookup is.)"""

from __future__ import annotations

from typing import Any

import pulumi
from pydantic import Field

from providers.client import (
    NotFound,
    WorkspaceClient,
)
from providers.core.lookup import (
    LookupResult,
    Result,
    as_id,
    exactly_one,
    found_nothing,
    lookup_output,
    nothing_if_gone,
    only_one,
)
from providers.workspace.ip_access_lists_api import IpAccessListsApi
from providers.workspace.repos_api import ReposApi
from providers.workspace.workspace_paths_api import WorkspacePathsApi


def get_ip_access_lists(connection: pulumi.Input[dict]) -> pulumi.Output[list[Result]]:
    """Every IP access list of the workspace (an empty list when there are none)."""
    return lookup_output(connection, find_ip_access_lists)


def get_ip_access_list(
    connection: pulumi.Input[dict],
    *,
    label: pulumi.Input[str] | None = None,
    list_id: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """One IP access list by `label` (which must be unique) or by `list_id`."""
    exactly_one("get_ip_access_list", label=label, list_id=list_id)
    return lookup_output(connection, find_ip_access_list, label=label, list_id=list_id)


def get_repo(
    connection: pulumi.Input[dict],
    *,
    repo_id: pulumi.Input[int] | None = None,
    path: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A repo by `repo_id` or by its workspace `path` (e.g. /Repos/team/project)."""
    exactly_one("get_repo", repo_id=repo_id, path=path)
    return lookup_output(connection, find_repo, repo_id=repo_id, path=path)


def get_workspace_object(
    connection: pulumi.Input[dict], *, path: pulumi.Input[str]
) -> pulumi.Output[Result]:
    """The object at a workspace `path` (with or without the /Workspace prefix): its
    `object_type` (NOTEBOOK, DIRECTORY, FILE, REPO, ...), its `object_id` (what
    `Permissions` takes as `object_id`) and its `permissions_type` (notebooks, directories,
    files, repos)."""
    exactly_one("get_workspace_object", path=path)
    return lookup_output(connection, find_workspace_object, path=path)


def find_ip_access_lists(client: WorkspaceClient) -> list[Result]:
    return [
        IpAccessListInfo.model_validate(item).as_output()
        for item in IpAccessListsApi(client).list()
    ]


def find_ip_access_list(
    client: WorkspaceClient, *, label: str | None = None, list_id: str | None = None
) -> Result:
    lists = IpAccessListsApi(client).list()
    if list_id is not None:
        matches, what = (
            [x for x in lists if x.get("list_id") == list_id],
            f"IP access list with list_id {list_id!r}",
        )
    else:
        matches, what = (
            [x for x in lists if x.get("label") == label],
            f"IP access list labelled {label!r}",
        )
    return IpAccessListInfo.model_validate(only_one(client, matches, what, "list_id")).as_output()


def find_repo(client: WorkspaceClient, *, repo_id: Any = None, path: str | None = None) -> Result:
    if repo_id is not None:
        try:
            return RepoInfo.model_validate(
                ReposApi(client).get(as_id(repo_id, "repo id"))
            ).as_output()
        except NotFound:
            raise found_nothing(client, f"repo with repo_id {repo_id!r}") from None
    at_path = [r for r in ReposApi(client).list(path_prefix=path) if r.get("path") == path]
    return RepoInfo.model_validate(
        only_one(client, at_path, f"repo at path {path!r}", "id")
    ).as_output()


# The workspace's object types that have permissions of their own, by the permissions type.
_PERMISSIONS_TYPE = {
    "NOTEBOOK": "notebooks",
    "DIRECTORY": "directories",
    "FILE": "files",
    "REPO": "repos",
}


def find_workspace_object(client: WorkspaceClient, *, path: str) -> Result:
    with nothing_if_gone(client, f"workspace object at path {path!r}"):
        status = WorkspacePathsApi(client).status(path)
    info = WorkspaceObjectInfo.model_validate(
        {**status, "permissions_type": _PERMISSIONS_TYPE.get(str(status.get("object_type")))}
    )
    return info.as_output()


class IpAccessListInfo(LookupResult):
    list_id: str
    label: str
    list_type: str
    ip_addresses: list[str] = Field(default_factory=list)
    address_count: int | None = None
    enabled: bool | None = None


class RepoInfo(LookupResult):
    id: int
    path: str
    url: str | None = None
    provider: str | None = None
    branch: str | None = None
    head_commit_id: str | None = None


class WorkspaceObjectInfo(LookupResult):
    """What is at a workspace path: its type as the workspace names it (NOTEBOOK,
    DIRECTORY, FILE, REPO, ...), its object id, and the permissions type that id is
    addressed by (notebooks, directories, files, repos; None for other objects)."""

    path: str
    object_type: str
    object_id: int
    language: str | None = None
    permissions_type: str | None = None
