"""MetastoreAssignment: a metastore assigned to a workspace, with its default catalog.

`workspace_id` names the workspace (another replaces the assignment); `metastore_id` (a
`metastores` item of the stack, in place, or a metastore's id) and `default_catalog_name`
(`hive_metastore` unless declared) change in place. Assigning replaces whatever the
workspace was assigned to before, as the service does; delete unassigns it, leaving the
workspace with no metastore. The id is the workspace id.

The workspace-level API reads only the assignment of the workspace the stack signs in to
(`current-metastore-assignment`): that one is read back, so a refresh sees it changed or
gone. Another workspace's has no read there (only the account-level API has one), so its
recorded state stands until the stack changes it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.client import NotFound
from providers.core import import_ids
from providers.core.ids import Int64Id
from providers.core.kind import Adoption, DrillChange, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.validators import not_blank
from providers.unity_catalog.metastores_api import MetastoresApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

DEFAULT_CATALOG = "hive_metastore"
SIGNED_IN_KEY = "signed_in_workspace"


class MetastoreAssignmentModel(BaseModel):
    """A metastore's assignment to a workspace."""

    model_config = ConfigDict(extra="forbid")

    # A string of digits as the engine passes it exactly (a number past 2**53 would not be).
    workspace_id: Int64Id
    metastore_id: Annotated[str, AfterValidator(not_blank)]
    default_catalog_name: Annotated[str, AfterValidator(not_blank)] = DEFAULT_CATALOG


class MetastoreAssignmentProvider(WorkspaceProvider):
    args_model = MetastoreAssignmentModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"workspace_id"})
    computed_keys: ClassVar[frozenset[str]] = frozenset({SIGNED_IN_KEY})

    def create_object(self, client: WorkspaceClient, args: MetastoreAssignmentModel,
                      spec: Spec):
        # The service's PUT replaces any assignment: repeating it after a lost answer is safe.
        workspace_id = int(args.workspace_id)
        MetastoresApi(client).assign(workspace_id, args.metastore_id, args.default_catalog_name)
        return (args.workspace_id, *self._shown(client, workspace_id, spec))

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        spec = self._recorded_spec(recorded)
        if not spec:  # an import: only the signed-in workspace's can be read
            spec = {"workspace_id": id_}
        return self._observed(client, int(id_), spec, recorded.get(SIGNED_IN_KEY))

    def update_object(self, client, id_, recorded, args: MetastoreAssignmentModel, spec):
        workspace_id = int(args.workspace_id)
        MetastoresApi(client).update_assignment(workspace_id, {
            "metastore_id": args.metastore_id,
            "default_catalog_name": args.default_catalog_name})
        return self._shown(client, workspace_id, spec)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        MetastoresApi(client).unassign(int(id_), str(recorded["metastore_id"]))

    # --- helpers ------------------------------------------------------------------
    @classmethod
    def _shown(cls, client: WorkspaceClient, workspace_id: int, spec: Mapping[str, Any]
               ) -> tuple[Spec, dict[str, Any]]:
        """What a create or an update that just assigned the workspace observes: never gone."""
        found = cls._observed(client, workspace_id, spec)
        if found is None:
            raise RuntimeError(f"the assignment of workspace {workspace_id} was made, and then "
                               "read back as gone: run `pulumi up` again")
        return found

    @staticmethod
    def _observed(client: WorkspaceClient, workspace_id: int, spec: Mapping[str, Any],
                  signed_in: Any = None) -> tuple[Spec, dict[str, Any]] | None:
        """(spec, computed) as the service shows the assignment where it can (the signed-in
        workspace's), else as declared; None where the signed-in workspace's is gone."""
        try:
            current = MetastoresApi(client).current_assignment()
        except NotFound:
            if signed_in:
                return None  # this workspace has no metastore any more
            current = {}
        if _workspace_of(current) != workspace_id:
            if signed_in:
                return None  # the signed-in workspace's, and now another's: cannot be
            return dict(spec), {SIGNED_IN_KEY: False}
        observed: Spec = {"workspace_id": str(workspace_id),
                          "metastore_id": str(current.get("metastore_id") or ""),
                          "default_catalog_name": str(current.get("default_catalog_name")
                                                      or DEFAULT_CATALOG)}
        return observed, {SIGNED_IN_KEY: True}


def _workspace_of(assignment: Mapping[str, Any]) -> int | None:
    try:
        return int(assignment["workspace_id"])
    except (KeyError, TypeError, ValueError):
        return None


def _signed_in_assignment(client: WorkspaceClient) -> list[tuple[str, str]]:
    """The assignment of the workspace the client signs in to, the only one this API lists."""
    try:
        current = MetastoresApi(client).current_assignment()
    except NotFound:
        return []
    workspace_id = _workspace_of(current)
    return [] if workspace_id is None else [(str(workspace_id), str(workspace_id))]


KIND = declare(
    name="MetastoreAssignment",
    provider=MetastoreAssignmentProvider,
    outputs={SIGNED_IN_KEY: bool},
    config_key="metastoreAssignments",
    identity=("workspace_id",),
    references={
        "metastore_id": Reference(target_key="metastores", field="metastore_id",
                                  in_place=True),
    },
    doc="docs/metastore-assignment.md",
    summary="a metastore assigned to a workspace with its default catalog: both in place; "
    "delete unassigns",
    import_id="workspace id",
    import_id_rule=import_ids.numeric,
    stack_output=("metastore_assignments", lambda resource: resource.id),
    inventory=_signed_in_assignment,
    adoption=Adoption(),
    drill=DrillChange(lambda item: {**item, "default_catalog_name": "drill_default"}),
)
