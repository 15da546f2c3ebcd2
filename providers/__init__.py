"""Workspace resources, actions and lookups for Pulumi programs.

    from providers import WorkspaceAuth, WorkspaceAuthArgs, Job, JobArgs, lookups

Every kind, its args, the `WorkspaceAuth` component and the lookups are importable from
here. Names resolve on first use, so importing the client alone does not load every kind.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "WorkspaceAuth": "providers.auth.component",
    "WorkspaceAuthArgs": "providers.auth.component",
    "Job": "providers.job",
    "JobArgs": "providers.job",
    "JobPermissions": "providers.job_permissions",
    "JobPermissionsArgs": "providers.job_permissions",
    "AccessControlArgs": "providers.job_permissions",
    "ServicePrincipal": "providers.service_principal",
    "ServicePrincipalArgs": "providers.service_principal",
    "SecretScope": "providers.secret_scope",
    "SecretScopeArgs": "providers.secret_scope",
    "KeyVaultArgs": "providers.secret_scope",
    "RepoBranch": "providers.repo_branch",
    "RepoBranchArgs": "providers.repo_branch",
    "CatalogBinding": "providers.catalog_binding",
    "CatalogBindingArgs": "providers.catalog_binding",
    "WorkspaceBindingArgs": "providers.catalog_binding",
    "ClusterState": "providers.cluster_state",
    "ClusterStateArgs": "providers.cluster_state",
    "JobRun": "providers.job_run",
    "JobRunArgs": "providers.job_run",
    "LookupFailed": "providers.lookups",
}
_MODULES = {"lookups": "providers.lookups", "apps": "providers.apps"}

__all__ = sorted([*_EXPORTS, *_MODULES])


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(_MODULES[name])
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'providers' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
