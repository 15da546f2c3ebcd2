"""RegisteredModel: a Unity Catalog registered model in a schema, and its aliases.

The arguments are the public API's create and update bodies, and `aliases` (alias ->
version number). `comment` and `owner` change in place (the owner last, in a call of its
own); a new `name`, `catalog_name`, `schema_name` or `storage_location` replaces the model.
`catalog_name` and `schema_name` may name a `catalogs` or `schemas` item of the stack (in
place: any other value is the name as the service has it). The id is the full name
`catalog.schema.model`; names are folded to lower case as the service stores them.

Versions are made by training runs, never by the stack: the kind sets and deletes the
aliases it declares (one set outside the stack is left alone), checks that each alias names
an existing version before any change, and deletes a model that holds versions only with
`force_destroy: true` (this kind's own, never sent), since the service deletes them with it.
A managed model's storage location is the service's choice: it is a setting only when
declared (an external location's URL).

A create answered in a way that leaves open whether the model was made, or answered
"already exists", adopts a model of that name that the stack's principal made as declared
and that holds no versions: what an interrupted run leaves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, StrictBool, field_validator

from providers.client import AlreadyExists, WorkspaceError
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import PRINCIPALS, NameReference, Reference, appended_to, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.validators import not_blank
from providers.ml.registered_models_api import RegisteredModelsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

CREATE_FIELDS = ("comment", "storage_location")
# What an update sends to clear a setting the config no longer declares.
CLEARED = {"comment": ""}
MAX_NAME = 255
FORBIDDEN = frozenset(". /")
ALIAS = re.compile(r"[a-z0-9_-]{1,255}")
RESERVED_ALIAS = re.compile(r"latest|v\d+")
# Where the service places what it manages itself: a model's location there is its choice.
MANAGED_STORAGE = "/__unitystorage/"


def object_name(value: str) -> str:
    """A catalog's, schema's or model's own name, folded to lower case as the service does."""
    if not value:
        raise ValueError("must not be empty")
    if len(value) > MAX_NAME:
        raise ValueError(f"has {len(value)} characters; a name has at most {MAX_NAME}")
    bad = sorted({c for c in value if c in FORBIDDEN or ord(c) < 32 or ord(c) == 127})
    if bad:
        shown = ", ".join(repr(c) for c in bad)
        raise ValueError(f"{value!r} holds {shown}: a name holds no '.', space, '/' or "
                         "control character")
    return value.lower()


def storage_url(value: str) -> str:
    scheme, sep, rest = value.partition("://")
    if not sep or not scheme or not rest.strip("/") or any(c.isspace() for c in value):
        raise ValueError(f"{value!r} is not a storage URL (e.g. abfss://container@account."
                         "dfs.core.windows.net/path, s3://bucket/path or gs://bucket/path)")
    return value.rstrip("/")


def alias_name(value: str) -> str:
    folded = value.lower()
    if not ALIAS.fullmatch(folded):
        raise ValueError(f"alias {value!r}: an alias holds letters, digits, '_' and '-' only "
                         "(1 to 255)")
    if RESERVED_ALIAS.fullmatch(folded):
        raise ValueError(f"alias {value!r} is reserved by the service ('latest' and "
                         "'v<number>' name versions themselves): choose another name")
    return folded


def model_name(value: str) -> str:
    """The model's own name, or its full name `catalog.schema.model`, each part a name."""
    parts = value.split(".")
    if len(parts) not in (1, 3):
        raise ValueError(f"{value!r} has {len(parts)} parts; give the model's name or its "
                         "full name, catalog.schema.model")
    try:
        return ".".join(object_name(part) for part in parts)
    except ValueError as error:
        raise ValueError(f"{value!r}: {error}" if len(parts) > 1 else str(error)) from None


Name = Annotated[str, AfterValidator(object_name)]


