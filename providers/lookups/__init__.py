"""Lookups: read-only queries of the workspace that a stack program can make.

    cluster = get_cluster(auth.connection, name="etl-nightly")
    pulumi.export("etl_cluster_state", cluster.apply(lambda c: c["state"]))

Each `get_*` takes the `connection` output of a `WorkspaceAuth` component and its keys as
plain values or Outputs, and returns an Output of a plain dict (the fields of the matching
model in its domain's `lookups` module). Lookups are GET calls only, so they run during
`pulumi preview` as well as `pulumi up` (once the keys are known). One that finds nothing,
or finds several where one was asked for, fails the program with `LookupFailed` naming
what was looked up.

The connection is a secret; the results are not: they hold names, ids and states, never a
credential, so they are handed out as plain (non-secret) Outputs and can be exported. A key
given as a secret keeps the result secret.

The `find_*` functions do the same against a `WorkspaceClient`, for code outside a program.

Each domain keeps its own (`providers.compute.lookups`, ...); this module gathers them.
"""

from __future__ import annotations

from providers.compute.lookups import (
    AutoscaleInfo,
    ClusterInfo,
    ClusterPolicyInfo,
    NodeTypeInfo,
    SparkVersionInfo,
    find_cluster,
    find_cluster_policy,
    find_node_type,
    find_spark_version,
    get_cluster,
    get_cluster_policy,
    get_node_type,
    get_spark_version,
)
from providers.core.lookup import LookupFailed, Result
from providers.identity.lookups import (
    CurrentUserInfo,
    GroupInfo,
    ServicePrincipalInfo,
    UserInfo,
    find_current_user,
    find_group,
    find_service_principal,
    find_user,
    get_current_user,
    get_group,
    get_service_principal,
    get_user,
)
from providers.jobs.lookups import (
    JobInfo,
    JobRunInfo,
    JobRunTaskInfo,
    find_job,
    find_job_run,
    get_job,
    get_job_run,
)
from providers.secrets.lookups import (
    KeyVaultInfo,
    SecretScopeInfo,
    find_secret_scope,
    get_secret_scope,
)
from providers.unity_catalog.lookups import (
    CatalogBindingInfo,
    CatalogBindingsInfo,
    find_catalog_bindings,
    get_catalog_bindings,
)
from providers.workspace.lookups import (
    IpAccessListInfo,
    RepoInfo,
    WorkspaceObjectInfo,
    find_ip_access_list,
    find_ip_access_lists,
    find_repo,
    find_workspace_object,
    get_ip_access_list,
    get_ip_access_lists,
    get_repo,
    get_workspace_object,
)

__all__ = [
    "AutoscaleInfo",
    "CatalogBindingInfo",
    "CatalogBindingsInfo",
    "ClusterInfo",
    "ClusterPolicyInfo",
    "CurrentUserInfo",
    "find_catalog_bindings",
    "find_cluster",
    "find_cluster_policy",
    "find_current_user",
    "find_group",
    "find_ip_access_list",
    "find_ip_access_lists",
    "find_job",
    "find_job_run",
    "find_node_type",
    "find_repo",
    "find_secret_scope",
    "find_service_principal",
    "find_spark_version",
    "find_user",
    "find_workspace_object",
    "get_catalog_bindings",
    "get_cluster",
    "get_cluster_policy",
    "get_current_user",
    "get_group",
    "get_ip_access_list",
    "get_ip_access_lists",
    "get_job",
    "get_job_run",
    "get_node_type",
    "get_repo",
    "get_secret_scope",
    "get_service_principal",
    "get_spark_version",
    "get_user",
    "get_workspace_object",
    "GroupInfo",
    "IpAccessListInfo",
    "JobInfo",
    "JobRunInfo",
    "JobRunTaskInfo",
    "KeyVaultInfo",
    "LookupFailed",
    "NodeTypeInfo",
    "RepoInfo",
    "Result",
    "SecretScopeInfo",
    "ServicePrincipalInfo",
    "SparkVersionInfo",
    "UserInfo",
    "WorkspaceObjectInfo",
]
