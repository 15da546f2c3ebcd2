"""MetastoreDataAccess: the storage credential a metastore reaches its root storage with
(its `storage_root_credential_id`).

The service once kept a metastore's data access as objects of their own (a data access
configuration per metastore); it now keeps one root credential on the metastore itself, a
storage credential named by id, set by the metastore's update. It stays a kind of its own,
not a field of Metastore, because of the order the service needs: a storage credential is
made in the metastore a workspace is assigned to, so the credential comes after the
metastore and its assignment, and the metastore's root credential after the credential.
docs/metastore-data-access.md says more.

`metastore_id` (a `metastores` item of the stack, in place) and `storage_root_credential_id`
(a `storageCredentials` item, in place: its credential id; or a credential's id) are its
settings: another metastore replaces it, another credential changes it in place. The id is
the metastore's id. The service has no call that takes a root credential away: delete
leaves the metastore's as it is (the metastore's own delete takes it along).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.core.kind import DrillChange, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.validators import not_blank
from providers.unity_catalog.metastores_api import MetastoresApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# The storage credential the after-write drill moves a root to: a `storageCredentials` item
# name of the drilled stack.
DRILL_CREDENTIAL = "drill-root-credential"
NotBlank = Annotated[str, AfterValidator(not_blank)]


class MetastoreDataAccessModel(BaseModel):
    """A metastore's root credential."""

    model_config = ConfigDict(extra="forbid")

    metastore_id: NotBlank
    storage_root_credential_id: NotBlank


class MetastoreDataAccessProvider(WorkspaceProvider):
    args_model = MetastoreDataAccessModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"metastore_id"})

    def create_object(self, client: WorkspaceClient, args: MetastoreDataAccessModel,
                      spec: Spec):
        found = self._converged(client, args)
        return args.metastore_id, self._spec_of(found), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = MetastoresApi(client).get(id_)
        if not found.get("storage_root_credential_id"):
            return None
        return self._spec_of(found), self._computed(found)

    def update_object(self, client, id_, recorded, args: MetastoreDataAccessModel, spec):
        found = self._converged(client, args)
        return self._spec_of(found), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        """Nothing to call: the service keeps a metastore's root credential until the
        metastore is deleted."""

    @staticmethod
    def _converged(client: WorkspaceClient, args: MetastoreDataAccessModel
                   ) -> Mapping[str, Any]:
        area = MetastoresApi(client)
        found = area.get(args.metastore_id)
        if found.get("storage_root_credential_id") != args.storage_root_credential_id:
            found = area.update(args.metastore_id, {
                "storage_root_credential_id": args.storage_root_credential_id})
        return found

    @staticmethod
    def _spec_of(found: Mapping[str, Any]) -> Spec:
        return {"metastore_id": str(found.get("metastore_id")),
                "storage_root_credential_id": str(found.get("storage_root_credential_id"))}

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {"storage_root_credential_name": found.get("storage_root_credential_name")}


KIND = declare(
    name="MetastoreDataAccess",
    provider=MetastoreDataAccessProvider,
    outputs={"storage_root_credential_name": str},
    config_key="metastoreDataAccess",
    identity=("metastore_id",),
    references={
        "metastore_id": Reference(target_key="metastores", field="metastore_id",
                                  in_place=True),
        "storage_root_credential_id": Reference(
            target_key="storageCredentials", field="storage_root_credential_id",
            in_place=True, output="credential_id"),
    },
    # The credential is made in the metastore the workspace is assigned to.
    after=("metastoreAssignments",),
    doc="docs/metastore-data-access.md",
    summary="a metastore's root credential (a storage credential): changed in place; "
    "delete leaves it",
    import_id="metastore id",
    stack_output=("metastore_data_access", lambda resource: resource.id),
    # Named by its identity, the metastore's id (the drills' judge matches items by it).
    inventory=lambda client: (
        (str(m["metastore_id"]), str(m["metastore_id"]))
        for m in MetastoresApi(client).list() if m.get("storage_root_credential_id")
    ),
    # Another credential's id: an update in place (the drill's workspace holds it).
    drill=DrillChange(lambda item: {**item, "storage_root_credential_id": DRILL_CREDENTIAL}),
)
