"""ServiceCredential: a Unity Catalog service credential (purpose SERVICE), the cloud
identity code in the workspace reaches cloud services with (not storage: StorageCredential
is that), in the fields of the service's create request (`POST /credentials`).

Exactly one identity: `azure_managed_identity`, `aws_iam_role` or
`databricks_gcp_service_account`. The service takes an Azure service principal and
`read_only` for storage credentials only (the SDK's `CreateCredentialRequest`: "only
applicable when purpose is STORAGE"; the Databricks Terraform provider's
`databricks_credential` says the same of `azure_service_principal`), so check refuses
either, naming it. A declared service principal is still a Pulumi secret (`secrets`): its
client secret is never recorded in plain text, refused or not.

The service fills in what it makes of the identity (a managed identity's credential id, an
AWS role's external id and Unity Catalog IAM ARN, a GCP service account's email): outputs
(`identity_details`), never a change. Every field but the name changes in place (PATCH);
another name replaces the credential (its id is its name), as StorageCredential does:
`new_name` would rename the object of the old resource in place of making the new one,
which the engine's replacement cannot tell from a create. The owner and isolation mode the
service fills in are no change unless declared; `skip_validation` is sent with a create or
an update and never compared. A comment declared and then left out is cleared by the next
update; an owner or isolation mode left out stays as the service has it (no change).

Storage and service credentials share one namespace. Create looks the name up after an
answer that leaves open whether the credential was made, and after an interrupted run
adopts the service credential of that name with the declared identity; a storage credential
of that name is refused naming the field (pick another name, or import it as a
StorageCredential), any other service credential too (import it instead).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, StrictBool, field_validator

from providers.client import AlreadyExists, NotFound
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import PRINCIPALS, Adoption, NameReference, appended_to, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.unity_catalog.credentials import (
    AwsIamRoleModel,
    AzureManagedIdentityModel,
    AzureServicePrincipalModel,
    DatabricksGcpServiceAccountModel,
    IsolationMode,
    names_match,
    not_blank,
    uc_name,
)
from providers.unity_catalog.credentials_api import CredentialsApi
from providers.unity_catalog.uc_names import KEPT_WHEN_LEFT_OUT, cleared
from providers.unity_catalog.uc_privileges import principal_key

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

PURPOSE = "SERVICE"
# identity -> the fields a request gives (what the service adds is an output)
IDENTITY_FIELDS: dict[str, tuple[str, ...]] = {
    "azure_managed_identity": ("access_connector_id", "managed_identity_id"),
    "aws_iam_role": ("role_arn",),
    "databricks_gcp_service_account": (),
}
IDENTITIES = tuple(IDENTITY_FIELDS)
# Fields of the API's request the service takes for purpose STORAGE only: refused at check.
STORAGE_ONLY = {
    "azure_service_principal": (
        "the service takes an Azure service principal for storage credentials only "
        "(purpose STORAGE): give a service credential an azure_managed_identity (an access "
        "connector), or declare a StorageCredential"
    ),
    "read_only": (
        "applies to storage credentials only (purpose STORAGE): leave it out of a service "
        "credential"
    ),
}
# Sent with a request, never shown by the service: not compared.
REQUEST_ONLY = ("skip_validation",)


class ServiceCredentialNameTaken(Exception):
    """The declared name is a storage credential's (one namespace for both purposes)."""


class ServiceCredentialModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    comment: str | None = None
    owner: str | None = None
    isolation_mode: IsolationMode | None = None
    skip_validation: StrictBool | None = None
    azure_managed_identity: AzureManagedIdentityModel | None = None
    aws_iam_role: AwsIamRoleModel | None = None
    databricks_gcp_service_account: DatabricksGcpServiceAccountModel | None = None
    # Storage credentials' only: accepted here to be refused by name (`rules`).
    azure_service_principal: AzureServicePrincipalModel | None = None
    read_only: StrictBool | None = None

    _name = field_validator("name")(uc_name)

    @field_validator("owner")
    @classmethod
    def _owner(cls, value: str | None) -> str | None:
        return None if value is None else principal_key(not_blank(value))


