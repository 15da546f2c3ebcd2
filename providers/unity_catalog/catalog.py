"""Catalog: a Unity Catalog catalog, its comment, properties, owner and isolation mode.

The arguments are the public API's create and update bodies. `comment`, `properties`,
`options` (a foreign catalog's), `owner`, `isolation_mode` and
`enable_predictive_optimization` change in place (the owner last, in a call of its own); a
new `name`, `storage_root`, `connection_name`, `provider_name` or `share_name` replaces the
catalog (docs/catalog.md says why a rename is not made in place). A foreign catalog's
`connection_name` may name a `connections` item of the stack (in place). The id is
the catalog's name, folded to lower case as the service stores it.

`force_destroy` is this kind's own, never sent: a delete of a catalog that holds schemas
(an empty `default` schema, which every new catalog comes with, aside) is refused unless it
is true. A create answered in a way that leaves open whether the catalog was made, or
answered "already exists", adopts a catalog of that name that the stack's principal made
as declared and that holds nothing yet: what an interrupted run leaves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, StrictBool, field_validator

from providers.client import WorkspaceError, is_gone
from providers.core import import_ids
from providers.core.kind import (
    PRINCIPALS,
    Adoption,
    DrillChange,
    NameReference,
    always,
    appended_to,
    declare,
)
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.schemas_api import SchemasApi
from providers.unity_catalog.uc_names import (
    DEFAULT_SCHEMA,
    INFORMATION_SCHEMA,
    KEPT_WHEN_LEFT_OUT,
    Name,
    NotBlank,
    StorageUrl,
    catalog_names,
    converged,
    created_or_left_over,
    holds_as_made,
    is_not_empty,
    made_by_caller,
    needs_force_destroy,
    observed_owner,
    observed_url,
    text_map,
)

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# What the create body takes; the rest is set by an update after it.
CREATE_FIELDS = (
    "name",
    "comment",
    "properties",
    "storage_root",
    "options",
    "connection_name",
    "provider_name",
    "share_name",
)
# What an update changes in place (the owner in a call of its own, last). The create body
# takes no predictive optimization: the update after it sets that.
UPDATE_FIELDS = (
    "comment",
    "properties",
    "options",
    "isolation_mode",
    "enable_predictive_optimization",
)
SHOWN = (*CREATE_FIELDS, "owner", "isolation_mode", "enable_predictive_optimization")


class CatalogModel(BaseModel):
    """A Unity Catalog catalog."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    comment: str | None = None
    properties: dict[str, str] | None = None
    storage_root: StorageUrl | None = None
    owner: NotBlank | None = None
    isolation_mode: Literal["OPEN", "ISOLATED"] | None = None
    enable_predictive_optimization: Literal["ENABLE", "DISABLE", "INHERIT"] | None = None
    options: dict[str, str] | None = None
    connection_name: NotBlank | None = None
    provider_name: NotBlank | None = None
    share_name: NotBlank | None = None
    force_destroy: StrictBool = False

    @field_validator("properties", "options")
    @classmethod
    def _empty_is_none(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        return text_map(value)

    @field_validator("comment")
    @classmethod
    def _empty_comment(cls, value: str | None) -> str | None:
        return value or None


class CatalogProvider(WorkspaceProvider):
    args_model = CatalogModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(
        {"name", "storage_root", "connection_name", "provider_name", "share_name"}
    )
    kept_when_left_out = KEPT_WHEN_LEFT_OUT

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = CatalogModel.model_validate(inputs)
        found = []
        shared = args.provider_name is not None or args.share_name is not None
        if args.provider_name is not None and args.share_name is None:
            found.append(("share_name", "required with provider_name: a shared catalog "
                          "names its provider and the share"))
        if args.share_name is not None and args.provider_name is None:
            found.append(("provider_name", "required with share_name: a shared catalog "
                          "names its provider and the share"))
        if args.connection_name is not None and shared:
            found.append(("connection_name", "a catalog is foreign (connection_name) or "
                          "shared (provider_name, share_name), not both"))
        if args.storage_root is not None and (args.connection_name is not None or shared):
            found.append(("storage_root", "only a managed catalog has a storage root; leave "
                          "it out of a foreign or shared catalog"))
        if args.options is not None and args.connection_name is None:
            found.append(("options", "only a foreign catalog (connection_name) takes options"))
        return found

    def spec(self, args: CatalogModel) -> Spec:
        return args.model_dump(mode="json", exclude_none=True)

    def must_delete_first(self, changed: list[str]) -> bool:
        # The same name: the new catalog can only be made once the old one is gone.
        return "name" not in changed

    def create_object(self, client: WorkspaceClient, args: CatalogModel, spec: Spec):
        body = {key: spec[key] for key in CREATE_FIELDS if key in spec}
        name = spec["name"]
        made = created_or_left_over("catalog", name, lambda: CatalogsApi(client).create(body),
                                    lambda: self._left_over(client, spec))
        found = converged(CatalogsApi(client), name, made, spec, UPDATE_FIELDS, _shown)
        return name, self._spec_of(found, spec), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = CatalogsApi(client).get(id_)
        declared = self._recorded_spec(recorded)
        return self._spec_of(found, declared), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec):
        area = CatalogsApi(client)
        found = converged(area, id_, area.get(id_), spec, UPDATE_FIELDS, _shown,
                          recorded=self._recorded_spec(recorded))
        return self._spec_of(found, spec), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        if recorded.get("force_destroy"):
            CatalogsApi(client).delete(id_, force=True)
            return
        try:
            CatalogsApi(client).delete(id_)
        except WorkspaceError as error:
            if not is_not_empty(error):
                raise
            schemas = _own_schemas(client, id_)
            if schemas == [DEFAULT_SCHEMA]:
                # Only the schema every new catalog comes with: deleted when it holds nothing
                # (the service refuses, without force, one that holds anything).
                try:
                    _delete_default_schema(client, id_)
                    CatalogsApi(client).delete(id_)
                    return
                except WorkspaceError as inner:
                    if not is_not_empty(inner):
                        raise
            holds = f"schema(s) {', '.join(schemas)}" if schemas else "objects"
            needs_force_destroy(error, "catalog", id_, holds)
            raise

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _left_over(client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The catalog of the declared name, if an interrupted create of this resource made
        it: made by the stack's principal, as the create body declares, holding nothing."""
        try:
            found = CatalogsApi(client).get(spec["name"])
        except WorkspaceError:
            return None
        if not made_by_caller(client, found) or not holds_as_made(found, spec, CREATE_FIELDS):
            return None
        if _own_schemas(client, spec["name"]) not in ([], [DEFAULT_SCHEMA]):
            return None
        return found

    @staticmethod
    def _spec_of(found: Mapping[str, Any], declared: Mapping[str, Any]) -> Spec:
        spec: Spec = {"name": str(found.get("name", "")).lower()}
        for key in SHOWN:
            value = _shown(found, key)
            if key == "owner":
                value = observed_owner(found, declared.get("owner"))
            if key != "name" and value not in (None, "", {}):
                spec[key] = value
        spec["force_destroy"] = bool(declared.get("force_destroy", False))
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "full_name": found.get("full_name") or found.get("name"),
            "metastore_id": found.get("metastore_id"),
            "catalog_type": found.get("catalog_type"),
            "storage_location": found.get("storage_location"),
        }


