"""The shapes lookups return: one pydantic model per kind, read from the service's answer.

A model keeps the documented fields (docs/api.md#errors) and drops the rest; the lookup
hands out `model_dump(mode="json")`, a plain dict, so it can be exported or passed to
resources as is. Ids are ints where the service's ids are 64-bit numbers.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _Result(BaseModel):
    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    def as_output(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class AutoscaleInfo(_Result):
    min_workers: int
    max_workers: int


class ClusterInfo(_Result):
    cluster_id: str
    cluster_name: str | None = None
    state: str
    state_message: str | None = None
    spark_version: str | None = None
    node_type_id: str | None = None
    num_workers: int | None = None
    autoscale: AutoscaleInfo | None = None
    creator_user_name: str | None = None
    start_time: int | None = None
    terminated_time: int | None = None


class JobInfo(_Result):
    job_id: int
    name: str
    settings: dict[str, Any]
    created_time: int | None = None
    creator_user_name: str | None = None

    @classmethod
    def from_service(cls, job: dict[str, Any]) -> JobInfo:
        settings = job.get("settings") or {}
        return cls.model_validate({**job, "name": settings.get("name", ""), "settings": settings})


def _states(item: dict[str, Any]) -> dict[str, Any]:
    """The life-cycle state, result and message of a run or of one task's run."""
    state = item.get("state") or {}
    return {name: state.get(name) for name in ("life_cycle_state", "result_state", "state_message")}


class JobRunTaskInfo(_Result):
    """The run of one task of a job's run."""

    task_key: str
    run_id: int | None = None
    life_cycle_state: str | None = None
    result_state: str | None = None
    state_message: str | None = None

    @classmethod
    def from_service(cls, task: dict[str, Any]) -> JobRunTaskInfo:
        return cls.model_validate({**task, **_states(task)})


class JobRunInfo(_Result):
    run_id: int
    job_id: int
    number_in_job: int | None = None
    life_cycle_state: str
    result_state: str | None = None
    state_message: str | None = None
    run_page_url: str | None = None
    start_time: int | None = None
    end_time: int | None = None
    python_params: list[str] = Field(default_factory=list)
    # name -> the value the run used (the job parameter's default where none was given).
    job_parameters: dict[str, str] = Field(default_factory=dict)
    tasks: list[JobRunTaskInfo] = Field(default_factory=list)

    @classmethod
    def from_service(cls, run: dict[str, Any]) -> JobRunInfo:
        overriding = run.get("overriding_parameters") or {}
        return cls.model_validate(
            {
                **run,
                **_states(run),
                "python_params": overriding.get("python_params") or [],
                "job_parameters": _job_parameters(run),
                "tasks": [JobRunTaskInfo.from_service(task) for task in run.get("tasks") or []],
            }
        )


def _job_parameters(run: dict[str, Any]) -> dict[str, str]:
    """A run lists every job parameter with its default and the value given (Jobs 2.1+);
    without that list, the values run-now gave are what is known."""
    listed = run.get("job_parameters")
    if not isinstance(listed, list):
        return dict((run.get("overriding_parameters") or {}).get("job_parameters") or {})
    values = {p.get("name"): p.get("value", p.get("default")) for p in listed}
    return {name: value for name, value in values.items() if name and value is not None}


class ServicePrincipalInfo(_Result):
    id: str
    application_id: str = Field(alias="applicationId")
    display_name: str | None = Field(default=None, alias="displayName")
    active: bool | None = None
    groups: list[str] = Field(default_factory=list)
    entitlements: list[str] = Field(default_factory=list)

    @classmethod
    def from_service(cls, resource: dict[str, Any]) -> ServicePrincipalInfo:
        groups = [g.get("display") or g.get("value") for g in resource.get("groups") or []]
        entitlements = [e.get("value") for e in resource.get("entitlements") or []]
        return cls.model_validate(
            {**resource, "groups": sorted(groups), "entitlements": sorted(entitlements)}
        )

    def as_output(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=False)


