"""Access control lists of workspace objects as the permission kinds read and set them: principals,
their entries, the owner, and the provider that replaces an object's list."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from providers.access import authoritative
from providers.client import InvalidParameter, NotFound, is_gone
from providers.client.permissions import PermissionsApi
from providers.client.sdk_shapes import SdkEnum, enum_values
from providers.core.ids import canonical_id
from providers.core.lifecycle import Spec, WorkspaceProvider, user_inputs
from providers.workspace.workspace_paths_api import WorkspacePathsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient


PRINCIPAL_FIELDS = ("group_name", "user_name", "service_principal_name")


OWNER_FIELDS = ("user_name", "service_principal_name")


OWNER = "IS_OWNER"


# object type (the path segment) -> (the SDK's service module, its enum of the type's levels)
_WORKSPACE_OBJECT_LEVELS = ("workspace", "WorkspaceObjectPermissionLevel")


OBJECT_TYPES: dict[str, tuple[str, str]] = {
    "jobs": ("jobs", "JobPermissionLevel"),
    "clusters": ("compute", "ClusterPermissionLevel"),
    "cluster-policies": ("compute", "ClusterPolicyPermissionLevel"),
    "instance-pools": ("compute", "InstancePoolPermissionLevel"),
    "repos": ("workspace", "RepoPermissionLevel"),
    "notebooks": _WORKSPACE_OBJECT_LEVELS,
    "directories": _WORKSPACE_OBJECT_LEVELS,
    "files": _WORKSPACE_OBJECT_LEVELS,
    "warehouses": ("sql", "WarehousePermissionLevel"),
    "pipelines": ("pipelines", "PipelinePermissionLevel"),
    "registered-models": ("ml", "RegisteredModelPermissionLevel"),
    "experiments": ("ml", "ExperimentPermissionLevel"),
    "serving-endpoints": ("serving", "ServingEndpointPermissionLevel"),
    "apps": ("apps", "AppPermissionLevel"),
    "vector-search-endpoints": ("vectorsearch", "VectorSearchEndpointPermissionLevel"),
    "sql/queries": ("sql", "PermissionLevel"),
    "sql/alerts": ("sql", "PermissionLevel"),
    "sql/dashboards": ("sql", "PermissionLevel"),
    "dashboards": ("", ""),  # Lakeview: FIXED_LEVELS
    "authorization": ("settings", "TokenPermissionLevel"),  # tokens; passwords the same
}


# Types the SDK has no enum of levels for: the service's published levels.
FIXED_LEVELS: dict[str, tuple[str, ...]] = {
    "dashboards": ("CAN_EDIT", "CAN_MANAGE", "CAN_READ", "CAN_RUN"),
}


# Other spellings of a type the service serves too.
TYPE_ALIASES = {"sql/warehouses": "warehouses"}


# Addressed only through `authorization`: its objects are `tokens` and `passwords`.
AUTHORIZATION = "authorization"


AUTHORIZATION_OBJECTS = ("tokens", "passwords")


# A workspace path field -> (the get-status object_type it must name, the permissions type).
PATH_FIELDS: dict[str, tuple[str, str]] = {
    "notebook_path": ("NOTEBOOK", "notebooks"),
    "directory_path": ("DIRECTORY", "directories"),
    "workspace_file_path": ("FILE", "files"),
    "repo_path": ("REPO", "repos"),
}


ADDRESSES = ("object_type", AUTHORIZATION, *PATH_FIELDS)


# The outputs a path-addressed resource resolves its path to.
RESOLVED_TYPE = "resolved_object_type"


RESOLVED_ID = "resolved_object_id"


# The object id is one segment of the request path (after the type): only the
# characters the type's ids are made of, so `.`, `..`, `/`, `?`, `#` or `%` never send a
# request to another endpoint. (pattern, what it says)
_NUMERIC = (re.compile(r"[0-9]{1,20}"), "digits (a numeric id)")


_DASHED = (
    re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,127}"),
    "letters, digits and '-' (such as 0101-120000-abcd01)",
)


_NAMED = (
    re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,255}"),
    "letters, digits, '_', '-' and '.', starting with a letter or digit",
)


OBJECT_ID_RULES: dict[str, tuple[re.Pattern[str], str]] = {
    "jobs": _NUMERIC,
    "notebooks": _NUMERIC,
    "directories": _NUMERIC,
    "files": _NUMERIC,
    "repos": _NUMERIC,
    "experiments": _NUMERIC,
    "clusters": _DASHED,  # 0101-120000-abcd01
    "instance-pools": _DASHED,
    "cluster-policies": _DASHED,  # hex
    "warehouses": _DASHED,  # hex
    "pipelines": _DASHED,  # a UUID
    "apps": _DASHED,  # an app's name
    "registered-models": _NAMED,  # an id, or a model's name
    "serving-endpoints": _NAMED,
    "vector-search-endpoints": _NAMED,
    "sql/queries": _DASHED,  # a UUID
    "sql/alerts": _DASHED,
    "sql/dashboards": _DASHED,
    "dashboards": _DASHED,  # hex
}


Entry = dict[str, str]


Principal = tuple[str, str]


@cache
def levels_of(object_type: str) -> tuple[str, ...]:
    """The permission levels the service allows on objects of this type, IS_OWNER included
    where the type has owners."""
    if object_type in FIXED_LEVELS:
        return FIXED_LEVELS[object_type]
    module, enum_name = OBJECT_TYPES[object_type]
    return enum_values(SdkEnum(module, enum_name))


def has_owner(object_type: str) -> bool:
    return OWNER in levels_of(object_type)


def _rank(level: str) -> int:
    """Orders two direct levels of one principal (rare): the owner's, then managing, first."""
    return {OWNER: 2, "CAN_MANAGE": 1}.get(level, 0)


