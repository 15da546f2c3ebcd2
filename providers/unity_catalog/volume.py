"""Volume: a Unity Catalog volume in a schema, MANAGED (the service places its files) or
EXTERNAL (at a declared `storage_location`, under an external location).

The arguments are the public API's create and update bodies. `comment` and `owner` change
in place (the owner last, in a call of its own); a new `name`, `catalog_name`,
`schema_name`, `volume_type` or `storage_location` replaces the volume. `name` may be the
volume's full name `catalog.schema.volume` and `schema_name` the schema's `catalog.schema`
(what a `schema:` reference gives), the names they hold then left out. The id, and the
recorded `name`, is the full name; the recorded `schema_name` is the schema's full name.
Names are folded to lower case as the service stores them.

A create answered in a way that leaves open whether the volume was made, or answered
"already exists", adopts a volume of that name that the stack's principal made as declared:
what an interrupted run leaves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from providers.client import WorkspaceError
from providers.core.kind import PRINCIPALS, NameReference, Reference, appended_to, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.unity_catalog.uc_names import (
    KEPT_WHEN_LEFT_OUT,
    Name,
    NotBlank,
    StorageUrl,
    converged,
    created_or_left_over,
    dotted_name,
    holds_as_made,
    made_by_caller,
    observed_owner,
    observed_url,
    volume_full_names,
)
from providers.unity_catalog.volumes_api import VolumesApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

CREATE_FIELDS = ("volume_type", "storage_location", "comment")
UPDATE_FIELDS = ("comment",)


class VolumeModel(BaseModel):
    """A Unity Catalog volume."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, dotted_name((1, 3))]
    catalog_name: Name | None = None
    schema_name: Annotated[str, dotted_name((1, 2))] | None = None
    volume_type: Literal["MANAGED", "EXTERNAL"]
    storage_location: StorageUrl | None = None
    comment: str | None = None
    owner: NotBlank | None = None

    @field_validator("comment")
    @classmethod
    def _empty_comment(cls, value: str | None) -> str | None:
        return value or None

    def levels(self) -> tuple[list[tuple[str, str]], tuple[str | None, str | None, str]]:
        """(problems as (path, reason), (catalog, schema, volume)): each level from the
        first of `name`, `schema_name`, `catalog_name` that holds it, the others agreeing."""
        problems: list[tuple[str, str]] = []
        parts = self.name.split(".")
        volume = parts[-1]
        given: dict[str, list[tuple[str, str]]] = {"catalog": [], "schema": []}
        if len(parts) == 3:
            given["catalog"].append(("name", parts[0]))
            given["schema"].append(("name", parts[1]))
        if self.schema_name is not None:
            schema_parts = self.schema_name.split(".")
            if len(schema_parts) == 2:
                given["catalog"].append(("schema_name", schema_parts[0]))
            given["schema"].append(("schema_name", schema_parts[-1]))
        if self.catalog_name is not None:
            given["catalog"].append(("catalog_name", self.catalog_name))
        found: dict[str, str | None] = {}
        for level, sources in given.items():
            found[level] = sources[0][1] if sources else None
            first_field = sources[0][0] if sources else ""
            for field_name, value in sources[1:]:
                if value != found[level]:
                    problems.append((field_name, f"{value!r} is not the {level} of "
                                     f"{first_field} {getattr(self, first_field)!r}"))
        if found["schema"] is None:
            problems.append(("schema_name", "required (or give name as the volume's full "
                             "name, catalog.schema.volume)"))
        elif found["catalog"] is None:
            problems.append(("catalog_name", "required (or give schema_name as the schema's "
                             "full name, catalog.schema, or name as catalog.schema.volume)"))
        return problems, (found["catalog"], found["schema"], volume)