def _values(items: list[dict[str, Any]] | None) -> list[str]:
    return sorted(str(item.get("value")) for item in items or [])


class GroupInfo(_Result):
    id: str
    display_name: str = Field(alias="displayName")
    external_id: str | None = Field(default=None, alias="externalId")
    # Ids of the direct members (users, service principals and groups) and entitlements.
    members: list[str] = Field(default_factory=list)
    entitlements: list[str] = Field(default_factory=list)

    @classmethod
    def from_service(cls, resource: dict[str, Any]) -> GroupInfo:
        return cls.model_validate(
            {
                **resource,
                "members": _values(resource.get("members")),
                "entitlements": _values(resource.get("entitlements")),
            }
        )

    def as_output(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=False)


class UserInfo(_Result):
    id: str
    user_name: str = Field(alias="userName")
    display_name: str | None = Field(default=None, alias="displayName")
    active: bool | None = None
    # Ids of the groups the user is directly in.
    groups: list[str] = Field(default_factory=list)

    @classmethod
    def from_service(cls, resource: dict[str, Any]) -> UserInfo:
        direct = [g for g in resource.get("groups") or [] if g.get("type") != "indirect"]
        return cls.model_validate({**resource, "groups": _values(direct)})

    def as_output(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=False)


class KeyVaultInfo(_Result):
    resource_id: str
    dns_name: str


class SecretScopeInfo(_Result):
    name: str
    backend_type: str | None = None
    keyvault_metadata: KeyVaultInfo | None = None


class IpAccessListInfo(_Result):
    list_id: str
    label: str
    list_type: str
    ip_addresses: list[str] = Field(default_factory=list)
    address_count: int | None = None
    enabled: bool | None = None


class RepoInfo(_Result):
    id: int
    path: str
    url: str | None = None
    provider: str | None = None
    branch: str | None = None
    head_commit_id: str | None = None


class WorkspaceObjectInfo(_Result):
    """What is at a workspace path: its type as the workspace names it (NOTEBOOK,
    DIRECTORY, FILE, REPO, ...), its object id, and the permissions type that id is
    addressed by (notebooks, directories, files, repos; None for other objects)."""

    path: str
    object_type: str
    object_id: int
    language: str | None = None
    permissions_type: str | None = None


class CatalogBindingInfo(_Result):
    workspace_id: int
    binding_type: str


class CatalogBindingsInfo(_Result):
    catalog: str
    isolation_mode: str | None = None
    bindings: list[CatalogBindingInfo] = Field(default_factory=list)


class ClusterPolicyInfo(_Result):
    policy_id: str
    name: str
    # The definition as a JSON object (the service keeps it as text).
    definition: dict[str, Any] = Field(default_factory=dict)
    description: str | None = None
    max_clusters_per_user: int | None = None
    policy_family_id: str | None = None
    creator_user_name: str | None = None
    is_default: bool | None = None

    @classmethod
    def from_service(cls, policy: dict[str, Any]) -> ClusterPolicyInfo:
        text = policy.get("definition") or "{}"
        return cls.model_validate({**policy, "definition": json.loads(text)})


class NodeTypeInfo(_Result):
    node_type_id: str
    memory_mb: int
    num_cores: float
    num_gpus: int = 0
    category: str | None = None
    local_disks: int = 0
    local_disk_size_gb: int = 0
    photon_capable: bool = False

    @classmethod
    def from_service(cls, node: dict[str, Any]) -> NodeTypeInfo:
        instance = node.get("node_instance_type") or {}
        return cls.model_validate(
            {
                **node,
                "num_gpus": node.get("num_gpus") or 0,
                "local_disks": instance.get("local_disks") or 0,
                "local_disk_size_gb": instance.get("local_disk_size_gb") or 0,
                "photon_capable": bool(
                    node.get("photon_worker_capable") and node.get("photon_driver_capable")
                ),
            }
        )


class SparkVersionInfo(_Result):
    key: str
    name: str