def _shown(found: Mapping[str, Any], key: str) -> Any:
    value = found.get(key)
    return observed_url(value) if key == "storage_root" else value


def _own_schemas(client: WorkspaceClient, catalog: str) -> list[str]:
    """The catalog's schemas but `information_schema` (the service's own), sorted."""
    return sorted(
        str(s.get("name"))
        for s in SchemasApi(client).list(catalog)
        if s.get("name") != INFORMATION_SCHEMA
    )


def _delete_default_schema(client: WorkspaceClient, catalog: str) -> None:
    """Deletes the catalog's `default` schema; already gone counts as done. A delete whose
    answer was lost is repeated and finds it gone: that not-found must not reach the
    lifecycle's delete, which would take it for the catalog's and leave the catalog."""
    try:
        SchemasApi(client).delete(f"{catalog}.{DEFAULT_SCHEMA}")
    except WorkspaceError as error:
        if not is_gone(error):
            raise


def _drill_change(catalog: dict[str, Any]) -> dict[str, Any]:
    """Its comment and a property: an update in place."""
    catalog = appended_to("comment").changed(catalog)
    catalog["properties"] = {**catalog.get("properties", {}), "drill": "updated"}
    return catalog


KIND = declare(
    name="Catalog",
    provider=CatalogProvider,
    outputs={"full_name": str, "metastore_id": str, "catalog_type": str, "storage_location": str},
    config_key="catalogs",
    names={
        "owner": NameReference("owner", PRINCIPALS),
        "connection_name": NameReference("connection_name", ("connections",)),
    },
    named_as=("name",),
    names_fold_case=True,
    identity=("name",),
    # A storage_root lies under an external location: made after it, deleted before it. A
    # catalog is made in the metastore the workspace is assigned to.
    after=("externalLocations", "metastoreAssignments"),
    doc="docs/catalog.md",
    summary="a Unity Catalog catalog: comment, properties, owner, isolation mode; "
    "delete of a non-empty one only with force_destroy",
    import_id="catalog name",
    import_id_rule=import_ids.one_segment,
    stack_output=("catalogs", lambda resource: resource.id),
    defaults={"force_destroy": False},
    inventory=lambda client: ((name, name) for name in catalog_names(client)),
    # An adopted catalog leaves its isolation mode to a CatalogBinding (which adoption
    # writes for every catalog that is isolated or bound).
    adoption=Adoption(leaves_out={"isolation_mode": always}),
    drill=DrillChange(_drill_change),
)
