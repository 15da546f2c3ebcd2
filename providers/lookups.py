"""Lookups: read-only queries of the workspace that a stack program can make.

    cluster = get_cluster(auth.connection, name="etl-nightly")
    pulumi.export("etl_cluster_state", cluster.apply(lambda c: c["state"]))

Each `get_*` takes the `connection` output of a `WorkspaceAuth` component and its keys as
plain values or Outputs, and returns an Output of a plain dict (the fields of the matching
model in `providers.lookups_results`). Lookups are GET calls only, so they run during
`pulumi preview` as well as `pulumi up` (once the keys are known). One that finds nothing,
or finds several where one was asked for, fails the program with `LookupFailed` naming
what was looked up.

The connection is a secret; the results are not: they hold names, ids and states, never a
credential, so they are handed out as plain (non-secret) Outputs and can be exported. A key
given as a secret keeps the result secret.

The `find_*` functions do the same against a `WorkspaceClient`, for code outside a program.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pulumi

from providers.client import (
    Connection,
    NotFound,
    WorkspaceClient,
    WorkspaceError,
    client_for,
    is_gone,
)
from providers.client.blocking import in_thread
from providers.compute_choice import (
    NodeTypeCriteria,
    SparkVersionCriteria,
    choose_node_type,
    matching_spark_versions,
)
from providers.ids import parse_int64_id
from providers.lookups_results import (
    CatalogBindingInfo,
    CatalogBindingsInfo,
    ClusterInfo,
    ClusterPolicyInfo,
    GroupInfo,
    IpAccessListInfo,
    JobInfo,
    JobRunInfo,
    NodeTypeInfo,
    RepoInfo,
    SecretScopeInfo,
    ServicePrincipalInfo,
    SparkVersionInfo,
    UserInfo,
    WorkspaceObjectInfo,
)

Result = dict[str, Any]


class LookupFailed(pulumi.RunError):
    """A lookup found nothing, or more than the one object asked for."""


# --- in a program: Outputs ---------------------------------------------------------------


def get_cluster(
    connection: pulumi.Input[dict],
    *,
    name: pulumi.Input[str] | None = None,
    cluster_id: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A cluster by `name` (its cluster_name, which must be unique) or by `cluster_id`."""
    _exactly_one("get_cluster", name=name, cluster_id=cluster_id)
    return _lookup(connection, find_cluster, name=name, cluster_id=cluster_id)


def get_job(
    connection: pulumi.Input[dict],
    *,
    name: pulumi.Input[str] | None = None,
    job_id: pulumi.Input[int] | None = None,
) -> pulumi.Output[Result]:
    """A job by `name` (which must be unique) or by `job_id`."""
    _exactly_one("get_job", name=name, job_id=job_id)
    return _lookup(connection, find_job, name=name, job_id=job_id)


def get_job_run(
    connection: pulumi.Input[dict], *, run_id: pulumi.Input[int]
) -> pulumi.Output[Result]:
    """A run of a job by its `run_id`, with its life-cycle and result state."""
    _exactly_one("get_job_run", run_id=run_id)
    return _lookup(connection, find_job_run, run_id=run_id)