class RegisteredModelModel(BaseModel):
    """A Unity Catalog registered model."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, AfterValidator(model_name)]
    catalog_name: Name | None = None
    schema_name: Name | None = None
    comment: str | None = None
    storage_location: Annotated[str, AfterValidator(storage_url)] | None = None
    owner: Annotated[str, AfterValidator(not_blank)] | None = None
    # alias -> the version number it names
    aliases: dict[str, int] | None = None
    force_destroy: StrictBool = False

    @field_validator("comment")
    @classmethod
    def _empty_comment(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("aliases")
    @classmethod
    def _aliases(cls, value: dict[str, int] | None) -> dict[str, int] | None:
        if not value:
            return None
        folded: dict[str, int] = {}
        for alias, version in value.items():
            name = alias_name(alias)
            if name in folded:
                raise ValueError(f"alias {alias!r} is given twice (aliases are matched "
                                 "without regard to case)")
            if version < 1:
                raise ValueError(f"alias {alias!r}: {version} is no version number (versions "
                                 "are numbered from 1)")
            folded[name] = version
        return dict(sorted(folded.items()))

    def levels(self) -> tuple[list[tuple[str, str]], tuple[str, str, str]]:
        """(problems as (path, reason), (catalog, schema, model)): the catalog and schema
        from `name` where it is the full name, else `catalog_name` and `schema_name`; where
        both give one they must agree."""
        parts = self.name.split(".")
        problems: list[tuple[str, str]] = []
        if len(parts) == 3:
            for level, given, held in (("catalog", self.catalog_name, parts[0]),
                                       ("schema", self.schema_name, parts[1])):
                if given is not None and given != held:
                    problems.append((f"{level}_name", f"{given!r} is not the {level} of name "
                                     f"{self.name!r}"))
            return problems, (parts[0], parts[1], parts[2])
        for level, given in (("catalog", self.catalog_name), ("schema", self.schema_name)):
            if given is None:
                problems.append((f"{level}_name", "required (or give name as the model's "
                                 "full name, catalog.schema.model)"))
        return problems, (self.catalog_name or "", self.schema_name or "", parts[0])

    @property
    def full_name(self) -> str:
        return ".".join(self.levels()[1])


class RegisteredModelProvider(WorkspaceProvider):
    args_model = RegisteredModelModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(
        {"name", "catalog_name", "schema_name", "storage_location"}
    )
    kept_when_left_out = frozenset({"owner"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        return RegisteredModelModel.model_validate(inputs).levels()[0]

    def spec(self, args: RegisteredModelModel) -> Spec:
        problems, (catalog, schema, name) = args.levels()
        if problems:
            raise ValueError("; ".join(f"{path}: {reason}" for path, reason in problems))
        spec = args.model_dump(mode="json", exclude_none=True)
        return {**spec, "catalog_name": catalog, "schema_name": schema, "name": name}

    def must_delete_first(self, changed: list[str]) -> bool:
        # The same full name: the new model can only be made once the old one is gone.
        return not {"name", "catalog_name", "schema_name"} & set(changed)

    def create_object(self, client: WorkspaceClient, args: RegisteredModelModel, spec: Spec):
        full_name = args.full_name
        body = {"catalog_name": spec["catalog_name"], "schema_name": spec["schema_name"],
                "name": spec["name"]}
        body.update({key: spec[key] for key in CREATE_FIELDS if key in spec})
        left_over = (self._left_over(client, spec, full_name) if spec.get("aliases")
                     else None)
        if spec.get("aliases") and left_over is None:
            # Checked before anything is made: a new model has no versions.
            alias, version = next(iter(spec["aliases"].items()))
            raise ValueError(
                f"aliases.{alias}: version {version} of {full_name} does not exist (a new "
                "model has no versions; versions come from training runs: declare the "
                "model without aliases, register a version, then declare the alias)")
        made = left_over or self._created(client, body, spec, full_name)
        found = self._converged(client, full_name, made, spec, {})
        return full_name, self._spec_of(found, spec), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = RegisteredModelsApi(client).get(id_)
        return self._spec_of(found, self._recorded_spec(recorded)), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec):
        before = RegisteredModelsApi(client).get(id_)
        found = self._converged(client, id_, before, spec, self._recorded_spec(recorded))
        return self._spec_of(found, spec), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        area = RegisteredModelsApi(client)
        if not recorded.get("force_destroy"):
            versions = sorted(int(v["version"]) for v in area.versions(id_))
            if versions:
                raise ValueError(
                    f"registered model {id_!r} holds version(s) "
                    f"{', '.join(str(v) for v in versions)}, made by training runs, which "
                    "its delete would delete too: set force_destroy: true on the "
                    "RegisteredModel and run `pulumi up` before deleting it to delete them "
                    "with it, or delete them first")
        area.delete(id_)

    # --- helpers ------------------------------------------------------------------
    def _created(self, client: WorkspaceClient, body: dict[str, Any], spec: Spec,
                 full_name: str) -> Mapping[str, Any]:
        """The model the create made, or the one an interrupted create of this resource left;
        where another holds the name, the refusal says how to import it."""
        area = RegisteredModelsApi(client)
        try:
            made, _ = create_or_adopt(lambda: area.create(body),
                                      lambda: self._left_over(client, spec, full_name))
            return made
        except AlreadyExists as error:
            left = self._left_over(client, spec, full_name)
            if left is not None:
                return left
            error.message += (
                f" (a registered model {full_name!r} exists that this stack did not make: to "
                f"manage it, import it: `import: {full_name}` on its item, or "
                "ResourceOptions(import_=...))")
            error.args = (str(error),)
            raise

    def _converged(self, client: WorkspaceClient, full_name: str, found: Mapping[str, Any],
                   spec: Spec, recorded: Mapping[str, Any]) -> Mapping[str, Any]:
        """Checks the declared aliases' versions, then sends what the spec declares and the
        model lacks: the comment (or its clearing), the aliases (a declared one set, one
        declared before and no longer deleted), the owner last; the model as then shown."""
        area = RegisteredModelsApi(client)
        wanted: dict[str, int] = spec.get("aliases") or {}
        held = _aliases_of(found)
        to_set = {a: v for a, v in wanted.items() if held.get(a) != v}
        to_delete = [a for a in (recorded.get("aliases") or {})
                     if a not in wanted and a in held]
        if to_set:
            versions = {int(v["version"]) for v in area.versions(full_name)}
            for alias, version in to_set.items():
                if version not in versions:
                    have = ", ".join(str(v) for v in sorted(versions)) or "none"
                    raise ValueError(
                        f"aliases.{alias}: version {version} of {full_name} does not exist "
                        f"(its versions: {have}; versions come from training runs)")
        changes: dict[str, Any] = {}
        if spec.get("comment") is not None and found.get("comment") != spec["comment"]:
            changes["comment"] = spec["comment"]
        elif "comment" in recorded and "comment" not in spec and found.get("comment"):
            changes["comment"] = CLEARED["comment"]
        if changes:
            area.update(full_name, changes)
        for alias, version in to_set.items():
            area.set_alias(full_name, alias, version)
        for alias in to_delete:
            area.delete_alias(full_name, alias)
        owner = spec.get("owner")
        if owner is not None and _observed_owner(found, owner) != owner:
            area.update(full_name, {"owner": owner})
        if changes or to_set or to_delete or owner is not None:
            return area.get(full_name)
        return found

    @staticmethod
    def _left_over(client: WorkspaceClient, spec: Spec, full_name: str
                   ) -> Mapping[str, Any] | None:
        """The model of the declared full name, if an interrupted create of this resource
        made it: made by the stack's principal, as the create body declares, no versions."""
        area = RegisteredModelsApi(client)
        try:
            found = area.get(full_name)
        except WorkspaceError:
            return None
        caller = client.connection.client_id
        creator = found.get("created_by")
        if caller and isinstance(creator, str) and creator and creator.lower() != caller.lower():
            return None
        for key in CREATE_FIELDS:
            if key in spec and _shown(found, key) != spec[key]:
                return None
        if area.versions(full_name):
            return None
        return found

    @staticmethod
    def _spec_of(found: Mapping[str, Any], declared: Mapping[str, Any]) -> Spec:
        spec: Spec = {
            "catalog_name": str(found.get("catalog_name", "")).lower(),
            "schema_name": str(found.get("schema_name", "")).lower(),
            "name": str(found.get("name", "")).lower(),
        }
        held = _aliases_of(found)
        declared_aliases = declared.get("aliases")
        if declared_aliases is not None:
            # The aliases the stack declares; one set outside it is not its business.
            held = {a: v for a, v in held.items() if a in declared_aliases}
        shown = {
            "comment": found.get("comment"),
            "storage_location": _shown(found, "storage_location"),
            "owner": _observed_owner(found, declared.get("owner")),
            "aliases": dict(sorted(held.items())) or None,
        }
        spec.update({key: value for key, value in shown.items() if value not in (None, "")})
        spec["force_destroy"] = bool(declared.get("force_destroy", False))
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {"full_name": found.get("full_name"), "metastore_id": found.get("metastore_id")}


