"""CatalogBinding: a catalog's isolation mode and the workspaces this stack binds to it.

The catalog itself is not created or deleted here. Create records the isolation mode it
found (`previous_isolation_mode`) and which declared workspaces were already bound
(`preexisting_bindings`). Update binds and unbinds only the difference; delete unbinds
only the workspaces this resource bound and restores the previous isolation mode. Bindings
of workspaces that are not declared are never touched.

Bindings take effect only while the catalog is ISOLATED.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from itertools import groupby
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from providers.client import NotFound
from providers.ids import Int64Id
from providers.kind import declare
from providers.lifecycle import Spec, WorkspaceProvider, undone_on_failure

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

CATALOG_NAME = re.compile(r"^[A-Za-z0-9_-]{1,255}$")
READ_WRITE: Final = "BINDING_TYPE_READ_WRITE"

BindingType = Literal["BINDING_TYPE_READ_WRITE", "BINDING_TYPE_READ_ONLY"]
# workspace id (digits) -> binding type
Bindings = dict[str, str]


class WorkspaceBindingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workspace_id: Int64Id
    binding_type: BindingType = READ_WRITE


class CatalogBindingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    catalog_name: str
    isolation_mode: Literal["ISOLATED", "OPEN"] = "ISOLATED"
    bindings: list[WorkspaceBindingModel] = []

    @field_validator("catalog_name")
    @classmethod
    def _catalog_identifier(cls, value: str) -> str:
        if not CATALOG_NAME.match(value):
            raise ValueError("must be 1 to 255 letters, digits, '_' or '-'")
        return value.lower()  # the service stores catalog names in lower case

    @field_validator("bindings")
    @classmethod
    def _one_binding_per_workspace(
        cls, value: list[WorkspaceBindingModel]
    ) -> list[WorkspaceBindingModel]:
        ids = [b.workspace_id for b in value]
        repeated = sorted({w for w in ids if ids.count(w) > 1}, key=int)
        if repeated:
            raise ValueError(f"lists workspace {', '.join(repeated)} more than once")
        return value


def bindings_spec(bindings: Mapping[str, str]) -> list[dict[str, str]]:
    return [{"workspace_id": w, "binding_type": bindings[w]} for w in sorted(bindings, key=int)]


def bindings_of(spec_list: Iterable[Mapping[str, Any]] | None) -> Bindings:
    return {str(b["workspace_id"]): b["binding_type"] for b in spec_list or []}


class CatalogBindingProvider(WorkspaceProvider):
    args_model = CatalogBindingModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"catalog_name"})

    def spec(self, args: CatalogBindingModel) -> Spec:
        return {
            "catalog_name": args.catalog_name,
            "isolation_mode": args.isolation_mode,
            "bindings": bindings_spec({b.workspace_id: b.binding_type for b in args.bindings}),
        }

    def create_object(self, client: WorkspaceClient, args: CatalogBindingModel, spec: Spec):
        name = args.catalog_name
        catalog = client.catalogs.get(name)  # an unknown catalog fails here
        live = self._live_bindings(client, name)
        desired = bindings_of(spec["bindings"])
        previous_mode = catalog.get("isolation_mode")
        computed = {
            "previous_isolation_mode": previous_mode,
            "preexisting_bindings": bindings_spec({w: t for w, t in live.items() if w in desired}),
        }
        record = {**computed, "bindings": spec["bindings"]}
        with undone_on_failure(lambda: self.delete_object(client, name, record)):
            self._converge(client, name, previous_mode, args.isolation_mode, live, desired, {}, {})
            observed = self._observed(client, name, desired)
        return name, observed, computed

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        declared = bindings_of(recorded["bindings"]) if "bindings" in recorded else None
        observed = self._observed(client, id_, declared)
        computed = self._computed(recorded)
        if declared is None:
            # Nothing recorded (import): every binding found is someone else's to keep.
            computed["preexisting_bindings"] = observed["bindings"]
        return observed, computed

    def update_object(self, client, id_, recorded, args, spec):
        desired = bindings_of(spec["bindings"])
        declared_before = bindings_of(recorded.get("bindings"))
        preexisting = bindings_of(recorded.get("preexisting_bindings"))
        mode_now = client.catalogs.get(id_).get("isolation_mode")
        live = self._live_bindings(client, id_)
        # A newly declared workspace that someone else had already bound stays theirs.
        for w, t in live.items():
            if w in desired and w not in declared_before:
                preexisting.setdefault(w, t)
        self._converge(
            client, id_, mode_now, args.isolation_mode, live, desired, preexisting, declared_before
        )
        computed = {
            "previous_isolation_mode": recorded.get("previous_isolation_mode"),
            "preexisting_bindings": bindings_spec(
                {w: t for w, t in preexisting.items() if w in desired}
            ),
        }
        return self._observed(client, id_, desired), computed

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        try:
            mode_now = client.catalogs.get(id_).get("isolation_mode")
            self._converge(
                client,
                id_,
                mode_now,
                recorded.get("previous_isolation_mode"),
                self._live_bindings(client, id_),
                desired={},
                preexisting=bindings_of(recorded.get("preexisting_bindings")),
                dropped=bindings_of(recorded.get("bindings")),
            )
        except NotFound:
            return

    # --- helpers ------------------------------------------------------------------
    def _live_bindings(self, client: WorkspaceClient, name: str) -> Bindings:
        return {
            str(b["workspace_id"]): b.get("binding_type", READ_WRITE)
            for b in client.catalogs.get_bindings(name)
        }

    def _converge(
        self,
        client: WorkspaceClient,
        name: str,
        mode_now: str | None,
        mode: str | None,
        live: Bindings,
        desired: Bindings,
        preexisting: Bindings,
        dropped: Bindings,
    ) -> None:
        """Sets the isolation mode (None: leaves it) and the bindings. Opens before
        unbinding and binds before isolating, so the catalog is never ISOLATED with only
        part of its bindings."""
        new_mode = mode if mode is not None and mode != mode_now else None
        if new_mode == "OPEN":
            client.catalogs.update_isolation(name, new_mode)
        self._apply(client, name, live, desired, preexisting, dropped)
        if new_mode is not None and new_mode != "OPEN":
            client.catalogs.update_isolation(name, new_mode)

    def _apply(
        self,
        client: WorkspaceClient,
        name: str,
        live: Bindings,
        desired: Bindings,
        preexisting: Bindings,
        dropped: Bindings,
    ) -> None:
        """Bind what `desired` lacks in `live`; of the workspaces in `dropped` but no longer
        desired, unbind those this resource bound and give preexisting ones back their
        original binding type."""
        bind = {w: t for w, t in desired.items() if live.get(w) != t}
        unbind: Bindings = {}
        for w in dropped:
            if w in desired or w not in live:
                continue
            if w not in preexisting:
                unbind[w] = live[w]
            elif live[w] != preexisting[w]:
                bind[w] = preexisting[w]
        for binding_type, ids in _by_type(bind):
            client.catalogs.bind(name, ids, binding_type)
        for binding_type, ids in _by_type(unbind):
            client.catalogs.unbind(name, ids, binding_type)

    def _observed(self, client: WorkspaceClient, name: str, declared: Bindings | None) -> Spec:
        """The catalog in spec form: only the declared workspaces' bindings (all of them
        when nothing is declared yet, as on import)."""
        catalog = client.catalogs.get(name)
        live = self._live_bindings(client, name)
        if declared is not None:
            live = {w: t for w, t in live.items() if w in declared}
        return {
            "catalog_name": catalog.get("name", name).lower(),
            "isolation_mode": catalog.get("isolation_mode"),
            "bindings": bindings_spec(live),
        }

    @staticmethod
    def _computed(recorded: Mapping[str, Any]) -> dict:
        return {
            "previous_isolation_mode": recorded.get("previous_isolation_mode"),
            "preexisting_bindings": recorded.get("preexisting_bindings") or [],
        }


def _by_type(bindings: Bindings) -> list[tuple[str, list[int]]]:
    ordered = sorted(bindings.items(), key=lambda item: (item[1], int(item[0])))
    return [
        (binding_type, [int(w) for w, _ in group])
        for binding_type, group in groupby(ordered, key=lambda item: item[1])
    ]



def _bound_catalogs(client: Any) -> Any:
    """Catalogs with a binding to manage: isolated, or bound to a workspace. (An open
    catalog without bindings is every catalog's state before anyone binds it.)"""
    for catalog in client.catalogs.list():
        name = str(catalog["name"])
        if catalog.get("isolation_mode") == "ISOLATED" or client.catalogs.get_bindings(name):
            yield name, name


KIND = declare(
    name="CatalogBinding",
    provider=CatalogBindingProvider,
    outputs={"previous_isolation_mode": str, "preexisting_bindings": list},
    config_key="catalogBindings",
    identity=("catalog_name",),
    doc="docs/catalog-binding.md",
    summary="a catalog's isolation mode and workspace bindings",
    import_id="catalog name",
    stack_output=("catalog_bindings", lambda resource: resource.id),
    inventory=_bound_catalogs,
)
