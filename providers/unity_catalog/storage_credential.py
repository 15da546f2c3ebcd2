"""StorageCredential: a Unity Catalog storage credential, the cloud identity external
locations reach storage with, in the API's own request fields.

Exactly one identity: `azure_managed_identity`, `azure_service_principal`, `aws_iam_role`
or `databricks_gcp_service_account`. The service fills in what it makes of it (a managed
identity's credential id, an AWS role's external id and Unity Catalog IAM ARN, a GCP
service account's email): outputs (`identity_details`), never a change. An Azure service
principal's `client_secret` is sent, never answered: the resource keeps it a Pulumi secret
and records only a salted digest (`client_secret_digest`, a secret too), so a changed
secret is an in-place update and an unchanged one no change.

Every field but the name changes in place (PATCH); another name replaces the credential
(its id is its name). The owner, isolation mode and read-only flag the service fills in are
no change unless declared. `skip_validation` is sent with a create or update and never
compared. Create looks the name up after an answer that leaves open whether the credential
was made, and after an interrupted run adopts a credential of that name with the declared
identity; any other of that name is refused (import it instead).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, StrictBool, field_validator

from providers.client import AlreadyExists, NotFound
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.digest import digest, same_value
from providers.core.kind import PRINCIPALS, Adoption, NameReference, appended_to, declare
from providers.core.lifecycle import (
    KeyedDiffResult,
    Spec,
    WorkspaceProvider,
    contains_unknown,
    user_inputs,
)
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
from providers.unity_catalog.storage_credentials_api import StorageCredentialsApi
from providers.unity_catalog.uc_names import KEPT_WHEN_LEFT_OUT, cleared
from providers.unity_catalog.uc_privileges import principal_key

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

DIGEST_KEY = "client_secret_digest"
# identity -> the fields a request gives (what the service adds is an output)
IDENTITY_FIELDS: dict[str, tuple[str, ...]] = {
    "azure_managed_identity": ("access_connector_id", "managed_identity_id"),
    "azure_service_principal": ("directory_id", "application_id"),
    "aws_iam_role": ("role_arn",),
    "databricks_gcp_service_account": (),
}
IDENTITIES = tuple(IDENTITY_FIELDS)
# Sent with a request, never shown by the service: not compared.
REQUEST_ONLY = ("skip_validation",)


class StorageCredentialModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    comment: str | None = None
    read_only: StrictBool | None = None
    skip_validation: StrictBool | None = None
    owner: str | None = None
    isolation_mode: IsolationMode | None = None
    azure_managed_identity: AzureManagedIdentityModel | None = None
    azure_service_principal: AzureServicePrincipalModel | None = None
    aws_iam_role: AwsIamRoleModel | None = None
    databricks_gcp_service_account: DatabricksGcpServiceAccountModel | None = None

    _name = field_validator("name")(uc_name)

    @field_validator("owner")
    @classmethod
    def _owner(cls, value: str | None) -> str | None:
        return None if value is None else principal_key(not_blank(value))


def identity_rules(inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
    given = [k for k in IDENTITIES if inputs.get(k) is not None]
    if not given:
        return [("(inputs)", f"give one identity: one of {', '.join(IDENTITIES)}")]
    return [(extra, f"give one identity only: {given[0]} is given too") for extra in given[1:]]


class StorageCredentialProvider(WorkspaceProvider):
    args_model = StorageCredentialModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"name"})
    matched_without_case = frozenset({"name"})
    kept_when_left_out = KEPT_WHEN_LEFT_OUT

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        return identity_rules(inputs)

    def spec(self, args: StorageCredentialModel) -> Spec:
        spec = args.model_dump(mode="json", exclude_none=True, exclude=set(REQUEST_ONLY))
        if "azure_service_principal" in spec:
            # The secret is compared through its digest (`diff`), never recorded.
            spec["azure_service_principal"].pop("client_secret", None)
        return spec

    def diff(self, _id, olds, news, old_inputs=None) -> KeyedDiffResult:
        result = super().diff(_id, olds, news, old_inputs)
        if result.replaces:
            return result
        secret = _client_secret(news)
        if secret is not None and not contains_unknown(secret):
            # An import records no digest: the secret cannot be read back, so it is taken
            # as declared until the next change sends it.
            recorded = olds.get(DIGEST_KEY)
            if recorded and not same_value(recorded, secret.encode()):
                result.changes = True
                result.changed_keys = sorted({*result.changed_keys, "azure_service_principal"})
        return result

    def create_object(self, client: WorkspaceClient, args: StorageCredentialModel, spec: Spec):
        # A create takes neither the owner nor the isolation mode: an update follows.
        body = args.model_dump(mode="json", exclude_none=True, exclude={"owner", "isolation_mode"})

        def create() -> dict[str, Any]:
            try:
                return StorageCredentialsApi(client).create(body)
            except AlreadyExists:
                found = self._ours(client, spec)
                if found is None:
                    raise
                return found  # what an interrupted run of this resource made

        made, adopted = create_or_adopt(create, lambda: self._ours(client, spec))
        changes = self._changes(args, spec, made, send_secret=adopted)
        if changes:
            made = StorageCredentialsApi(client).update(args.name, changes)
        return args.name, self._spec_of(made, spec), self._computed(made, args)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = StorageCredentialsApi(client).get(id_)
        like = self._recorded_spec(recorded)
        return self._spec_of(found, like), self._computed(found, None, recorded)

    def update_object(self, client, id_, recorded, args: StorageCredentialModel, spec: Spec):
        found = StorageCredentialsApi(client).get(id_)
        secret = args.azure_service_principal
        send_secret = secret is not None and not same_value(
            recorded.get(DIGEST_KEY), secret.client_secret.encode()
        )
        changes = self._changes(args, spec, found, send_secret=send_secret)
        changes.update(cleared(self._recorded_spec(recorded), spec, ("comment",)))
        if changes:
            found = StorageCredentialsApi(client).update(id_, changes)
        return self._spec_of(found, spec), self._computed(found, args, recorded)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        StorageCredentialsApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    def _changes(
        self,
        args: StorageCredentialModel,
        spec: Spec,
        found: Mapping[str, Any],
        send_secret: bool,
    ) -> dict[str, Any]:
        """The fields to PATCH: the declared ones the credential does not have (and the
        service principal, secret included, where its secret is to be sent)."""
        observed = self._spec_of(found, spec)
        changes = {k: v for k, v in spec.items() if k != "name" and observed.get(k) != v}
        if args.azure_service_principal is not None and (
            send_secret or "azure_service_principal" in changes
        ):
            changes["azure_service_principal"] = args.azure_service_principal.model_dump()
        if changes and args.skip_validation is not None:
            changes["skip_validation"] = args.skip_validation
        return changes

    @staticmethod
    def _spec_of(found: Mapping[str, Any], like: Mapping[str, Any]) -> Spec:
        """The credential in spec form: the request's fields only (an identity's filled-in
        fields are outputs); the name as declared where the service matches it."""
        name = found.get("name")
        spec: Spec = {"name": like["name"] if names_match(like.get("name"), name) else name}
        for key in ("comment", "read_only", "isolation_mode"):
            if key in found:
                spec[key] = found[key]
        if found.get("owner") is not None:
            spec["owner"] = principal_key(str(found["owner"]))
        for identity, fields in IDENTITY_FIELDS.items():
            if isinstance(found.get(identity), Mapping):
                spec[identity] = {f: found[identity][f] for f in fields if f in found[identity]}
        return spec

    @staticmethod
    def _computed(
        found: Mapping[str, Any],
        args: StorageCredentialModel | None,
        recorded: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        details: dict[str, Any] = {}
        for identity, fields in IDENTITY_FIELDS.items():
            if isinstance(found.get(identity), Mapping):
                details = {k: v for k, v in found[identity].items() if k not in fields}
        kept = (recorded or {}).get(DIGEST_KEY) or ""
        if args is not None and args.azure_service_principal is not None:
            secret = args.azure_service_principal.client_secret.encode()
            if not same_value(kept, secret):
                kept = digest(secret)
        return {
            "credential_id": found.get("id"),
            "metastore_id": found.get("metastore_id"),
            "identity_details": details,
            DIGEST_KEY: kept,
        }

    @classmethod
    def _ours(cls, client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The credential of the declared name, where it has the declared identity (what a
        create of this resource leaves); None otherwise."""
        try:
            found = StorageCredentialsApi(client).get(spec["name"])
        except NotFound:
            return None
        observed = cls._spec_of(found, spec)
        same = all(observed.get(k) == spec[k] for k in IDENTITIES if k in spec)
        return dict(found) if same else None


