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

from providers.kind import DEPLOYMENT_TAG, Adoption, Kind, Lookup, Reference, declare

# What a secret's state and outputs name, and its inputs that are always Pulumi secrets.
SECRET_VALUE_FIELDS = ("string_value", "bytes_value")
SECRET_DIGEST_KEY = "value_digest"
SECRET_TIMESTAMP_KEY = "last_updated_timestamp"
# The output of a service principal's OAuth secret that holds its value.
PRINCIPAL_SECRET_VALUE_KEY = "secret"

# Groups the workspace itself holds; never made or deleted by a stack, nor listed by the
# audit as unmanaged.
SYSTEM_GROUPS = frozenset({"admins", "users"})
# The group every principal of the workspace is in: the service adds each one itself.
ALL_PRINCIPALS_GROUP = "users"
# The cluster policies the service makes in every workspace (from its policy families).
BUILT_IN_POLICIES = frozenset(
    {
        "Personal Compute",
        "Power User Compute",
        "Shared Compute",
        "Legacy Shared Compute",
        "Job Compute",
    }
)
# Object types whose permissions the Permissions kind adopts: those the client can list
# (jobs' are JobPermissions'); -> the id field and name field of a listed object.
LISTED_PERMISSION_TYPES = ("clusters", "cluster-policies", "repos")
OWNER_LEVEL = "IS_OWNER"


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


# --- what the audit and adoption list (each loads its code when it runs) ----------------


def _scope_names(client: Any) -> list[str]:
    return [str(scope["name"]) for scope in client.secret_scopes.list() if scope.get("name")]


def _secrets(client: Any) -> Any:
    for scope in _scope_names(client):
        for secret in client.secrets.list_secrets(scope):
            yield f"{scope}/{secret['key']}", f"{scope}/{secret['key']}"


def _secret_acls(client: Any) -> Any:
    for scope in _scope_names(client):
        for acl in client.secrets.list_acls(scope):
            yield f"{scope}/{acl['principal']}", f"{scope}: {acl['principal']}"


def _principal_secrets(client: Any) -> Any:
    for principal in client.service_principals.list():
        name = principal.get("displayName") or principal.get("applicationId") or ""
        for secret in client.service_principal_secrets.list(str(principal["id"])):
            yield f"{principal['id']}/{secret['id']}", f"{name}: {secret['id']}"


def _with_entries(answer: Any) -> bool:
    """Whether a permissions answer has a direct entry besides the owner's: what a
    Permissions or JobPermissions resource declares (`providers.permissions.direct_entries`
    takes a principal's highest direct level, the owner's above all)."""
    for entry in answer.get("access_control_list") or []:
        if not any(entry.get(f) for f in ("group_name", "user_name", "service_principal_name")):
            continue
        levels = {
            p.get("permission_level")
            for p in entry.get("all_permissions") or []
            if not p.get("inherited") and p.get("permission_level")
        }
        if levels and OWNER_LEVEL not in levels:
            return True
    return False


def _job_permissions(client: Any) -> Any:
    for job in client.jobs.list():
        job_id = str(job["job_id"])
        if _with_entries(client.job_permissions.get(job_id)):
            yield job_id, (job.get("settings") or {}).get("name") or job_id


def _object_permissions(client: Any) -> Any:
    listed = {
        "clusters": [
            (str(c["cluster_id"]), str(c.get("cluster_name", "")))
            for c in client.clusters.list()
            if c.get("cluster_source") != "JOB"
        ],
        "cluster-policies": [
            (str(p["policy_id"]), str(p.get("name", ""))) for p in client.cluster_policies.list()
        ],
        "repos": [(str(r["id"]), str(r.get("path", ""))) for r in client.repos.list()],
    }
    for object_type in LISTED_PERMISSION_TYPES:
        for object_id, name in listed[object_type]:
            if _with_entries(client.permissions(object_type).get(object_id)):
                yield f"{object_type}/{object_id}", f"{object_type}/{name or object_id}"


