"""The workspace stack: a WorkspaceAuth component and the objects the config declares.

Config (namespace `workspace`, see README.md): connection settings, then one list per kind,
each item with a unique `name` (the Pulumi resource name) and the kind's arguments as in
docs/<kind>.md. Job permissions and nothing else refer to another object: `job` names a job
of the same stack (or `job_id` gives an existing job's id).
"""

import pulumi

from providers.auth import WorkspaceAuth
from providers.catalog_binding import CatalogBinding, CatalogBindingArgs
from providers.job import Job, JobArgs
from providers.job_permissions import JobPermissions, JobPermissionsArgs
from providers.repo_branch import RepoBranch, RepoBranchArgs
from providers.secret_scope import SecretScope, SecretScopeArgs
from providers.service_principal import ServicePrincipal, ServicePrincipalArgs
from stacks import health
from stacks.actions import declare_actions
from stacks.config import (
    NAMESPACE,
    ConfigError,
    auth_args,
    build_args,
    namespace_values,
    object_list,
    validate,
)

# All of the config is judged before anything is registered: bad config changes nothing.
validate(*namespace_values())
config = pulumi.Config(NAMESPACE)
health.gate(config)  # after everything below is deployed (docs/health.md)
auth = WorkspaceAuth("workspace", auth_args(config))
connection = auth.connection


def declare(key: str, resource_class: type, args_class: type) -> dict:
    """One resource per item of the list `key`, named by the item's `name`."""
    made = {}
    for index, item in enumerate(object_list(config, key)):
        args = build_args(args_class, item, f"{key}[{index}]")
        made[item["name"]] = resource_class(item["name"], args, connection=connection)
    return made


principals = declare("servicePrincipals", ServicePrincipal, ServicePrincipalArgs)
scopes = declare("secretScopes", SecretScope, SecretScopeArgs)
jobs = declare("jobs", Job, JobArgs)
branches = declare("repoBranches", RepoBranch, RepoBranchArgs)
bindings = declare("catalogBindings", CatalogBinding, CatalogBindingArgs)

permissions = {}
for index, item in enumerate(object_list(config, "jobPermissions")):
    where = f"jobPermissions[{index}]"
    if "job" in item:
        if item["job"] not in jobs:
            raise ConfigError(
                f"{NAMESPACE}:{where}.job: no job named {item['job']!r} in {NAMESPACE}:jobs"
            )
        # The id, not the job_id output: an id stays known while its job is updated, so a
        # preview of a job update does not show these permissions as replaced.
        item = {**item, "job_id": jobs[item["job"]].id}
    args = build_args(JobPermissionsArgs, item, where, stack_keys=("name", "job"))
    permissions[item["name"]] = JobPermissions(item["name"], args, connection=connection)

actions = declare_actions(connection, jobs)

pulumi.export("workspace_url", config.require("baseUrl"))
pulumi.export("jobs", {name: job.job_id for name, job in jobs.items()})
pulumi.export("service_principals", {name: sp.id for name, sp in principals.items()})
pulumi.export("secret_scopes", sorted(scopes))
pulumi.export("repo_branches", {name: b.branch for name, b in branches.items()})
pulumi.export("catalog_bindings", {name: b.id for name, b in bindings.items()})
