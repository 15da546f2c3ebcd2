"""JobPermissions: the access-control entries a stack declares on one job.

It manages only the entries it declares. The job's owner (IS_OWNER) and entries made by
anyone else are never touched: declared entries are added or changed with PATCH, which
keeps the rest; an entry no longer declared (on update, and every declared entry on
delete) is removed by reading the direct entries and PUTting them back without it, since
PATCH cannot remove and PUT replaces every direct entry. The id is the job id; another
job id replaces the resource.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from providers.client import InvalidParameter, NotFound, WorkspaceClient
from providers.client.jobs import is_gone
from providers.ids import IntId, parse_int64_id
from providers.kind import Reference, declare
from providers.lifecycle import Spec, WorkspaceProvider

PRINCIPAL_FIELDS = ("group_name", "user_name", "service_principal_name")
MANAGED_LEVELS = ("CAN_VIEW", "CAN_MANAGE_RUN", "CAN_MANAGE")
OWNER = "IS_OWNER"
# The principals that can own a job: a group never does.
OWNER_FIELDS = frozenset({"user_name", "service_principal_name"})
LEVEL_RANK = {level: rank for rank, level in enumerate((*MANAGED_LEVELS, OWNER))}

Entry = dict[str, str]
Principal = tuple[str, str]


# --- the input models (check) ----------------------------------------------------------


class AccessControlModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    group_name: str | None = None
    user_name: str | None = None
    service_principal_name: str | None = None
    permission_level: str

    @field_validator("permission_level")
    @classmethod
    def _managed_level(cls, value: str) -> str:
        if value == OWNER:
            raise ValueError("IS_OWNER cannot be declared: ownership of a job is not managed here")
        if value not in MANAGED_LEVELS:
            raise ValueError(f"must be one of {', '.join(MANAGED_LEVELS)}")
        return value

    @model_validator(mode="after")
    def _one_principal(self) -> AccessControlModel:
        named = [f for f in PRINCIPAL_FIELDS if getattr(self, f) is not None]
        if len(named) != 1:
            raise ValueError(f"give exactly one of {', '.join(PRINCIPAL_FIELDS)}")
        if not getattr(self, named[0]).strip():
            raise ValueError(f"{named[0]} must not be empty")
        return self

    @property
    def principal(self) -> Principal:
        field = next(f for f in PRINCIPAL_FIELDS if getattr(self, f) is not None)
        return field, getattr(self, field)


class JobPermissionsModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    job_id: IntId
    access_controls: list[AccessControlModel] = Field(min_length=1)

    @field_validator("access_controls")
    @classmethod
    def _each_principal_once(cls, value: list[AccessControlModel]) -> list[AccessControlModel]:
        first_seen: dict[Principal, int] = {}
        for index, entry in enumerate(value):
            if entry.principal in first_seen:
                field, name = entry.principal
                raise ValueError(
                    f"entries {first_seen[entry.principal]} and {index} both name "
                    f"{field} {name!r}; give each principal once"
                )
            first_seen[entry.principal] = index
        return value


# --- the typed arguments (program side) ------------------------------------------------


# --- entries as the service shows them -------------------------------------------------


def principal_of(entry: Mapping[str, Any]) -> Principal | None:
    field = next((f for f in PRINCIPAL_FIELDS if entry.get(f)), None)
    return (field, entry[field]) if field else None


def direct_entries(permissions: Mapping[str, Any]) -> dict[Principal, Entry]:
    """The direct (not inherited) entries of a permissions answer, owner included."""
    entries: dict[Principal, Entry] = {}
    for item in permissions.get("access_control_list") or []:
        principal = principal_of(item)
        levels = [
            p["permission_level"]
            for p in item.get("all_permissions") or []
            if not p.get("inherited") and p.get("permission_level") in LEVEL_RANK
        ]
        if principal and levels:
            level = max(levels, key=LEVEL_RANK.__getitem__)
            entries[principal] = {principal[0]: principal[1], "permission_level": level}
    return entries


def sorted_entries(entries: Iterable[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: principal_of(e) or ("", ""))


def declared_principals(props: Mapping[str, Any]) -> set[Principal]:
    return {p for e in props.get("access_controls") or [] if (p := principal_of(e))}


def could_name_the_owner(props: Mapping[str, Any]) -> bool:
    """Whether a declared entry names a kind of principal that can own a job (not a group)."""
    return any(field in OWNER_FIELDS for field, _ in declared_principals(props))


# --- the provider ----------------------------------------------------------------------


class JobPermissionsProvider(WorkspaceProvider):
    args_model = JobPermissionsModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"job_id"})

    def spec(self, args: JobPermissionsModel) -> Spec:
        entries = [e.model_dump(exclude_none=True) for e in args.access_controls]
        return {"job_id": args.job_id, "access_controls": sorted_entries(entries)}

    def create_object(self, client: WorkspaceClient, args: JobPermissionsModel, spec: Spec):
        # A PATCH naming the owner at a lower level would demote it and leave the job without
        # an owner, so where the declaration could name the owner, the owner is read and
        # refused before any write. Only a user or a service principal can own a job.
        if could_name_the_owner(spec):
            current = client.job_permissions.get(args.job_id)
            self._refuse_owner(current, spec, args.job_id)
        answer = client.job_permissions.update(args.job_id, spec["access_controls"])
        observed = self._observe(client, args.job_id, answer, declared_principals(spec))
        return str(args.job_id), observed, {}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        job_id = parse_int64_id(id_, "job id")
        try:
            current = client.job_permissions.get(job_id)
        except (NotFound, InvalidParameter) as error:
            if is_gone(error):
                return None
            raise
        if "access_controls" in recorded:
            ours = declared_principals(recorded)
        else:  # an import: every direct entry but the owner's
            ours = {p for p, e in direct_entries(current).items() if e["permission_level"] != OWNER}
        return self._spec_of(job_id, current, ours), {}

    def update_object(self, client, id_, recorded, args: JobPermissionsModel, spec: Spec):
        current = client.job_permissions.get(args.job_id)
        self._refuse_owner(current, spec, args.job_id)
        removed = declared_principals(recorded) - declared_principals(spec)
        if removed:
            entries = self._without(current, removed)
            entries.update({p: e for e in spec["access_controls"] if (p := principal_of(e))})
            answer = client.job_permissions.set(args.job_id, entries.values())
        else:
            answer = client.job_permissions.update(args.job_id, spec["access_controls"])
        return self._observe(client, args.job_id, answer, declared_principals(spec)), {}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        job_id = parse_int64_id(id_, "job id")
        try:
            current = client.job_permissions.get(job_id)
        except (NotFound, InvalidParameter) as error:
            if is_gone(error):
                return
            raise
        entries = self._without(current, declared_principals(recorded))
        if len(entries) < len(direct_entries(current)):
            try:
                client.job_permissions.set(job_id, entries.values())
            except (NotFound, InvalidParameter) as error:
                # The job went between the read and the write (its own delete, unordered).
                if not is_gone(error):
                    raise

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _without(current: Mapping[str, Any], principals: set[Principal]) -> dict[Principal, Entry]:
        """The direct entries minus `principals`; the owner's entry always stays."""
        return {
            p: e
            for p, e in direct_entries(current).items()
            if p not in principals or e["permission_level"] == OWNER
        }

    @staticmethod
    def _refuse_owner(current: Mapping[str, Any], spec: Spec, job_id: int) -> None:
        owners = {p for p, e in direct_entries(current).items() if e["permission_level"] == OWNER}
        for principal in owners & declared_principals(spec):
            raise ValueError(
                f"{principal[0]} {principal[1]!r} owns job {job_id}; ownership is not managed "
                "here, so leave the owner out of access_controls"
            )

    def _observe(
        self, client: WorkspaceClient, job_id: int, answer: Mapping[str, Any], ours: set
    ) -> Spec:
        current = answer if "access_control_list" in answer else client.job_permissions.get(job_id)
        return self._spec_of(job_id, current, ours)

    @staticmethod
    def _spec_of(job_id: int, current: Mapping[str, Any], ours: set[Principal]) -> Spec:
        """Our entries as they stand; one removed out of band is absent."""
        present = direct_entries(current)
        return {
            "job_id": job_id,
            "access_controls": sorted_entries(present[p] for p in ours if p in present),
        }


# --- the resource ----------------------------------------------------------------------



KIND = declare(
    JobPermissionsProvider,
    name="JobPermissions",
    config_key="jobPermissions",
    identity=("job", "job_id"),
    references={"job": Reference(target_key="jobs", field="job_id")},
    doc="docs/job-permissions.md",
    summary="the declared access-control entries of one job",
    import_id="job id",
)
JobPermissions = KIND.resource
JobPermissionsArgs = KIND.args
AccessControlArgs = KIND.arg_types["AccessControlArgs"]
