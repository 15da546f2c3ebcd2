"""Permissions: the access-control entries a stack declares on one object of any type the
service's permissions API serves (a cluster, a notebook, a SQL warehouse, a job, ...), and,
opted into, the object's owner.

It manages only the entries it declares. Entries made by anyone else are never touched:
declared entries are added or changed with PATCH, which keeps the rest; an entry no longer
declared (on update, and every declared entry on delete) is removed by reading the direct
entries and PUTting them back without it, since PATCH cannot remove and PUT replaces every
direct entry. The owner (IS_OWNER, on the types that have one) is never dropped: a PUT
always carries it, and declaring the owner among the entries is refused before any write,
since a lower level would demote it. Ownership moves only when `owner` is declared; a
destroy leaves the owner as it is (an object always has one).

The levels allowed on each type are the official SDK's enum of that type
(`OBJECT_TYPES`), loaded when first needed, or the service's published list where the SDK
has no enum (Lakeview dashboards, `FIXED_LEVELS`). The object is addressed one way of four:
its type and id (`object_type`, `object_id`); token or password usage (`authorization:
tokens | passwords`, the objects `authorization/tokens` and `authorization/passwords`); or a
workspace path (`notebook_path`, `directory_path`, `workspace_file_path`, `repo_path`),
resolved to the object's id by the workspace's get-status call at every create, read,
update and delete, the id found an output (`resolved_object_type`, `resolved_object_id`).
The id is `<object type>/<object id>`, or `<path field>:<path>` for a path: a resource
addressed by path follows the path (an object put there anew gets the declared entries
back at the next up). Another object replaces the resource. JobPermissions
(job_permissions.py) is this provider with the object type fixed to jobs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from providers.access.acl import (
    RESOLVED_ID,
    RESOLVED_TYPE,
    AclProvider,
    with_entries,
    workspace_path,
)
from providers.compute.cluster_policies_api import ClusterPoliciesApi
from providers.compute.clusters_api import ClustersApi
from providers.core import import_ids
from providers.core.kind import DrillChange, ReferenceByType, declare
from providers.workspace.repos_api import ReposApi

if TYPE_CHECKING:
    pass

# Object types whose permissions the Permissions kind adopts: those the client can list
# (jobs' are JobPermissions'); -> the id field and name field of a listed object.
LISTED_PERMISSION_TYPES = ("clusters", "cluster-policies", "repos")


# Object types whose objects a stack declares -> their config list: an `object_id` naming an
# item of that list is a reference to it (the permissions wait for the object).
DECLARED_TYPES = {
    "jobs": "jobs",
    "clusters": "clusters",
    "cluster-policies": "clusterPolicies",
    "instance-pools": "instancePools",
    "warehouses": "sqlWarehouses",
    "sql/warehouses": "sqlWarehouses",
    "pipelines": "pipelines",
    "repos": "repos",
    "experiments": "experiments",
}


class PermissionsProvider(AclProvider):
    """The access-control list of one object of any type, addressed as the model says."""


def _object_permissions(client: Any) -> Any:
    listed = {
        "clusters": [
            (str(c["cluster_id"]), str(c.get("cluster_name", "")))
            for c in ClustersApi(client).list()
            if c.get("cluster_source") != "JOB"
        ],
        "cluster-policies": [
            (str(p["policy_id"]), str(p.get("name", ""))) for p in ClusterPoliciesApi(client).list()
        ],
        "repos": [(str(r["id"]), str(r.get("path", ""))) for r in ReposApi(client).list()],
    }
    for object_type in LISTED_PERMISSION_TYPES:
        for object_id, name in listed[object_type]:
            if with_entries(client.permissions(object_type).get(object_id)):
                yield f"{object_type}/{object_id}", f"{object_type}/{name or object_id}"
    # Token and password usage (`authorization/...`) is not listed: every workspace has
    # both objects, most with entries its admins made, and a stack declares its own.


def import_id_problem(id_: str) -> str | None:
    """What is wrong with a Permissions import id (`PermissionsProvider.target_of_id`, or a
    path field's workspace path), before any request."""
    problem = import_ids.no_dot_segments(id_)
    if problem is not None:
        return problem
    by_path = PermissionsProvider.path_of_id(id_)
    try:
        if by_path is not None:
            workspace_path(by_path[1])
        else:
            PermissionsProvider().target_of_id(id_)
    except ValueError as error:
        return f"is not one: {error}"
    return None


def _drill_change(item: dict[str, Any]) -> dict[str, Any]:
    """Who may attach to a cluster may restart it too (other objects' entries kept)."""
    for entry in item["access_controls"]:
        if entry["permission_level"] == "CAN_ATTACH_TO":
            entry["permission_level"] = "CAN_RESTART"
    return item


KIND = declare(
    name="Permissions",
    provider=PermissionsProvider,
    config_key="permissions",
    doc="docs/permissions.md",
    summary="the declared access-control entries (and optionally the owner) of any object",
    import_id="<object type>/<object id>, or <path field>:<workspace path>",
    import_id_rule=import_id_problem,
    # The object a path-addressed resource's path names (absent on the other forms).
    outputs={RESOLVED_TYPE: str, RESOLVED_ID: str},
    # A path may name a folder, notebook or file of the stack: made before, deleted after.
    after=("directories", "notebooks", "workspaceFiles"),
    references={"object_id": ReferenceByType("object_id", "object_type", DECLARED_TYPES)},
    inventory=_object_permissions,
    drill=DrillChange(_drill_change),
)