def _client_secret(inputs: Mapping[str, Any]) -> str | None:
    principal = user_inputs(inputs).get("azure_service_principal")
    if isinstance(principal, Mapping) and isinstance(principal.get("client_secret"), str):
        return principal["client_secret"]
    return None


KIND = declare(
    name="StorageCredential",
    provider=StorageCredentialProvider,
    outputs={
        "credential_id": str,
        "metastore_id": str,
        "identity_details": dict,
        DIGEST_KEY: str,
    },
    config_key="storageCredentials",
    names={
        "owner": NameReference("owner", PRINCIPALS),
    },
    named_as=("name",),
    names_fold_case=True,
    identity=("name",),
    doc="docs/storage-credential.md",
    summary="a Unity Catalog storage credential: one cloud identity, changed in place",
    import_id="credential name",
    import_id_rule=import_ids.one_segment,
    stack_output=("storage_credentials", lambda resource: resource.id),
    secrets=("azure_service_principal", DIGEST_KEY),
    # A managed identity, an IAM role, a service account: adopted as read; a service
    # principal's client secret is never answered, so its item is the user's to finish.
    adoption=Adoption(
        holds_secret=lambda observed: "azure_service_principal" in observed,
        secret_value=("azure_service_principal.client_secret",
                      "the client secret of the credential's service principal"),
    ),
    inventory=lambda client: (
        (str(c["name"]), str(c["name"])) for c in StorageCredentialsApi(client).list()
    ),
    drill=appended_to("comment"),
)
