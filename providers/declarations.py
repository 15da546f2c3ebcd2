"""Every resource kind's declaration, in the stack program's order: a kind comes after the
kinds its references point into. Adding a kind: its implementation module (input model,
provider, `KIND = kind_named(...).implemented_by(...)`), its declaration here, its doc page
and its tests (docs/architecture.md).

This module loads no implementation: a program that declares resources needs only what is
here (providers/kind.py says why). What a declaration computes (a lookup, an inventory)
loads the code it needs when it runs.
"""

from __future__ import annotations

from typing import Any

import pulumi

from providers.kind import DEPLOYMENT_TAG, Kind, Lookup, Reference, declare

# What a secret's state and outputs name, and its inputs that are always Pulumi secrets.
SECRET_VALUE_FIELDS = ("string_value", "bytes_value")
SECRET_DIGEST_KEY = "value_digest"
SECRET_TIMESTAMP_KEY = "last_updated_timestamp"
# The output of a service principal's OAuth secret that holds its value.
PRINCIPAL_SECRET_VALUE_KEY = "secret"

# Groups the workspace itself holds; never made or deleted by a stack, nor listed by the
# audit as unmanaged.
SYSTEM_GROUPS = frozenset({"admins", "users"})


def _cluster_id_named(connection: pulumi.Input[dict], name: str) -> pulumi.Output[str]:
    from providers.lookups import get_cluster

    return get_cluster(connection, name=name).apply(lambda cluster: cluster["cluster_id"])


def _user_id_named(connection: pulumi.Input[dict], user_name: str) -> pulumi.Output[str]:
    from providers.lookups import get_user

    return get_user(connection, user_name=user_name).apply(lambda user: user["id"])


def _job_run_output(run: Any) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "result_state": run.result_state,
        "task_results": run.task_results,
        "run_page_url": run.run_page_url,
    }


def _principal_secret_output(secret: Any) -> dict[str, Any]:
    # The value makes the whole output a secret: `pulumi stack output --show-secrets`.
    return {
        "client_id": secret.application_id,
        "client_secret": secret.secret,
        "secret_id": secret.secret_id,
        "expire_time": secret.expire_time,
    }