def _group_members(client: Any) -> Any:
    """Every membership but those of the group every principal is in, which the service
    adds itself."""
    for group in client.groups.list():
        if group.get("displayName") == ALL_PRINCIPALS_GROUP:
            continue
        members = (
            group["members"]
            if "members" in group
            else (client.groups.get(str(group["id"])).get("members"))
        )
        group_name = group.get("displayName") or group["id"]
        for member in members or []:
            member_name = member.get("display") or member["value"]
            yield f"{group['id']}|{member['value']}", f"{group_name}: {member_name}"


def _bound_catalogs(client: Any) -> Any:
    """Catalogs with a binding to manage: isolated, or bound to a workspace. (An open
    catalog without bindings is every catalog's state before anyone binds it.)"""
    for catalog in client.catalogs.list():
        name = str(catalog["name"])
        if catalog.get("isolation_mode") == "ISOLATED" or client.catalogs.get_bindings(name):
            yield name, name


def _repos(client: Any) -> Any:
    return ((str(r["id"]), str(r.get("path", ""))) for r in client.repos.list())


def _service_filled_run_as(observed: Any, computed: Any) -> bool:
    """A job's run_as that names its creator: what the service fills in where none is set."""
    run_as = observed.get("run_as") or {}
    return list(run_as.values()) == [computed.get("creator_user_name")]


def _always(observed: Any, computed: Any) -> bool:
    return True


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
        adoption=Adoption(
            from_outputs=("application_id",),
            # Its memberships are GroupMember items: declared here too, one would undo the
            # other's change.
            leaves_out={"groups": _always},
            principal_of=lambda id_: id_,
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
        inventory=_principal_secrets,
        adoption=Adoption(principal_of=lambda id_: id_.split("/", 1)[0]),
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
        inventory=_secrets,
    ),
    declare(
        name="SecretAcl",
        implementation="providers.secret_acl",
        config_key="secretAcls",
        references={"secret_scope": Reference(target_key="secretScopes", field="scope")},
        doc="docs/secret-acl.md",
        summary="READ, WRITE or MANAGE for one principal on a secret scope",
        import_id="<scope>/<principal>",
        inventory=_secret_acls,
        # The principal an ACL names: a user name or an application id, never a SCIM id.
        adoption=Adoption(principal_of=lambda id_: id_.split("/", 1)[1]),
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
        adoption=Adoption(leaves_out={"run_as": _service_filled_run_as}),
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
        inventory=_job_permissions,
    ),
    declare(
        name="Permissions",
        implementation="providers.permissions",
        config_key="permissions",
        doc="docs/permissions.md",
        summary="the declared access-control entries (and optionally the owner) of any object",
        import_id="<object type>/<object id>",
        inventory=_object_permissions,
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
        adoption=Adoption(
            objects=_repos,
            refused="a repo's checked-out branch is adopted with the repo itself (its Repo "
            "item's `branch`); a RepoBranch beside it would manage the same setting twice. To "
            "manage only the branch of a repo no stack should own, leave the repo out of "
            "adoption and declare {repo_id, branch} in repoBranches yourself, with the repo "
            "id as its import id",
        ),
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
        inventory=_bound_catalogs,
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
        # The policies the service makes in every workspace are its own.
        inventory=lambda client: (
            (str(p["policy_id"]), str(p.get("name", "")))
            for p in client.cluster_policies.list()
            if p.get("name") not in BUILT_IN_POLICIES
        ),
        adoption=Adoption(
            # A policy of a family shows the family's definition merged: not its own.
            leaves_out={"definition": lambda observed, _: "policy_family_id" in observed},
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
        adoption=Adoption(
            leaves_out={
                # Where it is now, not a setting: declared, the stack would start or stop it.
                "state": _always,
                "pinned": lambda observed, _: observed.get("pinned") is False,
                "enable_elastic_disk": lambda observed, _: (
                    observed.get("enable_elastic_disk") is True
                ),
                "driver_node_type_id": lambda observed, _: (
                    observed.get("driver_node_type_id") == observed.get("node_type_id")
                ),
            },
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
        inventory=_group_members,
        adoption=Adoption(principal_of=lambda id_: id_.rpartition("|")[2]),
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