class PrincipalEntryModel(BaseModel):
    """One principal and its level; subclasses judge the level."""

    model_config = ConfigDict(extra="forbid")

    group_name: str | None = None
    user_name: str | None = None
    service_principal_name: str | None = None
    permission_level: str

    @model_validator(mode="after")
    def _one_principal(self) -> PrincipalEntryModel:
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


class AccessControlEntryModel(PrincipalEntryModel):
    @field_validator("permission_level")
    @classmethod
    def _not_the_owner(cls, value: str) -> str:
        if value == OWNER:
            raise ValueError("IS_OWNER is not an entry: declare the owner with `owner`")
        return value


class OwnerModel(BaseModel):
    """The owner to transfer the object to: a user or a service principal (never a group)."""

    model_config = ConfigDict(extra="forbid")

    user_name: str | None = None
    service_principal_name: str | None = None

    @model_validator(mode="after")
    def _one_principal(self) -> OwnerModel:
        named = [f for f in OWNER_FIELDS if getattr(self, f) is not None]
        if len(named) != 1 or not getattr(self, named[0]).strip():
            raise ValueError(f"give exactly one of {', '.join(OWNER_FIELDS)}, not empty")
        return self

    @property
    def principal(self) -> Principal:
        field = next(f for f in OWNER_FIELDS if getattr(self, f) is not None)
        return field, getattr(self, field)


def each_principal_once(entries: list[Any]) -> list[Any]:
    first_seen: dict[Principal, int] = {}
    for index, entry in enumerate(entries):
        if entry.principal in first_seen:
            field, name = entry.principal
            raise ValueError(
                f"entries {first_seen[entry.principal]} and {index} both name "
                f"{field} {name!r}; give each principal once"
            )
        first_seen[entry.principal] = index
    return entries


def workspace_path(value: str) -> str:
    """A workspace path as the service takes it: absolute, with or without /Workspace,
    of named segments (no empty, `.` or `..` segment, no trailing `/`)."""
    segments = value.split("/")
    if not value.startswith("/") or value == "/" or any(
        s in ("", ".", "..") for s in segments[1:]
    ):
        raise ValueError(
            "must be an absolute workspace path such as /Workspace/Shared/etl/ingest: "
            "starting with '/', no empty, '.' or '..' segment, no trailing '/'"
        )
    return value


class PermissionsModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    object_type: str | None = Field(
        default=None, description="the permissions API's type: clusters, notebooks, ..."
    )
    object_id: str | None = None
    authorization: Literal["tokens", "passwords"] | None = None
    notebook_path: str | None = None
    directory_path: str | None = None
    workspace_file_path: str | None = None
    repo_path: str | None = None
    access_controls: list[AccessControlEntryModel] = Field(default_factory=list)
    owner: OwnerModel | None = None
    # Only the declared entries remain (the set form of the API); the default is additive.
    authoritative: bool = False

    @field_validator("object_type")
    @classmethod
    def _known_type(cls, value: str | None) -> str | None:
        if value is None:
            return value
        value = TYPE_ALIASES.get(value, value)
        if value == AUTHORIZATION:
            raise ValueError(
                "token and password usage is `authorization: tokens` or "
                "`authorization: passwords`, without object_type and object_id"
            )
        if value not in OBJECT_TYPES:
            known = [t for t in OBJECT_TYPES if t != AUTHORIZATION]
            raise ValueError(f"must be one of {', '.join(known)}")
        return value

    @field_validator("object_id", mode="before")
    @classmethod
    def _plain_id(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return canonical_id(value)
        if isinstance(value, str) and (not value.strip() or "/" in value):
            raise ValueError("must be the object's id: not empty, without '/'")
        return value

    @field_validator("object_id")
    @classmethod
    def _id_of_the_type(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return value
        object_type = info.data.get("object_type")
        pattern, says = OBJECT_ID_RULES.get(object_type or "", _NAMED)
        if not pattern.fullmatch(value):
            raise ValueError(f"a {object_type or 'permissions object'} id is {says}")
        return value

    @field_validator(*PATH_FIELDS)
    @classmethod
    def _a_workspace_path(cls, value: str | None) -> str | None:
        return value if value is None else workspace_path(value)

    @model_validator(mode="after")
    def _addressed_once(self) -> PermissionsModel:
        given = [f for f in ("object_type", "object_id", AUTHORIZATION, *PATH_FIELDS)
                 if getattr(self, f) is not None]
        if given == ["object_type"]:
            raise ValueError("object_id: required with object_type (the object's id)")
        if given == ["object_id"]:
            raise ValueError("object_type: required with object_id (clusters, notebooks, ...)")
        ways = [f for f in ADDRESSES if getattr(self, f) is not None]
        if len(ways) != 1:
            raise ValueError(
                "address the object one way: object_type with object_id, authorization "
                f"(tokens or passwords), or one of {', '.join(PATH_FIELDS)}"
                + (f"; got {', '.join(ways)}" if ways else "")
            )
        return self

    @field_validator("access_controls")
    @classmethod
    def _each_principal_once(cls, value: list[AccessControlEntryModel]) -> list:
        return each_principal_once(value)

    @model_validator(mode="after")
    def _something_declared(self) -> PermissionsModel:
        if not self.access_controls and self.owner is None:
            raise ValueError("declare access_controls, an owner, or both")
        return self


def could_name_the_owner(spec: Mapping[str, Any]) -> bool:
    """Whether a declared entry names a kind of principal that can own an object."""
    return any(field in OWNER_FIELDS for field, _ in declared_principals(spec))


def principal_of(entry: Mapping[str, Any]) -> Principal | None:
    field = next((f for f in PRINCIPAL_FIELDS if entry.get(f)), None)
    return (field, entry[field]) if field else None


def direct_entries(
    permissions: Mapping[str, Any], levels: Iterable[str] | None = None
) -> dict[Principal, Entry]:
    """The direct (not inherited) entries of a permissions answer, owner included; only the
    `levels` given, where given."""
    known = None if levels is None else set(levels)
    entries: dict[Principal, Entry] = {}
    for item in permissions.get("access_control_list") or []:
        principal = principal_of(item)
        found = [
            p["permission_level"]
            for p in item.get("all_permissions") or []
            if not p.get("inherited")
            and p.get("permission_level")
            and (known is None or p["permission_level"] in known)
        ]
        if principal and found:
            level = max(found, key=_rank)
            entries[principal] = {principal[0]: principal[1], "permission_level": level}
    return entries


def owner_of(permissions: Mapping[str, Any]) -> Principal | None:
    return next(
        (p for p, e in direct_entries(permissions).items() if e["permission_level"] == OWNER),
        None,
    )


def sorted_entries(entries: Iterable[Entry]) -> list[Entry]:
    return sorted(entries, key=lambda e: principal_of(e) or ("", ""))


def declared_principals(props: Mapping[str, Any]) -> set[Principal]:
    return {p for e in props.get("access_controls") or [] if (p := principal_of(e))}


class AclProvider(WorkspaceProvider):
    args_model: ClassVar[type[BaseModel]] = PermissionsModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(
        {"object_type", "object_id", AUTHORIZATION, *PATH_FIELDS}
    )
    # Whether an import records the owner (JobPermissions never manages it).
    manages_owner: ClassVar[bool] = True

    # --- what a specialisation (JobPermissions) changes -------------------------------
    def target(self, args: Any) -> tuple[str, str]:
        """(object type, object id) of the declared object, where it is not declared by a
        workspace path (`path_declared`)."""
        if getattr(args, AUTHORIZATION, None) is not None:
            return AUTHORIZATION, args.authorization
        return args.object_type, args.object_id

    def target_of_id(self, id_: str) -> tuple[str, str]:
        object_type, _, object_id = id_.partition("/")
        object_type = TYPE_ALIASES.get(object_type, object_type)
        if "/" in object_id and object_type not in OBJECT_TYPES:  # sql/queries/<id>
            head, _, object_id = object_id.partition("/")
            object_type = f"{object_type}/{head}"
            object_type = TYPE_ALIASES.get(object_type, object_type)
        if object_type not in OBJECT_TYPES or not object_id or (
            object_type == AUTHORIZATION and object_id not in AUTHORIZATION_OBJECTS
        ):
            raise ValueError(
                f"a Permissions id is <object type>/<object id> (e.g. clusters/<cluster id>, "
                f"authorization/tokens), with a type of {', '.join(OBJECT_TYPES)}, or "
                f"<path field>:<workspace path> (e.g. notebook_path:/Workspace/Shared/etl) "
                f"with a field of {', '.join(PATH_FIELDS)}; got {id_!r}"
            )
        # The object id is a segment of the request path: `clusters/..` must not reach
        # the permissions endpoint itself (the rule of a declared `object_id`).
        pattern, says = OBJECT_ID_RULES.get(object_type, _NAMED)
        if object_type != AUTHORIZATION and not pattern.fullmatch(object_id):
            raise ValueError(f"a {object_type} id is {says}; got {object_id!r} in {id_!r}")
        return object_type, object_id

    def id_of(self, object_type: str, object_id: str) -> str:
        return f"{object_type}/{object_id}"

    def spec_head(self, object_type: str, object_id: str) -> Spec:
        """The spec's keys that name the object."""
        if object_type == AUTHORIZATION:
            return {AUTHORIZATION: object_id}
        return {"object_type": object_type, "object_id": object_id}

    # --- addressing by workspace path ---------------------------------------------------
    @staticmethod
    def path_declared(args: Any) -> tuple[str, str] | None:
        """(path field, path) where the object is declared by its workspace path."""
        return next(
            ((f, getattr(args, f)) for f in PATH_FIELDS if getattr(args, f, None) is not None),
            None,
        )

    @staticmethod
    def path_of_id(id_: str) -> tuple[str, str] | None:
        field, colon, path = id_.partition(":")
        return (field, path) if colon and field in PATH_FIELDS and path else None

    @staticmethod
    def resolve(client: WorkspaceClient, field: str, path: str) -> tuple[str, str]:
        """(permissions type, object id) of the object at `path`, which must be of the
        field's kind; NotFound (gone) where nothing is there."""
        status = WorkspacePathsApi(client).status(path)
        wanted, object_type = PATH_FIELDS[field]
        found = status.get("object_type")
        if found != wanted:
            fitting = next((f for f, (kind, _) in PATH_FIELDS.items() if kind == found), None)
            instead = f"; declare it as {fitting}" if fitting else ""
            raise ValueError(
                f"{field}: {path} is a {found} in the workspace, not a {wanted}{instead}"
            )
        return object_type, canonical_id(status["object_id"])

    def locate(self, client: WorkspaceClient, args: Any) -> tuple[str, str]:
        declared = self.path_declared(args)
        return self.resolve(client, *declared) if declared else self.target(args)

    def locate_id(self, client: WorkspaceClient, id_: str) -> tuple[str, str]:
        by_path = self.path_of_id(id_)
        return self.resolve(client, *by_path) if by_path else self.target_of_id(id_)

    def head_of_id(self, id_: str, object_type: str, object_id: str) -> Spec:
        by_path = self.path_of_id(id_)
        return {by_path[0]: by_path[1]} if by_path else self.spec_head(object_type, object_id)

    @staticmethod
    def resolved(id_: str, object_type: str, object_id: str) -> dict[str, Any]:
        """The computed outputs: the object a path names, for a path-addressed resource."""
        if AclProvider.path_of_id(id_) is None:
            return {}
        return {RESOLVED_TYPE: object_type, RESOLVED_ID: object_id}

    @classmethod
    def declared_type(cls, args: Any) -> str:
        """The permissions type of the declared object, known without a call."""
        declared = cls.path_declared(args)
        if declared is not None:
            return PATH_FIELDS[declared[0]][1]
        if getattr(args, AUTHORIZATION, None) is not None:
            return AUTHORIZATION
        return getattr(args, "object_type", None) or "jobs"

    def owner_declared(self, args: Any) -> Principal | None:
        owner = getattr(args, "owner", None)
        return owner.principal if owner is not None else None

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args: Any = cls.args_model.model_validate(inputs)
        object_type = cls.declared_type(args)
        levels = levels_of(object_type)
        problems = []
        for index, entry in enumerate(args.access_controls):
            if entry.permission_level not in levels:
                allowed = ", ".join(level for level in levels if level != OWNER)
                problems.append((
                    f"access_controls.{index}.permission_level",
                    f"{object_type} allow {allowed}; got {entry.permission_level!r}",
                ))
        owner = getattr(args, "owner", None)
        if owner is not None:
            if OWNER not in levels:
                with_owners = [t for t in OBJECT_TYPES if t not in FIXED_LEVELS and has_owner(t)]
                problems.append((
                    "owner",
                    f"{object_type} have no owner; ownership moves on {', '.join(with_owners)}",
                ))
            elif owner.principal in {e.principal for e in args.access_controls}:
                problems.append((
                    "owner",
                    f"{owner.principal[0]} {owner.principal[1]!r} is the owner: leave it out "
                    "of access_controls",
                ))
        return problems

    # --- the lifecycle ----------------------------------------------------------------
    def spec(self, args: Any) -> Spec:
        entries = [e.model_dump(exclude_none=True) for e in args.access_controls]
        by_path = self.path_declared(args)
        head = {by_path[0]: by_path[1]} if by_path else self.spec_head(*self.target(args))
        spec = {**head, "access_controls": sorted_entries(entries)}
        owner = self.owner_declared(args)
        if owner is not None:
            spec["owner"] = {owner[0]: owner[1]}
        if getattr(args, "authoritative", False):
            spec["authoritative"] = True
        return spec

    @classmethod
    def field_changes(cls, recorded, new_inputs):
        """An authoritative list's changes per principal (the pull-request summary's): each
        recorded entry (a refresh reads every direct one) whose level is not the declared
        one, lost entries with after None. Other lists: the inputs compared."""
        try:
            args: Any = cls.args_model.model_validate(user_inputs(new_inputs))
        except ValueError:
            return None
        if not getattr(args, "authoritative", False):
            return None
        levels = {p: e["permission_level"] for e in recorded.get("access_controls") or []
                  if (p := principal_of(e))}
        wanted = {e.principal: e.permission_level for e in args.access_controls}
        return [(f"access_controls[{field} {name}]", levels.get((field, name)),
                 wanted.get((field, name)))
                for field, name in sorted(set(levels) | set(wanted))
                if levels.get((field, name)) != wanted.get((field, name))]

    def describe_changes(self, result, recorded, desired, news, olds) -> None:
        """An authoritative list names, in a warning, each principal and level it takes
        away: the recorded entries (a refresh reads every direct one) no longer declared."""
        if not desired.get("authoritative") or result.replaces:
            return
        before = {p: e for e in recorded.get("access_controls") or []
                  if (p := principal_of(e))}
        losers = authoritative.dropped(before, declared_principals(desired))
        if losers:
            result.field_changes = [f"access_controls: {line} (not declared)"
                                    for line in authoritative.describe(losers)]
            authoritative.warn(self._target_named(desired), losers)

    @staticmethod
    def _target_named(spec: Mapping[str, Any]) -> str:
        if spec.get("object_type"):
            return f"{spec['object_type']}/{spec.get('object_id')}"
        return next((f"{k}:{spec[k]}" for k in (*PATH_FIELDS, AUTHORIZATION) if spec.get(k)),
                    "the object")

    def _set_authoritatively(
        self, api: PermissionsApi, object_id: str, current: Mapping[str, Any], spec: Spec,
        owner: Principal | None,
    ) -> Mapping[str, Any]:
        """Every direct entry made the declared ones (the owner's kept, or moved where
        `owner` is declared), warning who loses what."""
        direct = direct_entries(current)
        losers = authoritative.dropped(direct, declared_principals(spec))
        authoritative.warn(f"{api.object_type}/{object_id}", losers)
        entries = authoritative.kept_and_declared(
            direct, self._changes(current, spec, owner), principal_of)
        if owner is not None and owner != owner_of(current):
            entries = {p: e for p, e in entries.items()
                       if e["permission_level"] != OWNER or p == owner}
        return api.set(object_id, entries.values())

    def create_object(self, client: WorkspaceClient, args: Any, spec: Spec):
        object_type, object_id = self.locate(client, args)
        by_path = self.path_declared(args)
        id_ = f"{by_path[0]}:{by_path[1]}" if by_path else self.id_of(object_type, object_id)
        api = client.permissions(object_type)
        # Read before the PATCH where it matters: a PATCH naming the owner at a lower level
        # would demote it and leave the object without an owner, so that is refused before
        # any write; and a declared owner moves only when it is not the owner already. Only
        # a user or a service principal can own an object, so a declaration naming only
        # groups, with no owner, needs no read.
        owner = self.owner_declared(args)
        current: Mapping[str, Any] = {}
        if owner is not None or could_name_the_owner(spec) or spec.get("authoritative"):
            current = api.get(object_id)
            self._refuse_owner(current, spec, object_type, object_id)
        if spec.get("authoritative"):
            answer = self._set_authoritatively(api, object_id, current, spec, owner)
        else:
            answer = api.update(object_id, self._changes(current, spec, owner))
        observed = self._observe(
            api, object_id, answer, declared_principals(spec), spec,
            self.head_of_id(id_, object_type, object_id),
        )
        return id_, observed, self.resolved(id_, object_type, object_id)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        try:
            object_type, object_id = self.locate_id(client, id_)
            current = client.permissions(object_type).get(object_id)
        except (NotFound, InvalidParameter) as error:
            if is_gone(error):
                return None
            raise
        if recorded.get("authoritative"):  # every direct entry is the resource's
            ours = {p for p, e in direct_entries(current).items() if e["permission_level"] != OWNER}
        elif "access_controls" in recorded:
            ours = declared_principals(recorded)
        else:  # an import: every direct entry but the owner's, and the owner
            ours = {p for p, e in direct_entries(current).items() if e["permission_level"] != OWNER}
            recorded = {"owner": None} if self.manages_owner and has_owner(object_type) else {}
            if "authoritative" in self.args_model.model_fields:
                # An import holds every direct entry: what an authoritative list declares.
                recorded = {**recorded, "authoritative": True}
        head = self.head_of_id(id_, object_type, object_id)
        observed = self._spec_of(object_type, object_id, current, ours, recorded, head)
        return observed, self.resolved(id_, object_type, object_id)

    def update_object(self, client, id_, recorded, args: Any, spec: Spec):
        object_type, object_id = self.locate(client, args)
        head = self.head_of_id(id_, object_type, object_id)
        api = client.permissions(object_type)
        current = api.get(object_id)
        self._refuse_owner(current, spec, object_type, object_id)
        removed = declared_principals(recorded) - declared_principals(spec)
        changes = self._changes(current, spec, self.owner_declared(args))
        if spec.get("authoritative"):
            answer = self._set_authoritatively(api, object_id, current, spec,
                                               self.owner_declared(args))
        elif removed:
            entries = self._without(current, removed)
            new_owner = self.owner_declared(args)
            if new_owner is not None and new_owner != owner_of(current):
                entries = {p: e for p, e in entries.items() if e["permission_level"] != OWNER}
            entries.update({p: e for e in changes if (p := principal_of(e))})
            answer = api.set(object_id, entries.values())
        else:
            answer = api.update(object_id, changes)
        observed = self._observe(api, object_id, answer, declared_principals(spec), spec, head)
        return observed, self.resolved(id_, object_type, object_id)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        try:
            object_type, object_id = self.locate_id(client, id_)
            api = client.permissions(object_type)
            current = api.get(object_id)
        except (NotFound, InvalidParameter) as error:
            if is_gone(error):
                return
            raise
        entries = self._without(current, declared_principals(recorded))
        if len(entries) < len(direct_entries(current)):
            try:
                api.set(object_id, entries.values())
            except (NotFound, InvalidParameter) as error:
                # The object went between the read and the write (its own delete, unordered).
                if not is_gone(error):
                    raise

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _changes(current: Mapping[str, Any], spec: Spec, owner: Principal | None) -> list[Entry]:
        """The entries to PATCH: the declared ones, and the owner's where it is to move."""
        changes = list(spec["access_controls"])
        if owner is not None and owner != owner_of(current):
            changes.append({owner[0]: owner[1], "permission_level": OWNER})
        return changes

    @staticmethod
    def _without(current: Mapping[str, Any], principals: set[Principal]) -> dict[Principal, Entry]:
        """The direct entries minus `principals`; the owner's entry always stays."""
        return {
            p: e
            for p, e in direct_entries(current).items()
            if p not in principals or e["permission_level"] == OWNER
        }

    def _refuse_owner(
        self, current: Mapping[str, Any], spec: Spec, object_type: str, object_id: str
    ) -> None:
        owner = owner_of(current)
        if owner is None or owner not in declared_principals(spec):
            return
        if "owner" in spec and principal_of(spec["owner"]) != owner:
            return  # ownership moves away from it in the same request, which names its level
        raise ValueError(self.owner_refusal(owner, object_type, object_id))

    def owner_refusal(self, owner: Principal, object_type: str, object_id: str) -> str:
        return (
            f"{owner[0]} {owner[1]!r} owns {object_type}/{object_id}; an entry for it would "
            "demote the owner, so leave it out of access_controls (or move ownership with "
            "`owner` first)"
        )

    def _observe(
        self, api: PermissionsApi, object_id: str, answer: Mapping[str, Any], ours: set,
        like: Spec, head: Spec | None = None,
    ) -> Spec:
        current = answer if "access_control_list" in answer else api.get(object_id)
        return self._spec_of(api.object_type, object_id, current, ours, like, head)

    def _spec_of(
        self, object_type: str, object_id: str, current: Mapping[str, Any],
        ours: set[Principal], like: Mapping[str, Any], head: Spec | None = None,
    ) -> Spec:
        """Our entries as they stand (one removed out of band is absent), and the owner
        where it is declared; `head` names the object (default: its type and id)."""
        present = direct_entries(current)
        spec = {
            **(head if head is not None else self.spec_head(object_type, object_id)),
            "access_controls": sorted_entries(present[p] for p in ours if p in present),
        }
        if "owner" in like:
            owner = owner_of(current)
            spec["owner"] = {owner[0]: owner[1]} if owner else None
        if like.get("authoritative"):
            spec["authoritative"] = True
        return spec


def with_entries(answer: Any, service_own: Collection[tuple[str, str]] = ()) -> bool:
    """Whether a permissions answer has a direct entry besides the owner's and those the
    service made itself, `service_own` as (principal's name, level) (a creator's
    CAN_MANAGE): what a Permissions or JobPermissions resource declares
    (`direct_entries` takes a principal's highest direct level, the owner's above all)."""
    for entry in answer.get("access_control_list") or []:
        principal = principal_of(entry)
        if principal is None:
            continue
        levels = {
            p.get("permission_level")
            for p in entry.get("all_permissions") or []
            if not p.get("inherited") and p.get("permission_level")
        }
        if not levels or OWNER in levels:
            continue
        if any((principal[1], level) not in service_own for level in levels):
            return True
    return False
