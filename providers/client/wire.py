"""The one table of differences between the legacy form and the public form of the API.

docs/api.md#wire-forms lists every place where the specification (the "legacy form") and
the public service spell the same thing differently. Each row is a field or method of
``WireProfile``; ``profile(form)`` is the one switch. Providers keep their state in the
public nesting (``normalise_job_settings``) and convert only at the wire.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from providers.client.connection import WireForm

SCIM_BASE = "/api/2.0/preview/scim/v2"
SCIM_SERVICE_PRINCIPALS = f"{SCIM_BASE}/ServicePrincipals"
# Whoever a call's credentials stand for: the proof that a sign-in works.
SCIM_ME = f"{SCIM_BASE}/Me"
BINDING_READ_WRITE = "BINDING_TYPE_READ_WRITE"
KEYVAULT_BACKEND_TYPES = frozenset({"CLOUD_KEYVAULT", "AZURE_KEYVAULT"})

# Job-level in the public form, inside new_cluster in the legacy form. Part C's table leaves
# out `libraries`, but the specification's create body (part A) nests them there too.
LEGACY_FORM_CLUSTER_FIELDS = ("timeout_seconds", "max_retries", "spark_python_task", "libraries")


@dataclass(frozen=True)
class WireProfile:
    form: WireForm
    # Token request
    token_method: str
    token_grant_type: str
    # Key-vault scope
    keyvault_backend_type: str
    keyvault_field: str
    # Repo branch
    repo_update_method: str
    # Stop cluster
    cluster_stop_path: str
    # Job create body
    _job_settings_to_wire: Callable[[dict[str, Any]], dict[str, Any]] = field(repr=False)
    # Delete principal
    _principal_delete_id: Callable[[str, str], str] = field(repr=False)
    # Binding workspace ids
    _binding_workspace_id: Callable[[int], str | int] = field(repr=False)
    # Unbind
    _unbind_body: Callable[[list[str | int], str], dict[str, Any]] = field(repr=False)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled by name: the one profile per form stays the one profile per form.
        return (profile, (self.form,))

    def job_settings_to_wire(self, settings: dict[str, Any]) -> dict[str, Any]:
        """Job settings (either nesting) in this form's nesting, as a new dict."""
        return self._job_settings_to_wire(normalise_job_settings(settings))

    def principal_delete_path(self, app_id: str, workspace_id: str) -> str:
        """DELETE path for a service principal, given its application id and workspace id."""
        principal = self._principal_delete_id(str(app_id), str(workspace_id))
        return f"{SCIM_SERVICE_PRINCIPALS}/{quote(principal, safe='')}"

    def binding_workspace_id(self, workspace_id: int) -> str | int:
        return self._binding_workspace_id(int(workspace_id))

    def bind_body(
        self, workspace_ids: Iterable[int], binding_type: str = BINDING_READ_WRITE
    ) -> dict[str, Any]:
        return {
            "add": [
                {"workspace_id": self.binding_workspace_id(w), "binding_type": binding_type}
                for w in workspace_ids
            ],
            "remove": [],
        }

    def unbind_body(
        self, workspace_ids: Iterable[int], binding_type: str = BINDING_READ_WRITE
    ) -> dict[str, Any]:
        ids = [self.binding_workspace_id(w) for w in workspace_ids]
        return self._unbind_body(ids, binding_type)

    def keyvault_scope_body(
        self,
        scope: str,
        resource_id: str,
        dns_name: str,
        initial_manage_principal: str = "users",
    ) -> dict[str, Any]:
        return {
            "scope": scope,
            "scope_backend_type": self.keyvault_backend_type,
            self.keyvault_field: {"resource_id": resource_id, "dns_name": dns_name},
            "initial_manage_principal": initial_manage_principal,
        }


def profile(form: WireForm | str) -> WireProfile:
    return _PROFILES[WireForm(form)]


def normalise_job_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """Job settings in either nesting -> a new dict in the public nesting.

    Where a field appears in both places, the public position wins. A ``cluster_log_conf``
    left empty after moving ``spark_env_vars`` out is dropped (the legacy form creates it
    only to hold them).
    """
    result = copy.deepcopy(settings)
    cluster = result.get("new_cluster")
    if not isinstance(cluster, dict):
        return result
    for name in LEGACY_FORM_CLUSTER_FIELDS:
        if name in cluster:
            value = cluster.pop(name)
            result.setdefault(name, value)
    log_conf = cluster.get("cluster_log_conf")
    if isinstance(log_conf, dict) and "spark_env_vars" in log_conf:
        env = log_conf.pop("spark_env_vars")
        cluster.setdefault("spark_env_vars", env)
        if not log_conf:
            del cluster["cluster_log_conf"]
    return result


def parse_binding_workspace_id(value: str | int) -> int:
    """A binding's workspace id as returned in either form -> int."""
    return int(value)


def _legacy_job_settings(public: dict[str, Any]) -> dict[str, Any]:
    result = copy.deepcopy(public)
    cluster = result.get("new_cluster")
    if not isinstance(cluster, dict):
        # Nowhere to nest them: a job without a new cluster keeps them at job level.
        return result
    for name in LEGACY_FORM_CLUSTER_FIELDS:
        if name in result:
            cluster[name] = result.pop(name)
    if "spark_env_vars" in cluster:
        log_conf = cluster.setdefault("cluster_log_conf", {})
        log_conf["spark_env_vars"] = cluster.pop("spark_env_vars")
    if "cluster_name" in cluster:  # the public spelling of the legacy form's `name`
        cluster["name"] = cluster.pop("cluster_name")
    return result


def _public_job_settings(public: dict[str, Any]) -> dict[str, Any]:
    return public


_LEGACY = WireProfile(
    form=WireForm.LEGACY,
    token_method="GET",
    token_grant_type="client_credential",
    keyvault_backend_type="CLOUD_KEYVAULT",
    keyvault_field="backend_cloud_keyvault",
    repo_update_method="POST",
    cluster_stop_path="/api/2.0/clusters/stop",
    _job_settings_to_wire=_legacy_job_settings,
    _principal_delete_id=lambda app_id, workspace_id: app_id,
    _binding_workspace_id=str,
    _unbind_body=lambda ids, binding_type: {"unassign_workspaces": ids},
)

_PUBLIC = WireProfile(
    form=WireForm.PUBLIC,
    token_method="POST",
    token_grant_type="client_credentials",
    keyvault_backend_type="AZURE_KEYVAULT",
    keyvault_field="backend_azure_keyvault",
    repo_update_method="PATCH",
    cluster_stop_path="/api/2.0/clusters/delete",
    _job_settings_to_wire=_public_job_settings,
    _principal_delete_id=lambda app_id, workspace_id: workspace_id,
    _binding_workspace_id=int,
    _unbind_body=lambda ids, binding_type: {
        "remove": [{"workspace_id": w, "binding_type": binding_type} for w in ids]
    },
)

_PROFILES = {WireForm.LEGACY: _LEGACY, WireForm.PUBLIC: _PUBLIC}
