"""A program declaring one object per kind given, each imported when it has an id.

Config `workspace:objects` maps a kind to `{"args": {<the kind's args>}, "id": <import id>}`
("id" optional); the connection settings are the stack program's (stacks/config.py).
`workspace:withoutAuth: true` declares them as a stack did before WorkspaceAuth had its
provider: a plain connection, served by the default provider.
"""

from dataclasses import fields

import pulumi

from providers.auth import WorkspaceAuth
from providers.catalog_binding import CatalogBinding, CatalogBindingArgs
from providers.client import Connection
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
settings = auth_args(config)
if config.get_bool("withoutAuth"):
    values = {f.name: getattr(settings, f.name) for f in fields(settings)}
    connection = pulumi.Output.all(**values).apply(
        lambda v: Connection.model_validate(v).to_props()
    )
else:
    connection = WorkspaceAuth("workspace", settings).connection

made: dict[str, pulumi.Resource] = {}
for kind, item in (config.get_object("objects") or {}).items():
    resource_class, args_class = KINDS[kind]
    # As when a stack refers to its job: the permissions go before the job on destroy.
    job = [made["Job"]] if kind == "JobPermissions" and "Job" in made else []
    made[kind] = resource_class(
        kind.lower(),
        build_args(args_class, item["args"], f"objects.{kind}"),
        connection=connection,
        opts=pulumi.ResourceOptions(import_=item.get("id"), depends_on=job),
    )
