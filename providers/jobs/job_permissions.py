"""JobPermissions: the access-control entries a stack declares on one job.

The Permissions kind (permissions.py) with the object type fixed to jobs, kept under its own
name, inputs and id for the stacks that declare it: `job_id` rather than an object type and
id, the job id as the resource id, and no ownership: the job's owner (IS_OWNER) is never
touched and may not be declared. It manages only the entries it declares; another job id
replaces the resource.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from providers.access.acl import (
    OWNER,
    AclProvider,
    Principal,
    PrincipalEntryModel,
    direct_entries,
    each_principal_once,
    with_entries,
)
from providers.core import import_ids
from providers.core.ids import IntId, parse_int64_id
from providers.core.kind import DrillChange, Reference, declare, principal_names
from providers.core.lifecycle import Spec
from providers.jobs.job_permissions_api import job_permissions_api
from providers.jobs.jobs_api import JobsApi

MANAGED_LEVELS = ("CAN_VIEW", "CAN_MANAGE_RUN", "CAN_MANAGE")
JOBS = "jobs"


class AccessControlModel(PrincipalEntryModel):
    @field_validator("permission_level")
    @classmethod
    def _managed_level(cls, value: str) -> str:
        if value == OWNER:
            raise ValueError("IS_OWNER cannot be declared: ownership of a job is not managed here")
        if value not in MANAGED_LEVELS:
            raise ValueError(f"must be one of {', '.join(MANAGED_LEVELS)}")
        return value


class JobPermissionsModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    job_id: IntId
    access_controls: list[AccessControlModel] = Field(min_length=1)

    @field_validator("access_controls")
    @classmethod
    def _each_principal_once(cls, value: list[AccessControlModel]) -> list[AccessControlModel]:
        return each_principal_once(value)


class JobPermissionsProvider(AclProvider):
    args_model = JobPermissionsModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"job_id"})
    manages_owner = False

    def target(self, args: Any) -> tuple[str, str]:
        return JOBS, str(args.job_id)

    def target_of_id(self, id_: str) -> tuple[str, str]:
        return JOBS, str(parse_int64_id(id_, "job id"))

    def id_of(self, object_type: str, object_id: str) -> str:
        return object_id

    def spec_head(self, object_type: str, object_id: str) -> Spec:
        return {"job_id": int(object_id)}

    def owner_refusal(self, owner: Principal, object_type: str, object_id: str) -> str:
        return (
            f"{owner[0]} {owner[1]!r} owns job {object_id}; ownership is not managed "
            "here, so leave the owner out of access_controls"
        )


def _job_permissions(client: Any) -> Any:
    for job in JobsApi(client).list():
        job_id = str(job["job_id"])
        if with_entries(job_permissions_api(client).get(job_id)):
            yield job_id, (job.get("settings") or {}).get("name") or job_id


def _drill_change(item: dict[str, Any]) -> dict[str, Any]:
    """Who may view the job may run it too."""
    for entry in item["access_controls"]:
        if entry["permission_level"] == "CAN_VIEW":
            entry["permission_level"] = "CAN_MANAGE_RUN"
    return item


KIND = declare(
    name="JobPermissions",
    provider=JobPermissionsProvider,
    config_key="jobPermissions",
    names=principal_names("access_controls[]"),
    # An account group is given access once the workspace has it (assigned).
    after=("workspaceAssignments",),
    identity=("job", "job_id"),
    references={"job": Reference(target_key="jobs", field="job_id")},
    doc="docs/job-permissions.md",
    summary="the declared access-control entries of one job",
    import_id="job id",
    import_id_rule=import_ids.numeric,
    inventory=_job_permissions,
    drill=DrillChange(_drill_change),
)

__all__ = [
    "JobPermissionsModel",
    "JobPermissionsProvider",
    "direct_entries",
]
