"""The shapes lookups return: one pydantic model per kind, read from the service's answer.

A model keeps the documented fields (docs/api.md#errors) and drops the rest; the lookup
hands out `model_dump(mode="json")`, a plain dict, so it can be exported or passed to
resources as is. Ids are ints where the service's ids are 64-bit numbers.
"""

from __future__ import annotations

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

    @classmethod
    def from_service(cls, run: dict[str, Any]) -> JobRunInfo:
        state = run.get("state") or {}
        params = (run.get("overriding_parameters") or {}).get("python_params") or []
        return cls.model_validate(
            {
                **run,
                "life_cycle_state": state.get("life_cycle_state"),
                "result_state": state.get("result_state"),
                "state_message": state.get("state_message"),
                "python_params": params,
            }
        )


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


class CatalogBindingInfo(_Result):
    workspace_id: int
    binding_type: str


class CatalogBindingsInfo(_Result):
    catalog: str
    isolation_mode: str | None = None
    bindings: list[CatalogBindingInfo] = Field(default_factory=list)