def get_service_principal(
    connection: pulumi.Input[dict],
    *,
    application_id: pulumi.Input[str] | None = None,
    display_name: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A service principal of the workspace by `application_id` or `display_name`."""
    _exactly_one("get_service_principal", application_id=application_id, display_name=display_name)
    return _lookup(
        connection,
        find_service_principal,
        application_id=application_id,
        display_name=display_name,
    )


def get_secret_scope(
    connection: pulumi.Input[dict], *, name: pulumi.Input[str]
) -> pulumi.Output[Result]:
    """A secret scope by `name`, with its backend (and key vault, if it has one)."""
    _exactly_one("get_secret_scope", name=name)
    return _lookup(connection, find_secret_scope, name=name)


def get_ip_access_lists(connection: pulumi.Input[dict]) -> pulumi.Output[list[Result]]:
    """Every IP access list of the workspace (an empty list when there are none)."""
    return _lookup(connection, find_ip_access_lists)


def get_ip_access_list(
    connection: pulumi.Input[dict],
    *,
    label: pulumi.Input[str] | None = None,
    list_id: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """One IP access list by `label` (which must be unique) or by `list_id`."""
    _exactly_one("get_ip_access_list", label=label, list_id=list_id)
    return _lookup(connection, find_ip_access_list, label=label, list_id=list_id)


def get_repo(
    connection: pulumi.Input[dict],
    *,
    repo_id: pulumi.Input[int] | None = None,
    path: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A repo by `repo_id` or by its workspace `path` (e.g. /Repos/team/project)."""
    _exactly_one("get_repo", repo_id=repo_id, path=path)
    return _lookup(connection, find_repo, repo_id=repo_id, path=path)


def get_workspace_object(
    connection: pulumi.Input[dict], *, path: pulumi.Input[str]
) -> pulumi.Output[Result]:
    """The object at a workspace `path` (with or without the /Workspace prefix): its
    `object_type` (NOTEBOOK, DIRECTORY, FILE, REPO, ...), its `object_id` (what
    `Permissions` takes as `object_id`) and its `permissions_type` (notebooks, directories,
    files, repos)."""
    _exactly_one("get_workspace_object", path=path)
    return _lookup(connection, find_workspace_object, path=path)


def get_catalog_bindings(
    connection: pulumi.Input[dict], *, catalog: pulumi.Input[str]
) -> pulumi.Output[Result]:
    """A catalog's isolation mode and workspace bindings (which count only while it is
    ISOLATED)."""
    _exactly_one("get_catalog_bindings", catalog=catalog)
    return _lookup(connection, find_catalog_bindings, catalog=catalog)


def get_cluster_policy(
    connection: pulumi.Input[dict],
    *,
    name: pulumi.Input[str] | None = None,
    policy_id: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A cluster policy by `name` (names are unique) or by `policy_id`; its definition as a
    JSON object."""
    _exactly_one("get_cluster_policy", name=name, policy_id=policy_id)
    return _lookup(connection, find_cluster_policy, name=name, policy_id=policy_id)


def get_node_type(
    connection: pulumi.Input[dict],
    *,
    min_memory_gb: pulumi.Input[float] | None = None,
    min_cores: pulumi.Input[float] | None = None,
    min_gpus: pulumi.Input[int] | None = None,
    local_disk: pulumi.Input[bool] | None = None,
    local_disk_min_size_gb: pulumi.Input[int] | None = None,
    category: pulumi.Input[str] | None = None,
    photon: pulumi.Input[bool] | None = None,
) -> pulumi.Output[Result]:
    """The smallest node type of the workspace that meets every criterion given (none: the
    smallest of all); deprecated and hidden ones, and GPU ones unless `min_gpus`, never."""
    return _lookup(
        connection,
        find_node_type,
        min_memory_gb=min_memory_gb,
        min_cores=min_cores,
        min_gpus=min_gpus,
        local_disk=local_disk,
        local_disk_min_size_gb=local_disk_min_size_gb,
        category=category,
        photon=photon,
    )


def get_spark_version(
    connection: pulumi.Input[dict],
    *,
    long_term_support: bool = False,
    latest: bool = True,
    ml: bool = False,
    gpu: bool = False,
    photon: bool = False,
    beta: bool = False,
    scala: str = "2.12",
    spark_version: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A runtime version (`key` for a cluster's `spark_version`, and its `name`): the newest
    that matches (`latest=False`: the only one, or fail listing them). `spark_version`: the
    Apache Spark version it must include, e.g. "3.5.0"."""
    criteria = SparkVersionCriteria(long_term_support, ml, gpu, photon, beta, scala)
    return _lookup(
        connection,
        lambda client, **keys: find_spark_version(
            client, criteria=criteria, latest=latest, **keys
        ),
        spark_version=spark_version,
    )
def get_group(
    connection: pulumi.Input[dict],
    *,
    display_name: pulumi.Input[str] | None = None,
    group_id: pulumi.Input[str] | None = None,
) -> pulumi.Output[Result]:
    """A group by `display_name` or by its SCIM `group_id`, with its members' ids."""
    _exactly_one("get_group", display_name=display_name, group_id=group_id)
    return _lookup(connection, find_group, display_name=display_name, group_id=group_id)


def get_user(
    connection: pulumi.Input[dict], *, user_name: pulumi.Input[str]
) -> pulumi.Output[Result]:
    """A user of the workspace by `user_name` (an e-mail address; case does not matter)."""
    _exactly_one("get_user", user_name=user_name)
    return _lookup(connection, find_user, user_name=user_name)


def _exactly_one(lookup: str, **keys: Any) -> None:
    given = [name for name, value in keys.items() if value is not None]
    if len(given) != 1:
        names = " or ".join(keys)
        raise LookupFailed(
            f"{lookup}: give {names}" + (f" (got {', '.join(given)})" if given else "")
        )


def _lookup(connection: pulumi.Input[dict], find: Callable[..., Any], **keys: Any) -> pulumi.Output:
    given = {name: value for name, value in keys.items() if value is not None}

    def run(values: dict[str, Any]) -> Any:
        client = client_for(Connection.from_props(values.pop("connection")))
        return find(client, **values)

    # The connection's secrecy is not passed on (it never leaves `run`); a key's is.
    plain_connection = pulumi.Output.unsecret(pulumi.Output.from_input(connection))
    return pulumi.Output.all(connection=plain_connection, **given).apply(
        lambda values: in_thread(run, dict(values))
    )


# --- against a client: plain values ------------------------------------------------------


def find_cluster(
    client: WorkspaceClient, *, name: str | None = None, cluster_id: str | None = None
) -> Result:
    if cluster_id is not None:
        try:
            return ClusterInfo.model_validate(client.clusters.get(cluster_id)).as_output()
        except NotFound:
            raise _nothing(client, f"cluster with cluster_id {cluster_id!r}") from None
    named = [c for c in client.clusters.list() if c.get("cluster_name") == name]
    found = _only(client, named, f"cluster named {name!r}", "cluster_id")
    return ClusterInfo.model_validate(found).as_output()


def find_job(client: WorkspaceClient, *, name: str | None = None, job_id: Any = None) -> Result:
    """The job with its full settings (every task and job cluster, in the canonical
    multi-task shape)."""
    if job_id is None:
        # A listing leaves tasks and job clusters out: it only tells the id.
        named = [j for j in client.jobs.list(name) if (j.get("settings") or {}).get("name") == name]
        job_id = _only(client, named, f"job named {name!r}", "job_id")["job_id"]
    with _nothing_if_gone(client, f"job with job_id {job_id!r}"):
        return JobInfo.from_service(client.jobs.get(_as_id(job_id, "job id"))).as_output()


def find_job_run(client: WorkspaceClient, *, run_id: Any) -> Result:
    with _nothing_if_gone(client, f"job run with run_id {run_id!r}"):
        return JobRunInfo.from_service(client.jobs.get_run(_as_id(run_id, "run id"))).as_output()


def find_service_principal(
    client: WorkspaceClient,
    *,
    application_id: str | None = None,
    display_name: str | None = None,
) -> Result:
    key, value = (
        ("applicationId", application_id)
        if application_id is not None
        else (
            "displayName",
            display_name or "",
        )
    )
    what = (
        f"service principal with application_id {application_id!r}"
        if application_id is not None
        else f"service principal named {display_name!r}"
    )
    listed = client.service_principals.list(f'{key} eq "{_scim_quoted(value)}"')
    # The filter is a first cut: `eq` may ignore case; the match must be exact.
    exact = [p for p in listed if p.get(key) == value]
    found = _only(client, exact, what, "application_id", key_of=lambda p: p.get("applicationId"))
    return ServicePrincipalInfo.from_service(found).as_output()


def find_secret_scope(client: WorkspaceClient, *, name: str) -> Result:
    named = [s for s in client.secret_scopes.list() if s.get("name") == name]
    return SecretScopeInfo.model_validate(
        _only(client, named, f"secret scope named {name!r}", "name")
    ).as_output()


def find_ip_access_lists(client: WorkspaceClient) -> list[Result]:
    return [
        IpAccessListInfo.model_validate(item).as_output() for item in client.ip_access_lists.list()
    ]


def find_ip_access_list(
    client: WorkspaceClient, *, label: str | None = None, list_id: str | None = None
) -> Result:
    lists = client.ip_access_lists.list()
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
    return IpAccessListInfo.model_validate(_only(client, matches, what, "list_id")).as_output()


def find_repo(client: WorkspaceClient, *, repo_id: Any = None, path: str | None = None) -> Result:
    if repo_id is not None:
        try:
            return RepoInfo.model_validate(client.repos.get(_as_id(repo_id, "repo id"))).as_output()
        except NotFound:
            raise _nothing(client, f"repo with repo_id {repo_id!r}") from None
    at_path = [r for r in client.repos.list(path_prefix=path) if r.get("path") == path]
    return RepoInfo.model_validate(
        _only(client, at_path, f"repo at path {path!r}", "id")
    ).as_output()


# The workspace's object types that have permissions of their own, by the permissions type.
_PERMISSIONS_TYPE = {
    "NOTEBOOK": "notebooks", "DIRECTORY": "directories", "FILE": "files", "REPO": "repos",
}


def find_workspace_object(client: WorkspaceClient, *, path: str) -> Result:
    with _nothing_if_gone(client, f"workspace object at path {path!r}"):
        status = client.workspace_paths.status(path)
    info = WorkspaceObjectInfo.model_validate(
        {**status, "permissions_type": _PERMISSIONS_TYPE.get(str(status.get("object_type")))}
    )
    return info.as_output()


def find_catalog_bindings(client: WorkspaceClient, *, catalog: str) -> Result:
    try:
        info = client.catalogs.get(catalog)
        bindings = client.catalogs.get_bindings(catalog)
    except NotFound:
        raise _nothing(client, f"catalog named {catalog!r}") from None
    return CatalogBindingsInfo(
        catalog=catalog,
        isolation_mode=info.get("isolation_mode"),
        bindings=[CatalogBindingInfo.model_validate(b) for b in bindings],
    ).as_output()


def find_cluster_policy(
    client: WorkspaceClient, *, name: str | None = None, policy_id: str | None = None
) -> Result:
    if policy_id is not None:
        with _nothing_if_gone(client, f"cluster policy with policy_id {policy_id!r}"):
            policy = client.cluster_policies.get(policy_id)
        return ClusterPolicyInfo.from_service(policy).as_output()
    named = [p for p in client.cluster_policies.list() if p.get("name") == name]
    found = _only(client, named, f"cluster policy named {name!r}", "policy_id")
    return ClusterPolicyInfo.from_service(found).as_output()


def find_node_type(client: WorkspaceClient, **criteria: Any) -> Result:
    wanted = NodeTypeCriteria(**criteria)
    found = choose_node_type(client.clusters.node_types(), wanted)
    if found is None:
        raise _nothing(client, f"node type with {wanted.describe()}")
    return NodeTypeInfo.from_service(dict(found)).as_output()


def find_spark_version(
    client: WorkspaceClient,
    *,
    criteria: SparkVersionCriteria | None = None,
    latest: bool = True,
    spark_version: str | None = None,
) -> Result:
    wanted = dataclasses.replace(criteria or SparkVersionCriteria(), spark_version=spark_version)
    found = matching_spark_versions(client.clusters.spark_versions(), wanted)
    what = f"Spark version with {wanted.describe() or 'no criteria'}"
    if not found:
        raise _nothing(client, what)
    if len(found) > 1 and not latest:
        keys = ", ".join(repr(v.get("key")) for v in found)
        raise LookupFailed(
            f"{len(found)} objects match: {what} in {client.connection.base_url} ({keys}); "
            "narrow the criteria, or pass latest=True for the newest"
        )
    return SparkVersionInfo.model_validate(dict(found[0])).as_output()
def find_group(
    client: WorkspaceClient, *, display_name: str | None = None, group_id: str | None = None
) -> Result:
    if group_id is not None:
        with _nothing_if_gone(client, f"group with group_id {group_id!r}"):
            return GroupInfo.from_service(client.groups.get(group_id)).as_output()
    named = client.groups.named(display_name or "")
    return GroupInfo.from_service(
        _only(client, named, f"group named {display_name!r}", "id")
    ).as_output()


def find_user(client: WorkspaceClient, *, user_name: str) -> Result:
    named = client.users.named(user_name)
    found = _only(client, named, f"user with user_name {user_name!r}", "id")
    return UserInfo.from_service(found).as_output()


# --- helpers -----------------------------------------------------------------------------


def _only(
    client: WorkspaceClient,
    matches: list[dict[str, Any]],
    what: str,
    id_field: str,
    key_of: Callable[[dict[str, Any]], Any] | None = None,
) -> dict[str, Any]:
    if not matches:
        raise _nothing(client, what)
    if len(matches) > 1:
        ids = ", ".join(repr(key_of(m) if key_of else m.get(id_field)) for m in matches)
        raise LookupFailed(
            f"{len(matches)} objects match: {what} in {client.connection.base_url} "
            f"({ids}); look it up by {id_field}"
        )
    return matches[0]


@contextlib.contextmanager
def _nothing_if_gone(client: WorkspaceClient, what: str) -> Iterator[None]:
    """A lookup of an object the service says is gone fails as "no <what>"."""
    try:
        yield
    except WorkspaceError as error:
        if is_gone(error):
            raise _nothing(client, what) from None
        raise


def _nothing(client: WorkspaceClient, what: str) -> LookupFailed:
    return LookupFailed(f"no {what} in the workspace {client.connection.base_url}")


def _as_id(value: Any, what: str) -> int:
    try:
        return parse_int64_id(value, what)
    except ValueError as exc:
        raise LookupFailed(str(exc)) from None


def _scim_quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')
