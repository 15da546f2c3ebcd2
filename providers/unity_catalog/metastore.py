"""Metastore: a Unity Catalog metastore, through the workspace-level API (docs/metastore.md
says why that level).

The arguments are the API's create and update bodies: `name`, `region` and `storage_root`
are the create's (a new region or storage root replaces the metastore); `name` (renamed in
place), `owner` (last, in a call of its own), the delta sharing settings and
`external_access_enabled` change in place. The metastore's root credential is a
MetastoreDataAccess of its own: the credential can only be made once the metastore is
assigned to a workspace. The id is the metastore's id.

`force_destroy` is this kind's own, never sent: a metastore that holds catalogs is deleted
only when it is true (the service then deletes the catalogs with it). A create answered in
a way that leaves open whether the metastore was made adopts one of the declared name,
region and storage root that the stack's principal made: what an interrupted run leaves.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt

from providers.client import WorkspaceError
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.validators import not_blank
from providers.unity_catalog.metastores_api import MetastoresApi
from providers.unity_catalog.uc_names import (
    KEPT_WHEN_LEFT_OUT,
    StorageUrl,
    is_not_empty,
    made_by_caller,
    observed_owner,
    observed_url,
)

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

CREATE_FIELDS = ("name", "region", "storage_root", "external_access_enabled")
UPDATE_FIELDS = (
    "delta_sharing_scope",
    "delta_sharing_recipient_token_lifetime_in_seconds",
    "delta_sharing_organization_name",
    "external_access_enabled",
)
SHOWN = (*CREATE_FIELDS, *UPDATE_FIELDS, "owner")
EXTERNAL_SHARING = "INTERNAL_AND_EXTERNAL"


class MetastoreModel(BaseModel):
    """A Unity Catalog metastore."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, AfterValidator(not_blank)]
    region: Annotated[str, AfterValidator(not_blank)] | None = None
    storage_root: StorageUrl | None = None
    owner: Annotated[str, AfterValidator(not_blank)] | None = None
    delta_sharing_scope: Literal["INTERNAL", "INTERNAL_AND_EXTERNAL"] | None = None
    delta_sharing_recipient_token_lifetime_in_seconds: Annotated[
        StrictInt, Field(ge=0)] | None = None
    delta_sharing_organization_name: Annotated[str, AfterValidator(not_blank)] | None = None
    external_access_enabled: StrictBool | None = None
    force_destroy: StrictBool = False


class MetastoreProvider(WorkspaceProvider):
    args_model = MetastoreModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"region", "storage_root"})
    kept_when_left_out = KEPT_WHEN_LEFT_OUT | frozenset(UPDATE_FIELDS)

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = MetastoreModel.model_validate(inputs)
        if (args.delta_sharing_scope == EXTERNAL_SHARING
                and args.delta_sharing_recipient_token_lifetime_in_seconds is None):
            return [("delta_sharing_recipient_token_lifetime_in_seconds",
                     "required with delta_sharing_scope INTERNAL_AND_EXTERNAL: how long a "
                     "recipient's token lasts, in seconds (0: it never expires)")]
        return []

    def create_object(self, client: WorkspaceClient, args: MetastoreModel, spec: Spec):
        area = MetastoresApi(client)
        body = {key: spec[key] for key in CREATE_FIELDS if key in spec}
        made, _ = create_or_adopt(lambda: area.create(body),
                                  lambda: self._left_over(client, spec))
        metastore_id = str(made["metastore_id"])
        found = self._converged(area, metastore_id, made, spec)
        return metastore_id, self._spec_of(found, spec), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = MetastoresApi(client).get(id_)
        return self._spec_of(found, self._recorded_spec(recorded)), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec):
        area = MetastoresApi(client)
        found = self._converged(area, id_, area.get(id_), spec)
        return self._spec_of(found, spec), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        if recorded.get("force_destroy"):
            MetastoresApi(client).delete(id_, force=True)
            return
        try:
            MetastoresApi(client).delete(id_)
        except WorkspaceError as error:
            if is_not_empty(error):
                error.message += (
                    f" (metastore {id_!r} holds catalogs: set force_destroy: true on the "
                    "Metastore and run `pulumi up` before deleting it to delete them with it, "
                    "or delete the catalogs first)")
                error.args = (str(error),)
            raise

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _converged(area: MetastoresApi, metastore_id: str, found: Mapping[str, Any],
                   spec: Spec) -> Mapping[str, Any]:
        """Sends what the spec declares and the metastore lacks (a new name, the sharing
        settings), then the owner; the metastore as then shown."""
        changes = {key: spec[key] for key in UPDATE_FIELDS
                   if key in spec and found.get(key) != spec[key]}
        if found.get("name") != spec["name"]:
            changes["new_name"] = spec["name"]
        if changes:
            found = area.update(metastore_id, changes) or area.get(metastore_id)
        owner = spec.get("owner")
        if owner is not None and observed_owner(found, owner) != owner:
            found = area.update(metastore_id, {"owner": owner}) or area.get(metastore_id)
        return found

    @staticmethod
    def _left_over(client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The metastore an interrupted create of this resource made: the declared name,
        region and storage root, made by the stack's principal."""
        for found in MetastoresApi(client).list():
            if (found.get("name") == spec["name"] and made_by_caller(client, found)
                    and all(_shown(found, key) == spec[key]
                            for key in ("region", "storage_root") if key in spec)):
                return found
        return None

    @staticmethod
    def _spec_of(found: Mapping[str, Any], declared: Mapping[str, Any]) -> Spec:
        spec: Spec = {}
        for key in SHOWN:
            value = (observed_owner(found, declared.get("owner")) if key == "owner"
                     else _shown(found, key))
            if value not in (None, ""):
                spec[key] = value
        spec["force_destroy"] = bool(declared.get("force_destroy", False))
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "metastore_id": found.get("metastore_id"),
            "global_metastore_id": found.get("global_metastore_id"),
            "cloud": found.get("cloud"),
        }


def _shown(found: Mapping[str, Any], key: str) -> Any:
    value = found.get(key)
    return observed_url(value) if key == "storage_root" else value


def _drill_change(metastore: dict[str, Any]) -> dict[str, Any]:
    """A recipient token's lifetime one hour longer: an update in place."""
    lifetime = metastore.get("delta_sharing_recipient_token_lifetime_in_seconds") or 0
    return {**metastore, "delta_sharing_recipient_token_lifetime_in_seconds": lifetime + 3600}


KIND = declare(
    name="Metastore",
    provider=MetastoreProvider,
    outputs={"metastore_id": str, "global_metastore_id": str, "cloud": str},
    config_key="metastores",
    identity=("name",),
    doc="docs/metastore.md",
    summary="a Unity Catalog metastore (workspace-level API): name, owner and delta sharing "
    "in place; delete of one holding catalogs only with force_destroy",
    import_id="metastore id",
    stack_output=("metastores", lambda resource: resource.id),
    defaults={"force_destroy": False},
    inventory=lambda client: (
        (str(m["metastore_id"]), str(m.get("name") or m["metastore_id"]))
        for m in MetastoresApi(client).list()
    ),
    drill=DrillChange(_drill_change),
)