class ServiceCredentialProvider(WorkspaceProvider):
    args_model = ServiceCredentialModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"name"})
    matched_without_case = frozenset({"name"})
    kept_when_left_out = KEPT_WHEN_LEFT_OUT

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        refused = [(key, why) for key, why in STORAGE_ONLY.items() if inputs.get(key) is not None]
        given = [k for k in IDENTITIES if inputs.get(k) is not None]
        if not given:
            return [("(inputs)", f"give one identity: one of {', '.join(IDENTITIES)}"), *refused]
        extra = [(k, f"give one identity only: {given[0]} is given too") for k in given[1:]]
        return [*extra, *refused]

    def spec(self, args: ServiceCredentialModel) -> Spec:
        return args.model_dump(
            mode="json", exclude_none=True, exclude={*REQUEST_ONLY, *STORAGE_ONLY}
        )

    def create_object(self, client: WorkspaceClient, args: ServiceCredentialModel, spec: Spec):
        # A create takes neither the owner nor the isolation mode: an update follows.
        body = {
            **args.model_dump(mode="json", exclude_none=True, exclude={"owner", "isolation_mode"}),
            "purpose": PURPOSE,
        }

        def create() -> dict[str, Any]:
            try:
                return CredentialsApi(client).create(body)
            except AlreadyExists:
                found = self._ours(client, spec)
                if found is None:
                    raise
                return found  # what an interrupted run of this resource made

        made, _ = create_or_adopt(create, lambda: self._ours(client, spec))
        changes = self._changes(args, spec, made)
        if changes:
            made = CredentialsApi(client).update(args.name, changes)
        return args.name, self._spec_of(made, spec), self._computed(made)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = _service_credential(CredentialsApi(client).get(id_), "import or read")
        like = self._recorded_spec(recorded)
        return self._spec_of(found, like), self._computed(found)

    def update_object(self, client, id_, recorded, args: ServiceCredentialModel, spec: Spec):
        found = _service_credential(CredentialsApi(client).get(id_), "update")
        changes = self._changes(args, spec, found)
        changes.update(cleared(self._recorded_spec(recorded), spec, ("comment",)))
        if changes:
            found = CredentialsApi(client).update(id_, changes)
        return self._spec_of(found, spec), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        try:
            found = CredentialsApi(client).get(id_)
        except NotFound:
            return
        if found.get("purpose") == PURPOSE:  # never a storage credential made since
            CredentialsApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    def _changes(
        self, args: ServiceCredentialModel, spec: Spec, found: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The fields to PATCH: the declared ones the credential does not have."""
        observed = self._spec_of(found, spec)
        changes = {k: v for k, v in spec.items() if k != "name" and observed.get(k) != v}
        if changes and args.skip_validation is not None:
            changes["skip_validation"] = args.skip_validation
        return changes

    @staticmethod
    def _spec_of(found: Mapping[str, Any], like: Mapping[str, Any]) -> Spec:
        """The credential in spec form: the request's fields only (an identity's filled-in
        fields are outputs); the name as declared where the service matches it."""
        name = found.get("name")
        spec: Spec = {"name": like["name"] if names_match(like.get("name"), name) else name}
        for key in ("comment", "isolation_mode"):
            if key in found:
                spec[key] = found[key]
        if found.get("owner") is not None:
            spec["owner"] = principal_key(str(found["owner"]))
        for identity, fields in IDENTITY_FIELDS.items():
            if isinstance(found.get(identity), Mapping):
                spec[identity] = {f: found[identity][f] for f in fields if f in found[identity]}
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        details: dict[str, Any] = {}
        for identity, fields in IDENTITY_FIELDS.items():
            if isinstance(found.get(identity), Mapping):
                details = {k: v for k, v in found[identity].items() if k not in fields}
        return {
            "credential_id": found.get("id"),
            "metastore_id": found.get("metastore_id"),
            "identity_details": details,
        }

    @classmethod
    def _ours(cls, client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The service credential of the declared name, where it has the declared identity
        (what a create of this resource leaves); None otherwise. A storage credential of
        that name is refused: its name is taken."""
        try:
            found = CredentialsApi(client).get(spec["name"])
        except NotFound:
            return None
        _service_credential(found, "create")
        observed = cls._spec_of(found, spec)
        same = all(observed.get(k) == spec[k] for k in IDENTITY_FIELDS if k in spec)
        return dict(found) if same else None


def _service_credential(found: Mapping[str, Any], action: str) -> Mapping[str, Any]:
    """`found`, where it is a service credential; else the error that says whose the name is
    and what to do."""
    purpose = found.get("purpose")
    if purpose in (None, PURPOSE):
        return found
    name = found.get("name")
    raise ServiceCredentialNameTaken(
        f"name: cannot {action} the service credential {name!r}: that name is a "
        f"{str(purpose).lower()} credential's, and storage and service credentials share one "
        "namespace. Give the service credential another name, or manage that credential as "
        f"a StorageCredential (import it: `import: {name}` on its item in "
        "workspace:storageCredentials)"
    )


KIND = declare(
    name="ServiceCredential",
    provider=ServiceCredentialProvider,
    outputs={"credential_id": str, "metastore_id": str, "identity_details": dict},
    config_key="serviceCredentials",
    names={
        "owner": NameReference("owner", PRINCIPALS),
    },
    named_as=("name",),
    names_fold_case=True,
    identity=("name",),
    doc="docs/service-credential.md",
    summary="a Unity Catalog service credential: one cloud identity for cloud services, "
    "changed in place",
    import_id="credential name",
    import_id_rule=import_ids.one_segment,
    stack_output=("service_credentials", lambda resource: resource.id),
    # Only ever declared to be refused (a storage credential's identity), but a secret then too.
    secrets=("azure_service_principal",),
    # A managed identity, an IAM role, a service account hold no secret: adopted as read.
    adoption=Adoption(
        holds_secret=lambda observed: "azure_service_principal" in observed,
        secret_value=("azure_service_principal.client_secret",
                      "the client secret of the credential's service principal"),
    ),
    inventory=lambda client: (
        (str(c["name"]), str(c["name"])) for c in CredentialsApi(client).list(PURPOSE)
    ),
    drill=appended_to("comment"),
)