DECLARATIONS: tuple[Kind, ...] = (
    declare(
        name="ServicePrincipal",
        implementation="providers.service_principal",
        config_key="servicePrincipals",
        identity=("application_id",),
        doc="docs/service-principal.md",
        summary="a service principal of the workspace (never removed from the identity provider)",
        import_id="the workspace's principal id",
        # Declared, or assigned by the service where left out (AWS, GCP).
        outputs={"application_id": str},
        defaults={"active": True},
        stack_output=("service_principals", lambda resource: resource.id),
        inventory=lambda client: (
            (str(p["id"]), p.get("displayName") or p.get("applicationId") or "")
            for p in client.service_principals.list()
        ),
    ),
    declare(
        name="ServicePrincipalSecret",
        implementation="providers.service_principal_secret",
        outputs={
            "secret_id": str,
            PRINCIPAL_SECRET_VALUE_KEY: str,
            "application_id": str,
            "status": str,
            "create_time": str,
            "expire_time": str,
        },
        config_key="servicePrincipalSecrets",
        references={
            "service_principal": Reference(
                target_key="servicePrincipals", field="service_principal_id"
            )
        },
        doc="docs/service-principal-secret.md",
        summary="an OAuth secret of a service principal, for oauth-m2m sign-in (its value a "
        "Pulumi secret; every change replaces it)",
        import_id="<principal id>/<secret id>",
        secrets=(PRINCIPAL_SECRET_VALUE_KEY,),
        stack_output=("service_principal_secrets", _principal_secret_output),
    ),
    declare(
        name="SecretScope",
        implementation="providers.secret_scope",
        outputs={"backend_type": str},
        config_key="secretScopes",
        identity=("name",),
        doc="docs/secret-scope.md",
        summary="a secret scope, plain or backed by a key vault (every change replaces it)",
        import_id="scope name",
        stack_output=("secret_scopes", lambda resource: resource.id),
        inventory=lambda client: (
            (str(scope["name"]), str(scope["name"])) for scope in client.secret_scopes.list()
        ),
    ),
    declare(
        name="Secret",
        implementation="providers.secret",
        outputs={SECRET_DIGEST_KEY: str, SECRET_TIMESTAMP_KEY: int},
        config_key="secrets",
        references={"secret_scope": Reference(target_key="secretScopes", field="scope")},
        doc="docs/secret.md",
        summary="a key and its value (a Pulumi secret) in a secret scope",
        import_id="<scope>/<key>",
        secrets=(*SECRET_VALUE_FIELDS, SECRET_DIGEST_KEY),
    ),
    declare(
        name="SecretAcl",
        implementation="providers.secret_acl",
        config_key="secretAcls",
        references={"secret_scope": Reference(target_key="secretScopes", field="scope")},
        doc="docs/secret-acl.md",
        summary="READ, WRITE or MANAGE for one principal on a secret scope",
        import_id="<scope>/<principal>",
    ),
    declare(
        name="Job",
        implementation="providers.job",
        outputs={"job_id": int, "url": str, "creator_user_name": str},
        stamped=DEPLOYMENT_TAG,
        config_key="jobs",
        after=("servicePrincipals",),  # a job may run as one of the stack's principals
        doc="docs/job.md",
        summary="a job at the full depth of Jobs API 2.2, changed in place",
        import_id="job id",
        stack_output=("jobs", lambda resource: resource.job_id),
        inventory=lambda client: (
            (str(job["job_id"]), (job.get("settings") or {}).get("name") or "")
            for job in client.jobs.list()
        ),
        arg_aliases={
            # The names of the single-task shape's args before the SDK's schema.
            "AutoscaleArgs": "AutoScaleArgs",
            "DbfsStorageArgs": "DbfsStorageInfoArgs",
            "InitScriptArgs": "InitScriptInfoArgs",
            "PypiLibraryArgs": "PythonPyPiLibraryArgs",
        },
    ),
    declare(
        name="JobPermissions",
        implementation="providers.job_permissions",
        config_key="jobPermissions",
        identity=("job", "job_id"),
        references={"job": Reference(target_key="jobs", field="job_id")},
        doc="docs/job-permissions.md",
        summary="the declared access-control entries of one job",
        import_id="job id",
    ),
    declare(
        name="Permissions",
        implementation="providers.permissions",
        config_key="permissions",
        doc="docs/permissions.md",
        summary="the declared access-control entries (and optionally the owner) of any object",
        import_id="<object type>/<object id>",
    ),
    declare(
        name="RepoBranch",
        implementation="providers.repo_branch",
        outputs={"previous_branch": str, "head_commit_id": str},
        config_key="repoBranches",
        identity=("repo_path", "repo_id"),
        doc="docs/repo-branch.md",
        summary="the checked-out branch of an existing repo",
        import_id="repo id",
        stack_output=("repo_branches", lambda resource: resource.branch),
    ),
    declare(
        name="CatalogBinding",
        implementation="providers.catalog_binding",
        outputs={"previous_isolation_mode": str, "preexisting_bindings": list},
        config_key="catalogBindings",
        identity=("catalog_name",),
        doc="docs/catalog-binding.md",
        summary="a catalog's isolation mode and workspace bindings",
        import_id="catalog name",
        stack_output=("catalog_bindings", lambda resource: resource.id),
    ),
    declare(
        name="ClusterPolicy",
        implementation="providers.cluster_policy",
        outputs={"policy_id": str, "creator_user_name": str},
        config_key="clusterPolicies",
        identity=("name",),
        doc="docs/cluster-policy.md",
        summary="a cluster policy: its definition (compared as JSON) or its family's, changed "
        "in place",
        import_id="policy id",
        stack_output=("cluster_policies", lambda resource: resource.policy_id),
        inventory=lambda client: (
            (str(p["policy_id"]), str(p.get("name", ""))) for p in client.cluster_policies.list()
        ),
    ),
    declare(
        name="Cluster",
        implementation="providers.cluster",
        outputs={"cluster_id": str, "url": str, "current_state": str, "creator_user_name": str},
        stamped=DEPLOYMENT_TAG,
        config_key="clusters",
        references={"policy": Reference(target_key="clusterPolicies", field="policy_id")},
        doc="docs/cluster.md",
        summary="an all-purpose cluster: spec, running or terminated, pin, libraries",
        import_id="cluster id",
        stack_output=("clusters", lambda resource: resource.cluster_id),
        # Job clusters come and go with their runs; no stack could manage them.
        inventory=lambda client: (
            (str(c["cluster_id"]), str(c.get("cluster_name", "")))
            for c in client.clusters.list()
            if c.get("cluster_source") != "JOB"
        ),
    ),
    declare(
        name="ClusterState",
        implementation="providers.cluster_state",
        outputs={"cluster_name": str, "state_message": str},
        config_key="clusterStates",
        references={"cluster_name": Lookup(field="cluster_id", resolve=_cluster_id_named)},
        importable=False,
        doc="docs/actions.md",
        summary="an action: holds an existing cluster RUNNING or TERMINATED",
        stack_output=("cluster_states", lambda resource: resource.state),
    ),
    declare(
        name="JobRun",
        implementation="providers.job_run",
        outputs={
            "run_id": int,
            "result_state": str,
            "state_message": str,
            "run_page_url": str,
            "number_in_job": int,
            "task_results": dict,
        },
        stamped=DEPLOYMENT_TAG,
        config_key="jobRuns",
        references={"job": Reference(target_key="jobs", field="job_id")},
        after=("clusterStates",),
        importable=False,
        doc="docs/actions.md",
        summary="an action: one run of a job, started and waited for",
        stack_output=("job_runs", _job_run_output),
    ),
    declare(
        name="Group",
        implementation="providers.group",
        config_key="groups",
        identity=("display_name",),
        doc="docs/group.md",
        summary="a workspace group: name, entitlements, external id (members: GroupMember)",
        import_id="the group's SCIM id",
        stack_output=("groups", lambda resource: resource.id),
        inventory=lambda client: (
            (str(g["id"]), str(g.get("displayName", "")))
            for g in client.groups.list()
            if g.get("displayName") not in SYSTEM_GROUPS
        ),
    ),
    declare(
        name="GroupMember",
        implementation="providers.group_member",
        outputs={"member_display": str},
        config_key="groupMembers",
        identity=(),
        references={
            "group": Reference(target_key="groups", field="group_id"),
            "user": Lookup(field="member_id", resolve=_user_id_named),
        },
        after=("groups",),
        doc="docs/group-member.md",
        summary="one user, service principal or group in a group (SCIM PATCH, never a PUT)",
        import_id="<group id>|<member id>",
        stack_output=("group_members", lambda resource: resource.id),
    ),
    declare(
        name="Repo",
        implementation="providers.repo",
        outputs={"head_commit_id": str},
        config_key="repos",
        identity=("path",),
        doc="docs/repo.md",
        summary="a Git folder made by the stack: remote, path, branch or tag, sparse checkout",
        import_id="repo id",
        stack_output=("repos", lambda resource: resource.id),
        inventory=lambda client: (
            (str(r["id"]), str(r.get("path", ""))) for r in client.repos.list()
        ),
    ),
    declare(
        name="IpAccessList",
        implementation="providers.ip_access_list",
        outputs={"address_count": int},
        config_key="ipAccessLists",
        identity=("label",),
        doc="docs/ip-access-list.md",
        summary="an ALLOW or BLOCK list of IPv4 addresses and CIDR ranges, changed in place",
        import_id="list id",
        stack_output=("ip_access_lists", lambda resource: resource.id),
        inventory=lambda client: (
            (str(item["list_id"]), str(item.get("label", "")))
            for item in client.ip_access_lists.list()
        ),
    ),
)
