"""CatalogBinding: the isolation mode of a Unity Catalog securable that can be bound to
workspaces (a catalog, an external location, a storage credential, a service credential:
`securable_type`) and the workspaces this stack binds to it.

The securable itself is not created or deleted here. Create records the isolation mode it
found (`previous_isolation_mode`) and which declared workspaces were already bound
(`preexisting_bindings`). Update binds and unbinds only the difference; delete unbinds
only the workspaces this resource bound and restores the previous isolation mode. Bindings
of workspaces that are not declared are never touched.

Bindings take effect only while the securable is ISOLATED. A catalog is named by
`catalog_name` (or `securable_name`), its id is its name, as before securable types
existed; any other securable by `securable_name`, its id `<securable type>/<name>`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from itertools import groupby
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator

from providers.client import NotFound
from providers.core.ids import Int64Id
from providers.core.kind import DrillChange, NameByType, NameReference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider, undone_on_failure
from providers.unity_catalog.bindings_api import BindingsApi
from providers.unity_catalog.catalogs_api import CatalogsApi
from providers.unity_catalog.credentials import uc_name
from providers.unity_catalog.external_locations_api import ExternalLocationsApi
from providers.unity_catalog.securables import SECURABLES_BY_TYPE
from providers.unity_catalog.storage_credentials_api import StorageCredentialsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

CATALOG_NAME = re.compile(r"^[A-Za-z0-9_-]{1,255}$")
READ_WRITE: Final = "BINDING_TYPE_READ_WRITE"

BindingType = Literal["BINDING_TYPE_READ_WRITE", "BINDING_TYPE_READ_ONLY"]
SecurableType = Literal["catalog", "external_location", "storage_credential", "credential"]
SECURABLE_TYPES = ("catalog", "external_location", "storage_credential", "credential")
CATALOG: Final = "catalog"
CREDENTIALS = ("storage_credential", "credential")
# workspace id (digits) -> binding type
Bindings = dict[str, str]


class WorkspaceBindingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workspace_id: Int64Id
    binding_type: BindingType = READ_WRITE


def catalog_identifier(value: str) -> str:
    if not CATALOG_NAME.match(value):
        raise ValueError("must be 1 to 255 letters, digits, '_' or '-'")
    return value.lower()  # the service stores catalog names in lower case


class CatalogBindingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    securable_type: SecurableType = CATALOG
    catalog_name: str | None = None
    securable_name: str | None = None
    isolation_mode: Literal["ISOLATED", "OPEN"] = "ISOLATED"
    bindings: list[WorkspaceBindingModel] = []

    @field_validator("securable_type", mode="before")
    @classmethod
    def _type_spelling(cls, value: Any) -> Any:
        return value.strip().lower().replace("-", "_") if isinstance(value, str) else value

    @field_validator("isolation_mode", mode="before")
    @classmethod
    def _mode_spelling(cls, value: Any) -> Any:
        # The other securables' spelling (ISOLATION_MODE_ISOLATED) is the same mode.
        return value.removeprefix("ISOLATION_MODE_") if isinstance(value, str) else value

    @field_validator("catalog_name")
    @classmethod
    def _catalog_identifier(cls, value: str | None) -> str | None:
        return None if value is None else catalog_identifier(value)

    @field_validator("securable_name")
    @classmethod
    def _securable_name(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if info.data.get("securable_type", CATALOG) == CATALOG:
            return catalog_identifier(value)
        return uc_name(value)

    @property
    def name(self) -> str:
        return str(self.catalog_name or self.securable_name)

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


def split_id(id_: str) -> tuple[str, str]:
    """`<name>` (a catalog) or `<securable type>/<name>` -> (type, name)."""
    head, sep, rest = id_.partition("/")
    if not sep:
        return CATALOG, id_.lower()
    if head not in SECURABLE_TYPES or not rest:
        raise ValueError(
            "a CatalogBinding id is a catalog's name or <securable type>/<name>, a type of "
            f"{', '.join(SECURABLE_TYPES)}; got {id_!r}"
        )
    return head, rest.lower() if head == CATALOG else rest


def id_of(securable_type: str, name: str) -> str:
    return name if securable_type == CATALOG else f"{securable_type}/{name}"


class CatalogBindingProvider(WorkspaceProvider):
    args_model = CatalogBindingModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(
        {"catalog_name", "securable_type", "securable_name"}
    )

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = CatalogBindingModel.model_validate(inputs)
        if args.securable_type == CATALOG:
            if (args.catalog_name is None) == (args.securable_name is None):
                return [("catalog_name", "give the catalog's name: catalog_name or "
                         "securable_name, one of them")]
            return []
        if args.catalog_name is not None:
            return [("catalog_name", f"names a catalog; a {args.securable_type} is named by "
                     "securable_name")]
        if args.securable_name is None:
            return [("securable_name", f"required: the {args.securable_type}'s name")]
        if args.securable_type in CREDENTIALS:
            # The service binds a credential read-write only.
            return [(f"bindings.{i}.binding_type", f"a {args.securable_type} is bound "
                     f"{READ_WRITE} only: leave binding_type out")
                    for i, b in enumerate(args.bindings) if b.binding_type != READ_WRITE]
        return []

    def spec(self, args: CatalogBindingModel) -> Spec:
        return {
            **self._head(args.securable_type, args.name),
            "isolation_mode": args.isolation_mode,
            "bindings": bindings_spec({b.workspace_id: b.binding_type for b in args.bindings}),
        }

    def create_object(self, client: WorkspaceClient, args: CatalogBindingModel, spec: Spec):
        kind, name = args.securable_type, args.name
        securable = BindingsApi(client).get_securable(kind, name)  # an unknown one fails here
        live = self._live_bindings(client, kind, name)
        desired = bindings_of(spec["bindings"])
        previous_mode = securable.get("isolation_mode")
        computed = {
            "previous_isolation_mode": previous_mode,
            "preexisting_bindings": bindings_spec({w: t for w, t in live.items() if w in desired}),
        }
        id_ = id_of(kind, name)
        record = {**computed, "bindings": spec["bindings"]}
        with undone_on_failure(lambda: self.delete_object(client, id_, record)):
            self._converge(
                client, kind, name, previous_mode, args.isolation_mode, live, desired, {}, {}
            )
            observed = self._observed(client, kind, name, desired)
        return id_, observed, computed

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        kind, name = split_id(id_)
        declared = bindings_of(recorded["bindings"]) if "bindings" in recorded else None
        observed = self._observed(client, kind, name, declared)
        computed = self._computed(recorded)
        if declared is None:
            # Nothing recorded (import): every binding found is someone else's to keep.
            computed["preexisting_bindings"] = observed["bindings"]
        return observed, computed

    def update_object(self, client, id_, recorded, args, spec):
        kind, name = split_id(id_)
        desired = bindings_of(spec["bindings"])
        declared_before = bindings_of(recorded.get("bindings"))
        preexisting = bindings_of(recorded.get("preexisting_bindings"))
        mode_now = BindingsApi(client).get_securable(kind, name).get("isolation_mode")
        live = self._live_bindings(client, kind, name)
        # A newly declared workspace that someone else had already bound stays theirs.
        for w, t in live.items():
            if w in desired and w not in declared_before:
                preexisting.setdefault(w, t)
        self._converge(
            client, kind, name, mode_now, args.isolation_mode, live, desired, preexisting,
            declared_before,
        )
        computed = {
            "previous_isolation_mode": recorded.get("previous_isolation_mode"),
            "preexisting_bindings": bindings_spec(
                {w: t for w, t in preexisting.items() if w in desired}
            ),
        }
        return self._observed(client, kind, name, desired), computed

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        kind, name = split_id(id_)
        try:
            mode_now = BindingsApi(client).get_securable(kind, name).get("isolation_mode")
            self._converge(
                client,
                kind,
                name,
                mode_now,
                recorded.get("previous_isolation_mode"),
                self._live_bindings(client, kind, name),
                desired={},
                preexisting=bindings_of(recorded.get("preexisting_bindings")),
                dropped=bindings_of(recorded.get("bindings")),
            )
        except NotFound:
            return

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _head(kind: str, name: str) -> Spec:
        """The spec's keys that name the securable (a catalog's as before types existed)."""
        if kind == CATALOG:
            return {"catalog_name": name}
        return {"securable_type": kind, "securable_name": name}

    def _live_bindings(self, client: WorkspaceClient, kind: str, name: str) -> Bindings:
        return {
            str(b["workspace_id"]): b.get("binding_type", READ_WRITE)
            for b in BindingsApi(client).get(kind, name)
        }

    def _converge(
        self,
        client: WorkspaceClient,
        kind: str,
        name: str,
        mode_now: str | None,
        mode: str | None,
        live: Bindings,
        desired: Bindings,
        preexisting: Bindings,
        dropped: Bindings,
    ) -> None:
        """Sets the isolation mode (None: leaves it) and the bindings. Opens before
        unbinding and binds before isolating, so the securable is never ISOLATED with only
        part of its bindings."""
        new_mode = mode if mode is not None and mode != mode_now else None
        if new_mode == "OPEN":
            BindingsApi(client).update_isolation(kind, name, new_mode)
        self._apply(client, kind, name, live, desired, preexisting, dropped)
        if new_mode is not None and new_mode != "OPEN":
            BindingsApi(client).update_isolation(kind, name, new_mode)

    def _apply(
        self,
        client: WorkspaceClient,
        kind: str,
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
            BindingsApi(client).bind(kind, name, ids, binding_type)
        for binding_type, ids in _by_type(unbind):
            BindingsApi(client).unbind(kind, name, ids, binding_type)

    def _observed(
        self, client: WorkspaceClient, kind: str, name: str, declared: Bindings | None
    ) -> Spec:
        """The securable in spec form: only the declared workspaces' bindings (all of them
        when nothing is declared yet, as on import)."""
        securable = BindingsApi(client).get_securable(kind, name)
        live = self._live_bindings(client, kind, name)
        if declared is not None:
            live = {w: t for w, t in live.items() if w in declared}
        found = str(securable.get("name", name))
        if kind == CATALOG or found.lower() == name.lower():
            found = name  # as declared, where the service matches it
        return {
            **self._head(kind, found),
            "isolation_mode": securable.get("isolation_mode"),
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
    """Securables with a binding to manage: isolated, or bound to a workspace. (An open one
    without bindings is every securable's state before anyone binds it.) Catalogs, external
    locations and storage credentials (service credentials: declare them by hand)."""
    listed = [
        (CATALOG, CatalogsApi(client).list()),
        ("external_location", ExternalLocationsApi(client).list()),
        ("storage_credential", StorageCredentialsApi(client).list()),
    ]
    for kind, found in listed:
        for securable in found:
            name = str(securable["name"])
            isolated = securable.get("isolation_mode") in ("ISOLATED", "ISOLATION_MODE_ISOLATED")
            if isolated or BindingsApi(client).get(kind, name):
                yield id_of(kind, name), id_of(kind, name)


# Another workspace of the emulator's initial data (workspace_emulator/initial_data.json).
DRILL_WORKSPACE_ID = "2345678901234567"


KIND = declare(
    name="CatalogBinding",
    provider=CatalogBindingProvider,
    outputs={"previous_isolation_mode": str, "preexisting_bindings": list},
    config_key="catalogBindings",
    names={
        "catalog_name": NameReference("catalog_name", ("catalogs",)),
        "securable_name": NameByType("securable_name", "securable_type", SECURABLES_BY_TYPE),
    },
    identity=("catalog_name",),
    after=("storageCredentials", "externalLocations", "serviceCredentials"),
    doc="docs/catalog-binding.md",
    summary="a catalog's (or another bindable securable's) isolation mode and workspace "
    "bindings",
    import_id="catalog name, or <securable type>/<name>",
    stack_output=("catalog_bindings", lambda resource: resource.id),
    inventory=_bound_catalogs,
    drill=DrillChange(
        lambda item: {**item, "bindings": [*item["bindings"], {"workspace_id": DRILL_WORKSPACE_ID}]}
    ),
)