class VolumeProvider(WorkspaceProvider):
    args_model = VolumeModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(
        {"name", "catalog_name", "schema_name", "volume_type", "storage_location"}
    )
    kept_when_left_out = KEPT_WHEN_LEFT_OUT

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = VolumeModel.model_validate(inputs)
        problems, _levels = args.levels()
        if args.volume_type == "EXTERNAL" and args.storage_location is None:
            problems.append(("storage_location", "required for an EXTERNAL volume: a URL "
                             "under an external location"))
        if args.volume_type == "MANAGED" and args.storage_location is not None:
            problems.append(("storage_location", "not taken by a MANAGED volume: the service "
                             "places its files (declare volume_type: EXTERNAL to give one)"))
        return problems

    def spec(self, args: VolumeModel) -> Spec:
        problems, (catalog, schema, volume) = args.levels()
        if problems:
            raise ValueError("; ".join(f"{path}: {reason}" for path, reason in problems))
        spec = args.model_dump(mode="json", exclude_none=True)
        return {
            **spec,
            "name": f"{catalog}.{schema}.{volume}",
            "catalog_name": catalog,
            "schema_name": f"{catalog}.{schema}",
        }

    def must_delete_first(self, changed: list[str]) -> bool:
        # The same full name: the new volume can only be made once the old one is gone.
        return "name" not in changed

    def create_object(self, client: WorkspaceClient, args: VolumeModel, spec: Spec):
        full_name = spec["name"]
        catalog, schema, volume = full_name.split(".")
        body = {"catalog_name": catalog, "schema_name": schema, "name": volume}
        body.update({key: spec[key] for key in CREATE_FIELDS if key in spec})
        made = created_or_left_over("volume", full_name, lambda: VolumesApi(client).create(body),
                                    lambda: self._left_over(client, spec))
        found = converged(VolumesApi(client), full_name, made, spec, UPDATE_FIELDS)
        return full_name, self._spec_of(found, spec), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = VolumesApi(client).get(id_)
        return self._spec_of(found, self._recorded_spec(recorded)), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec):
        area = VolumesApi(client)
        found = converged(area, id_, area.get(id_), spec, UPDATE_FIELDS,
                          recorded=self._recorded_spec(recorded))
        return self._spec_of(found, spec), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        VolumesApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _left_over(client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The volume of the declared full name, if an interrupted create of this resource
        made it: made by the stack's principal, as the create body declares."""
        try:
            found = VolumesApi(client).get(spec["name"])
        except WorkspaceError:
            return None
        if not made_by_caller(client, found) or not holds_as_made(found, spec, CREATE_FIELDS):
            return None
        return found

    @staticmethod
    def _spec_of(found: Mapping[str, Any], declared: Mapping[str, Any]) -> Spec:
        catalog = str(found.get("catalog_name", "")).lower()
        schema = str(found.get("schema_name", "")).lower()
        name = str(found.get("name", "")).lower()
        spec: Spec = {
            "name": f"{catalog}.{schema}.{name}",
            "catalog_name": catalog,
            "schema_name": f"{catalog}.{schema}",
            "volume_type": found.get("volume_type"),
        }
        shown = {
            "comment": found.get("comment"),
            "owner": observed_owner(found, declared.get("owner")),
        }
        if found.get("volume_type") == "EXTERNAL":
            # A managed volume's location is the service's choice: never a setting.
            shown["storage_location"] = observed_url(found.get("storage_location"))
        spec.update({key: value for key, value in shown.items() if value not in (None, "")})
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "full_name": found.get("full_name"),
            "volume_id": found.get("volume_id"),
            "metastore_id": found.get("metastore_id"),
        }


KIND = declare(
    name="Volume",
    provider=VolumeProvider,
    outputs={"full_name": str, "volume_id": str, "metastore_id": str},
    config_key="volumes",
    names={
        "catalog_name": NameReference("catalog_name", ("catalogs",)),
        "schema_name": NameReference("schema_name", ("schemas",), within=("catalog_name",)),
        "owner": NameReference("owner", PRINCIPALS),
    },
    named_as=("catalog_name", "schema_name", "name"),
    names_fold_case=True,
    references={
        "catalog": Reference(target_key="catalogs", field="catalog_name"),
        "schema": Reference(target_key="schemas", field="schema_name"),
    },
    # An EXTERNAL volume's storage_location lies under an external location, which the
    # service neither makes it without nor deletes while it is there.
    after=("externalLocations",),
    doc="docs/volume.md",
    summary="a Unity Catalog volume, MANAGED or EXTERNAL: comment and owner in place",
    import_id="full name, catalog.schema.volume",
    stack_output=("volumes", lambda resource: resource.id),
    inventory=lambda client: ((name, name) for name in volume_full_names(client)),
    drill=appended_to("comment"),
)
