"""The module paths of the layout before the domain packages, as aliases of the modules
that now hold their code.

A stack's state holds its providers pickled (`__provider`): a kind's provider as the
module that declared it (`providers.job`) and the function that makes it
(`providers.kind.provider_in`); older states hold classes by their module path. Those
states must keep unpickling in the provider host after the move, so each old path imports
as the module that replaced it (the same module object: `providers.job` is
`providers.jobs.job`). Nothing in the project imports an old path; new states record the
new ones.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

# Old module path -> the module now holding its code.
MOVED: dict[str, str] = {
    "providers.kind": "providers.core.kind",
    "providers.lifecycle": "providers.core.lifecycle",
    "providers.registry": "providers.core.registry",
    "providers.resource": "providers.core.resource",
    "providers.properties": "providers.core.properties",
    "providers.ids": "providers.core.ids",
    "providers.polling": "providers.core.polling",
    "providers.create_or_adopt": "providers.core.create_or_adopt",
    "providers.host": "providers.core.host",
    "providers.pulumi_host": "providers.core.pulumi_host",
    "providers.engine_log": "providers.core.engine_log",
    "providers.sdk_schema": "providers.core.sdk_schema",
    "providers.service_principal": "providers.identity.service_principal",
    "providers.service_principal_secret": "providers.identity.service_principal_secret",
    "providers.group": "providers.identity.group",
    "providers.group_member": "providers.identity.group_member",
    "providers.user": "providers.identity.user",
    "providers.principal_by_name": "providers.identity.principal_by_name",
    "providers.scim_fields": "providers.identity.scim_fields",
    "providers.permissions": "providers.access.permissions",
    "providers.access_control_rule_set": "providers.identity.access_control_rule_set",
    "providers.secret_scope": "providers.secrets.secret_scope",
    "providers.secret": "providers.secrets.secret",
    "providers.secret_acl": "providers.secrets.secret_acl",
    "providers.directory": "providers.workspace.directory",
    "providers.notebook": "providers.workspace.notebook",
    "providers.workspace_file": "providers.workspace.workspace_file",
    "providers.workspace_objects": "providers.workspace.workspace_objects",
    "providers.repo": "providers.workspace.repo",
    "providers.repo_branch": "providers.workspace.repo_branch",
    "providers.git_credential": "providers.workspace.git_credential",
    "providers.ip_access_list": "providers.workspace.ip_access_list",
    "providers.workspace_conf": "providers.workspace.workspace_conf",
    "providers.instance_pool": "providers.compute.instance_pool",
    "providers.cluster_policy": "providers.compute.cluster_policy",
    "providers.cluster": "providers.compute.cluster",
    "providers.cluster_state": "providers.compute.cluster_state",
    "providers.sql_warehouse": "providers.sql.sql_warehouse",
    "providers.job": "providers.jobs.job",
    "providers.job_diff": "providers.jobs.job_diff",
    "providers.job_model": "providers.jobs.job_model",
    "providers.job_settings": "providers.jobs.job_settings",
    "providers.job_permissions": "providers.jobs.job_permissions",
    "providers.job_run": "providers.jobs.job_run",
    "providers.storage_credential": "providers.unity_catalog.storage_credential",
    "providers.external_location": "providers.unity_catalog.external_location",
    "providers.service_credential": "providers.unity_catalog.service_credential",
    "providers.catalog_binding": "providers.unity_catalog.catalog_binding",
    "providers.catalog": "providers.unity_catalog.catalog",
    "providers.schema": "providers.unity_catalog.schema",
    "providers.volume": "providers.unity_catalog.volume",
    "providers.grants": "providers.unity_catalog.grants",
    "providers.grant": "providers.unity_catalog.grant",
    "providers.uc_names": "providers.unity_catalog.uc_names",
    "providers.uc_privileges": "providers.unity_catalog.uc_privileges",
    "providers.client.access_control": "providers.identity.access_control_api",
    "providers.client.bindings": "providers.unity_catalog.bindings_api",
    "providers.client.catalogs": "providers.unity_catalog.catalogs_api",
    "providers.client.cluster_policies": "providers.compute.cluster_policies_api",
    "providers.client.clusters": "providers.compute.clusters_api",
    "providers.client.credentials": "providers.unity_catalog.credentials_api",
    "providers.client.external_locations": "providers.unity_catalog.external_locations_api",
    "providers.client.git_credentials": "providers.workspace.git_credentials_api",
    "providers.client.grants": "providers.unity_catalog.grants_api",
    "providers.client.groups": "providers.identity.groups_api",
    "providers.client.instance_pools": "providers.compute.instance_pools_api",
    "providers.client.ip_access_lists": "providers.workspace.ip_access_lists_api",
    "providers.client.job_permissions": "providers.jobs.job_permissions_api",
    "providers.client.jobs": "providers.jobs.jobs_api",
    "providers.client.repos": "providers.workspace.repos_api",
    "providers.client.schemas": "providers.unity_catalog.schemas_api",
    "providers.client.scim": "providers.identity.scim_api",
    "providers.client.secret_scopes": "providers.secrets.secret_scopes_api",
    "providers.client.secrets": "providers.secrets.secrets_api",
    "providers.client.service_principal_secrets": (
        "providers.identity.service_principal_secrets_api"
    ),
    "providers.client.service_principals": "providers.identity.service_principals_api",
    "providers.client.sql_warehouses": "providers.sql.sql_warehouses_api",
    "providers.client.storage_credentials": "providers.unity_catalog.storage_credentials_api",
    "providers.client.users": "providers.identity.users_api",
    "providers.client.volumes": "providers.unity_catalog.volumes_api",
    "providers.client.workspace_conf": "providers.workspace.workspace_conf_api",
    "providers.client.workspace_objects": "providers.workspace.workspace_objects_api",
    "providers.client.workspace_paths": "providers.workspace.workspace_paths_api",
    "providers.client.job_wire": "providers.jobs.job_wire",
}


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """The module ran when its new path was imported."""


class MovedModules(importlib.abc.MetaPathFinder):
    """Finds an old module path (MOVED) as the module that replaced it."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        moved_to = MOVED.get(fullname)
        if moved_to is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(moved_to))


def install() -> None:
    if not any(isinstance(finder, MovedModules) for finder in sys.meta_path):
        sys.meta_path.append(MovedModules())
