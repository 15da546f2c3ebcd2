"""A program that imports one existing object of each kind by id.

Config `workspace:imports` maps a kind to `{"id": <import id>, "args": {<the kind's args>}}`;
the connection settings are the stack program's (stacks/config.py).
"""

import pulumi

from providers.auth import WorkspaceAuth
from providers.catalog_binding import CatalogBinding, CatalogBindingArgs
from providers.job import Job, JobArgs
from providers.job_permissions import JobPermissions, JobPermissionsArgs
from providers.repo_branch import RepoBranch, RepoBranchArgs
from providers.secret_scope import SecretScope, SecretScopeArgs
from providers.service_principal import ServicePrincipal, ServicePrincipalArgs
from stacks.config import NAMESPACE, auth_args, build_args

KINDS = {
    "Job": (Job, JobArgs),
    "JobPermissions": (JobPermissions, JobPermissionsArgs),
    "ServicePrincipal": (ServicePrincipal, ServicePrincipalArgs),
    "SecretScope": (SecretScope, SecretScopeArgs),
    "RepoBranch": (RepoBranch, RepoBranchArgs),
    "CatalogBinding": (CatalogBinding, CatalogBindingArgs),
}

config = pulumi.Config(NAMESPACE)
auth = WorkspaceAuth("workspace", auth_args(config))
made: dict[str, pulumi.Resource] = {}
for kind, item in (config.get_object("imports") or {}).items():
    resource_class, args_class = KINDS[kind]
    # As when a stack refers to its job: the permissions go before the job on destroy.
    job = [made["Job"]] if kind == "JobPermissions" and "Job" in made else []
    made[kind] = resource_class(
        kind.lower(),
        build_args(args_class, item["args"], f"imports.{kind}"),
        connection=auth.connection,
        opts=pulumi.ResourceOptions(import_=item["id"], depends_on=job),
    )
