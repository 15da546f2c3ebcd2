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

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from providers.access.acl import (
    PATH_FIELDS,
    RESOLVED_ID,
    RESOLVED_TYPE,
    AclProvider,
    with_entries,
    workspace_path,
)
from providers.client import NotFound, WorkspaceError
from providers.compute.cluster_policies_api import ClusterPoliciesApi
from providers.compute.clusters_api import ClustersApi
from providers.compute.instance_pools_api import InstancePoolsApi
from providers.core import import_ids
from providers.core.kind import Adoption, DrillChange, ReferenceByType, declare, principal_names
from providers.core.registry import kind_named
from providers.workspace.repos_api import ReposApi
from providers.workspace.workspace_objects import walked_objects

# (object id, display name, creator's name or None) of every object of a type whose
# permissions the Permissions kind lists (jobs' are JobPermissions').
Listing = Callable[[Any], Iterable[tuple[str, str, str | None]]]


def _clusters(client: Any) -> Iterable[tuple[str, str, str | None]]:
    return (
        (str(c["cluster_id"]), str(c.get("cluster_name", "")), c.get("creator_user_name"))
        for c in ClustersApi(client).list()
        if c.get("cluster_source") != "JOB"  # a job's cluster comes and goes with its run
    )


def _cluster_policies(client: Any) -> Iterable[tuple[str, str, str | None]]:
    return (
        (str(p["policy_id"]), str(p.get("name", "")), p.get("creator_user_name"))
        for p in ClusterPoliciesApi(client).list()
    )


def _instance_pools(client: Any) -> Iterable[tuple[str, str, str | None]]:
    return (
        (str(p["instance_pool_id"]), str(p.get("instance_pool_name", "")),
         (p.get("default_tags") or {}).get("DatabricksInstancePoolCreatorId"))
        for p in InstancePoolsApi(client).list()
    )


def _repos(client: Any) -> Iterable[tuple[str, str, str | None]]:
    return ((str(r["id"]), str(r.get("path", "")), None) for r in ReposApi(client).list())


def _of_kind(kind_name: str) -> Listing:
    """The objects of another domain's kind as its inventory lists them (the registry's:
    access imports no SQL or pipelines module). Their creator is their owner (IS_OWNER)."""
    def listing(client: Any) -> Iterable[tuple[str, str, str | None]]:
        inventory = kind_named(kind_name).inventory
        assert inventory is not None, kind_name
        return ((str(id_), str(name), None) for id_, name in inventory(client))
    return listing


LISTED_PERMISSION_TYPES: dict[str, Listing] = {
    "clusters": _clusters,
    "cluster-policies": _cluster_policies,
    "instance-pools": _instance_pools,
    "repos": _repos,
    "warehouses": _of_kind("SqlWarehouse"),
    "pipelines": _of_kind("Pipeline"),
}

# The path field of an item addressing a walked object of that type (notebooks, folders and
# files are declared by their path, which a notebook uploaded anew keeps).
WALKED_PATH_FIELDS = {kind: field for field, (kind, _) in PATH_FIELDS.items() if kind != "REPO"}

# Entries the service puts on a folder by itself: every user may manage /Shared.
SERVICE_OWN_ON_PATH: dict[str, frozenset[tuple[str, str]]] = {
    "/Shared": frozenset({("users", "CAN_MANAGE")}),
}


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
    "sql/queries": "queries",
    "sql/alerts": "alerts",
    "dashboards": "dashboards",
    "apps": "apps",  # an app's id is its name
    "experiments": "experiments",
    "serving-endpoints": "servingEndpoints",
}
# The types whose objects the permissions API addresses by an output of the item, not its
# resource id: a serving endpoint's resource id is its name, its permissions take its id.
ADDRESSED_BY_OUTPUT = {"serving-endpoints": "endpoint_id"}


class PermissionsProvider(AclProvider):
    """The access-control list of one object of any type, addressed as the model says."""


def _object_permissions(client: Any) -> Iterator[tuple[str, str]]:
    """(import id, name) of every listed object whose access-control list holds a direct
    entry besides what the service put there itself: the owner's, and the creator's
    CAN_MANAGE (the creator the listing names; where it names none, the principal the stack
    signs in as, which makes the stack's objects). Notebooks, folders and files come from
    the walk of the workspace tree the audit lists them by (`walked_objects`), by path."""
    signed_in = _signed_in_names(client)
    for object_type, listing in LISTED_PERMISSION_TYPES.items():
        for object_id, name, creator in listing(client):
            makers = {creator} if creator else signed_in
            if _holds_entries(client, object_type, object_id, makers):
                yield f"{object_type}/{object_id}", f"{object_type}/{name or object_id}"
    for found in walked_objects(client):
        field = WALKED_PATH_FIELDS.get(found.object_type)
        if field is None or found.object_id is None:
            continue
        own = SERVICE_OWN_ON_PATH.get(found.path, frozenset())
        object_type = PATH_FIELDS[field][1]
        if _holds_entries(client, object_type, found.object_id, signed_in, own):
            yield f"{field}:{found.path}", found.path
    # Token and password usage (`authorization/...`) is not listed: every workspace has
    # both objects, most with entries its admins made, and a stack declares its own.


def _holds_entries(
    client: Any, object_type: str, object_id: str, makers: Iterable[str],
    own: Iterable[tuple[str, str]] = (),
) -> bool:
    try:
        answer = client.permissions(object_type).get(object_id)
    except NotFound:  # gone since it was listed
        return False
    service_own = {(maker, "CAN_MANAGE") for maker in makers} | set(own)
    return with_entries(answer, service_own)


def _signed_in_names(client: Any) -> frozenset[str]:
    """The names an entry gives the principal the client signs in as (its application id,
    its user name), where the workspace says who that is."""
    try:
        me = client.me()
    except WorkspaceError:
        return frozenset()
    return frozenset(str(me[key]) for key in ("applicationId", "userName") if me.get(key))


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
    names={
        **principal_names("owner"),
        **principal_names("access_controls[]"),
    },
    doc="docs/permissions.md",
    summary="the declared access-control entries (and optionally the owner) of any object",
    import_id="<object type>/<object id>, or <path field>:<workspace path>",
    import_id_rule=import_id_problem,
    # The object a path-addressed resource's path names (absent on the other forms).
    outputs={RESOLVED_TYPE: str, RESOLVED_ID: str},
    # A path may name a folder, notebook or file of the stack: made before, deleted after.
    # An account group is given access once the workspace has it (assigned).
    after=("directories", "notebooks", "workspaceFiles", "workspaceAssignments"),
    references={"object_id": ReferenceByType("object_id", "object_type", DECLARED_TYPES,
                                              ADDRESSED_BY_OUTPUT)},
    inventory=_object_permissions,
    # An import reads every direct entry (so an authoritative declaration previews no
    # change); an adopted item stays additive, as Permissions are by default.
    adoption=Adoption(leaves_out={"authoritative": lambda spec, outputs: True}),
    drill=DrillChange(_drill_change),
)
