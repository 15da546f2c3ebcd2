"""ExternalLocation: a Unity Catalog external location, a storage URL and the storage
credential that reaches it, in the API's own request fields.

Every field but the name changes in place (PATCH); another name replaces the location (its
id is its name). The service refuses to move the URL of a location that external volumes,
schemas or catalogs use, and says so. The owner, isolation mode and read-only flag the
service fills in are no change unless declared; a URL compares without its trailing '/'
and the credential's name without regard to case, as the service matches them.
`skip_validation` is sent with a create or update and never compared.

Create looks the name up after an answer that leaves open whether the location was made,
and after an interrupted run adopts a location of that name with the declared URL; any
other of that name is refused (import it instead). Delete refuses, as the service does, a
location something still uses, unless `force_destroy` is set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, StrictBool, field_validator

from providers.client import AlreadyExists, NotFound
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import PRINCIPALS, NameReference, Reference, appended_to, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.unity_catalog.credentials import IsolationMode, names_match, not_blank, uc_name
from providers.unity_catalog.external_locations_api import ExternalLocationsApi
from providers.unity_catalog.uc_names import KEPT_WHEN_LEFT_OUT, cleared
from providers.unity_catalog.uc_privileges import principal_key

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# Sent with a request, never shown by the service: not compared.
NOT_COMPARED = ("skip_validation",)
# The resource's own: recorded and compared, never sent as a field.
OWN = ("force_destroy",)


class ExternalLocationModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    url: str
    credential_name: str
    read_only: StrictBool | None = None
    comment: str | None = None
    owner: str | None = None
    isolation_mode: IsolationMode | None = None
    skip_validation: StrictBool | None = None
    force_destroy: StrictBool | None = None

    _name = field_validator("name", "credential_name")(uc_name)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str) -> str:
        scheme, sep, rest = value.partition("://")
        if not sep or not scheme or not rest.strip("/") or " " in value:
            raise ValueError(
                "must be a storage URL such as abfss://container@account.dfs.core.windows.net"
                "/path, s3://bucket/path or gs://bucket/path"
            )
        return value.rstrip("/")

    @field_validator("owner")
    @classmethod
    def _owner(cls, value: str | None) -> str | None:
        return None if value is None else principal_key(not_blank(value))


class ExternalLocationProvider(WorkspaceProvider):
    args_model = ExternalLocationModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"name"})
    matched_without_case = frozenset({"name", "credential_name"})
    kept_when_left_out = KEPT_WHEN_LEFT_OUT

    def spec(self, args: ExternalLocationModel) -> Spec:
        spec = args.model_dump(mode="json", exclude_none=True, exclude=set(NOT_COMPARED))
        # The service matches a credential's name without regard to case.
        return {**spec, "credential_name": args.credential_name.lower()}

    def create_object(self, client: WorkspaceClient, args: ExternalLocationModel, spec: Spec):
        # A create takes neither the owner nor the isolation mode: an update follows.
        body = args.model_dump(
            mode="json", exclude_none=True, exclude={"owner", "isolation_mode", "force_destroy"}
        )

        def create() -> dict[str, Any]:
            try:
                return ExternalLocationsApi(client).create(body)
            except AlreadyExists:
                found = self._ours(client, spec)
                if found is None:
                    raise
                return found  # what an interrupted run of this resource made

        made, _adopted = create_or_adopt(create, lambda: self._ours(client, spec))
        changes = self._changes(args, spec, made)
        if changes:
            made = ExternalLocationsApi(client).update(args.name, changes)
        return args.name, self._spec_of(made, spec), self._computed(made)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = ExternalLocationsApi(client).get(id_)
        return self._spec_of(found, self._recorded_spec(recorded)), self._computed(found)

    def update_object(self, client, id_, recorded, args: ExternalLocationModel, spec: Spec):
        found = ExternalLocationsApi(client).get(id_)
        changes = self._changes(args, spec, found, self._recorded_spec(recorded))
        if changes:
            found = ExternalLocationsApi(client).update(id_, changes)
        return self._spec_of(found, spec), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        ExternalLocationsApi(client).delete(id_, force=bool(recorded.get("force_destroy")))

    # --- helpers ------------------------------------------------------------------
    def _changes(
        self,
        args: ExternalLocationModel,
        spec: Spec,
        found: Mapping[str, Any],
        recorded: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The fields to PATCH: the declared ones the location does not have, and the
        comment cleared where `recorded` (the last deployment's spec) declared one and the
        spec no longer does."""
        observed = self._spec_of(found, spec)
        changes = {
            k: v for k, v in spec.items() if k not in ("name", *OWN) and observed.get(k) != v
        }
        changes.update(cleared(recorded or {}, spec, ("comment",)))
        if changes and args.skip_validation is not None:
            changes["skip_validation"] = args.skip_validation
        return changes

    @staticmethod
    def _spec_of(found: Mapping[str, Any], like: Mapping[str, Any]) -> Spec:
        """The location in spec form; names as declared where the service matches them."""
        name = found.get("name")
        spec: Spec = {
            "name": like["name"] if names_match(like.get("name"), name) else name,
            "credential_name": str(found.get("credential_name") or "").lower(),
        }
        spec["url"] = str(found.get("url") or "").rstrip("/")
        for key in ("read_only", "comment", "isolation_mode"):
            if key in found:
                spec[key] = found[key]
        if found.get("owner") is not None:
            spec["owner"] = principal_key(str(found["owner"]))
        spec.update({k: like[k] for k in OWN if k in like})
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {"credential_id": found.get("credential_id"), "metastore_id": found.get(
            "metastore_id")}

    @classmethod
    def _ours(cls, client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The location of the declared name at the declared URL (what a create of this
        resource leaves); None otherwise."""
        try:
            found = ExternalLocationsApi(client).get(spec["name"])
        except NotFound:
            return None
        return dict(found) if cls._spec_of(found, spec)["url"] == spec["url"] else None


KIND = declare(
    name="ExternalLocation",
    provider=ExternalLocationProvider,
    outputs={"credential_id": str, "metastore_id": str},
    config_key="externalLocations",
    names={
        "credential_name": NameReference("credential_name", ("storageCredentials",)),
        "owner": NameReference("owner", PRINCIPALS),
    },
    named_as=("name",),
    names_fold_case=True,
    identity=("name",),
    references={
        "storage_credential": Reference(
            target_key="storageCredentials", field="credential_name", folds_case=True
        )
    },
    doc="docs/external-location.md",
    summary="a Unity Catalog external location: a storage URL and its credential",
    import_id="location name",
    import_id_rule=import_ids.one_segment,
    stack_output=("external_locations", lambda resource: resource.id),
    inventory=lambda client: (
        (str(x["name"]), str(x["name"])) for x in ExternalLocationsApi(client).list()
    ),
    drill=appended_to("comment"),
)