def _aliases_of(found: Mapping[str, Any]) -> dict[str, int]:
    return {str(a.get("alias_name", "")).lower(): int(a["version_num"])
            for a in found.get("aliases") or [] if a.get("version_num") is not None}


def _shown(found: Mapping[str, Any], key: str) -> Any:
    value = found.get(key)
    if key == "storage_location":
        if not isinstance(value, str) or not value or MANAGED_STORAGE in value:
            return None
        return value.rstrip("/")
    return value


def _observed_owner(found: Mapping[str, Any], declared: str | None) -> str | None:
    """The owner the service shows, in the declared spelling where the service matched a
    user name without regard to case."""
    owner = found.get("owner")
    if (isinstance(owner, str) and declared is not None and "@" in declared
            and owner.lower() == declared.lower()):
        return declared
    return owner


def _schema_of(schema_id: str) -> str:
    """A `schemas` item's id is `catalog.schema`: the model's schema_name is its last part."""
    return schema_id.rsplit(".", 1)[-1]


KIND = declare(
    name="RegisteredModel",
    provider=RegisteredModelProvider,
    outputs={"full_name": str, "metastore_id": str},
    config_key="registeredModels",
    names={
        "catalog_name": NameReference("catalog_name", ("catalogs",)),
        "schema_name": NameReference("schema_name", ("schemas",), within=("catalog_name",)),
        "owner": NameReference("owner", PRINCIPALS),
    },
    named_as=("catalog_name", "schema_name", "name"),
    names_fold_case=True,
    references={
        "catalog_name": Reference(target_key="catalogs", field="catalog_name", folds_case=True,
                                  in_place=True),
        "schema_name": Reference(target_key="schemas", field="schema_name", folds_case=True,
                                 in_place=True, from_id=_schema_of),
    },
    # A declared storage_location lies under an external location.
    after=("externalLocations",),
    doc="docs/registered-model.md",
    summary="a Unity Catalog registered model and its aliases: comment, owner and aliases "
    "in place; never deletes a version unless force_destroy",
    import_id="full name, catalog.schema.model",
    stack_output=("registeredModels", lambda resource: resource.id),
    defaults={"force_destroy": False},
    inventory=lambda client: (
        (str(m["full_name"]), str(m["full_name"])) for m in RegisteredModelsApi(client).list()
    ),
    drill=appended_to("comment"),
)
