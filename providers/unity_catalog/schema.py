"""Schema: a Unity Catalog schema in a catalog, its comment, properties and owner.

The arguments are the public API's create and update bodies. `comment`, `properties` and
`owner` change in place (the owner last, in a call of its own); a new `name`,
`catalog_name` or `storage_root` replaces the schema. `name` may be the schema's full name
`catalog.schema`, `catalog_name` then left out: a stack's config names each item by its
`name`, so two catalogs' schemas of one name are told apart by their full names. The id,
and the recorded `name`, is the full name, folded to lower case as the service stores it.

`force_destroy` is this kind's own, never sent: a delete of a schema that holds volumes
(or tables, functions, models) is refused unless it is true. A create answered in a way
that leaves open whether the schema was made, or answered "already exists", adopts a schema
of that name that the stack's principal made as declared and that holds nothing yet (what
an interrupted run leaves; the `default` schema a catalog of the stack comes with, too).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, StrictBool, field_validator

from providers.client import WorkspaceError
from providers.core.kind import PRINCIPALS, NameReference, Reference, appended_to, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.unity_catalog.schemas_api import SchemasApi
from providers.unity_catalog.uc_names import (
    INFORMATION_SCHEMA,
    KEPT_WHEN_LEFT_OUT,
    Name,
    NotBlank,
    StorageUrl,
    converged,
    created_or_left_over,
    dotted_name,
    holds_as_made,
    is_not_empty,
    made_by_caller,
    needs_force_destroy,
    observed_owner,
    observed_url,
    schema_full_names,
    text_map,
)
from providers.unity_catalog.volumes_api import VolumesApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# What the create body takes beside the names; the owner is set by an update after it.
CREATE_FIELDS = ("comment", "properties", "storage_root")
UPDATE_FIELDS = ("comment", "properties")


class SchemaModel(BaseModel):
    """A Unity Catalog schema."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, dotted_name((1, 2))]
    catalog_name: Name | None = None
    comment: str | None = None
    properties: dict[str, str] | None = None
    storage_root: StorageUrl | None = None
    owner: NotBlank | None = None
    force_destroy: StrictBool = False

    @field_validator("name")
    @classmethod
    def _not_the_services(cls, value: str) -> str:
        if value.rsplit(".", 1)[-1] == INFORMATION_SCHEMA:
            raise ValueError(
                f"{INFORMATION_SCHEMA!r} is the schema the service keeps in every catalog; it "
                "is neither made nor changed by a stack"
            )
        return value

    @field_validator("properties")
    @classmethod
    def _empty_is_none(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        return text_map(value)

    @field_validator("comment")
    @classmethod
    def _empty_comment(cls, value: str | None) -> str | None:
        return value or None

    def levels(self) -> tuple[str | None, str]:
        """(catalog, schema): the catalog from the full name, else `catalog_name`."""
        parts = self.name.split(".")
        if len(parts) == 2:
            return parts[0], parts[1]
        return self.catalog_name, parts[0]


class SchemaProvider(WorkspaceProvider):
    args_model = SchemaModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"name", "catalog_name", "storage_root"})
    kept_when_left_out = KEPT_WHEN_LEFT_OUT

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = SchemaModel.model_validate(inputs)
        catalog, _schema = args.levels()
        if catalog is None:
            return [("catalog_name", "required (or give name as the schema's full name, "
                     "catalog.schema)")]
        if args.catalog_name is not None and args.catalog_name != catalog:
            return [("catalog_name", f"{args.catalog_name!r} is not the catalog of name "
                     f"{args.name!r}")]
        return []

    def spec(self, args: SchemaModel) -> Spec:
        catalog, schema = args.levels()
        if catalog is None:
            raise ValueError("catalog_name: required (or give name as catalog.schema)")
        spec = args.model_dump(mode="json", exclude_none=True)
        return {**spec, "name": f"{catalog}.{schema}", "catalog_name": catalog}

    def must_delete_first(self, changed: list[str]) -> bool:
        # The same full name: the new schema can only be made once the old one is gone.
        return "name" not in changed

    def create_object(self, client: WorkspaceClient, args: SchemaModel, spec: Spec):
        full_name = spec["name"]
        catalog, schema = full_name.split(".")
        body = {"name": schema, "catalog_name": catalog}
        body.update({key: spec[key] for key in CREATE_FIELDS if key in spec})
        made = created_or_left_over("schema", full_name, lambda: SchemasApi(client).create(body),
                                    lambda: self._left_over(client, spec))
        found = converged(SchemasApi(client), full_name, made, spec, UPDATE_FIELDS)
        return full_name, self._spec_of(found, spec), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = SchemasApi(client).get(id_)
        return self._spec_of(found, self._recorded_spec(recorded)), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec):
        area = SchemasApi(client)
        found = converged(area, id_, area.get(id_), spec, UPDATE_FIELDS,
                          recorded=self._recorded_spec(recorded))
        return self._spec_of(found, spec), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        force = bool(recorded.get("force_destroy"))
        try:
            SchemasApi(client).delete(id_, force=force)
        except WorkspaceError as error:
            if force or not is_not_empty(error):
                raise
            catalog, schema = id_.lower().split(".", 1)
            volumes = sorted(str(v.get("name")) for v in VolumesApi(client).list(catalog, schema))
            holds = f"volume(s) {', '.join(volumes)}" if volumes else "tables or other objects"
            needs_force_destroy(error, "schema", id_, holds)
            raise

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _left_over(client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The schema of the declared full name, if an interrupted create of this resource
        made it: made by the stack's principal, as the create body declares, no volumes."""
        try:
            found = SchemasApi(client).get(spec["name"])
        except WorkspaceError:
            return None
        if not made_by_caller(client, found) or not holds_as_made(found, spec, CREATE_FIELDS):
            return None
        catalog, schema = spec["name"].split(".")
        if VolumesApi(client).list(catalog, schema):
            return None
        return found

    @staticmethod
    def _spec_of(found: Mapping[str, Any], declared: Mapping[str, Any]) -> Spec:
        catalog = str(found.get("catalog_name", "")).lower()
        name = str(found.get("name", "")).lower()
        spec: Spec = {"name": f"{catalog}.{name}", "catalog_name": catalog}
        shown = {
            "comment": found.get("comment"),
            "properties": found.get("properties"),
            "storage_root": observed_url(found.get("storage_root")),
            "owner": observed_owner(found, declared.get("owner")),
        }
        spec.update({key: value for key, value in shown.items() if value not in (None, "", {})})
        spec["force_destroy"] = bool(declared.get("force_destroy", False))
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "full_name": found.get("full_name"),
            "schema_id": found.get("schema_id"),
            "metastore_id": found.get("metastore_id"),
            "storage_location": found.get("storage_location"),
        }


KIND = declare(
    name="Schema",
    provider=SchemaProvider,
    outputs={"full_name": str, "schema_id": str, "metastore_id": str, "storage_location": str},
    config_key="schemas",
    names={
        "catalog_name": NameReference("catalog_name", ("catalogs",)),
        "owner": NameReference("owner", PRINCIPALS),
    },
    named_as=("catalog_name", "name"),
    names_fold_case=True,
    references={"catalog": Reference(target_key="catalogs", field="catalog_name")},
    # A storage_root lies under an external location: made after it, deleted before it.
    after=("externalLocations",),
    doc="docs/schema.md",
    summary="a Unity Catalog schema in a catalog: comment, properties, owner; delete of a "
    "non-empty one only with force_destroy",
    import_id="full name, catalog.schema",
    stack_output=("schemas", lambda resource: resource.id),
    defaults={"force_destroy": False},
    inventory=lambda client: ((name, name) for name in schema_full_names(client)),
    drill=appended_to("comment"),
)
