"""ServicePrincipalSecret: an OAuth secret of a service principal (client id and secret of
oauth-m2m sign-in), made through the workspace's proxy of the account API.

The service shows the value once, in the create's answer: the provider records it as an
output that is always a Pulumi secret (the declaration's `secrets=`), so the state keeps it
encrypted, and a refresh keeps it as recorded. Nothing else carries it: not an error, a log
line or a preview. An imported secret's value is not known (its output stays empty); the
docs say to rotate it.

Every input change replaces the secret: that is the rotation. Pulumi creates the new one
before it deletes the old, so sign-ins never lack a valid secret in between.

A create whose answer is lost cannot be adopted, since the value came only in that answer.
The principal's secrets are listed before the create; after a failed create, the secrets
that appeared since are deleted (no one knows their value), and after an answer that leaves
open whether the secret was made (a 5xx, a dropped connection) the create is sent again.
The id is `<principal id>/<secret id>`.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, ConfigDict

from providers.client import WorkspaceError
from providers.core.create_or_adopt import create_or_adopt, is_uncertain_create_outcome
from providers.core.ids import canonical_id
from providers.core.kind import Adoption, DrillChange, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.identity.service_principal_secrets_api import (
    INVALID_RESPONSE,
    ServicePrincipalSecretsApi,
)
from providers.identity.service_principals_api import ServicePrincipalsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# The output of a service principal's OAuth secret that holds its value.
PRINCIPAL_SECRET_VALUE_KEY = "secret"

ID_SEPARATOR = "/"
# The service's default lifetime of a secret, and the longest it makes.
MAX_LIFETIME_SECONDS = 730 * 24 * 3600
# What the outputs show of a secret as the service lists it.
LISTED_FIELDS = ("status", "create_time", "expire_time")


def as_principal_id(value: object) -> str:
    try:
        return canonical_id(value)
    except ValueError:
        raise ValueError(
            "must be the workspace's id of the service principal (the ServicePrincipal "
            "resource's id, a number like 100000000000003), not its application id"
        ) from None


def as_lifetime(value: object) -> str:
    """Seconds, as a number or as the service's duration text `"<n>s"` -> `"<n>s"`."""
    text = str(value).removesuffix("s") if isinstance(value, str) else value
    if isinstance(text, str) and text.isascii() and text.isdigit():
        text = int(text)
    if isinstance(text, bool) or not isinstance(text, int) or text <= 0:
        raise ValueError(
            'must be a whole number of seconds, as 7776000 or "7776000s" (90 days); left '
            "out, the service's default of 730 days"
        )
    if text > MAX_LIFETIME_SECONDS:
        raise ValueError(
            f"must be at most {MAX_LIFETIME_SECONDS} seconds (730 days), the longest the "
            "service makes a secret for"
        )
    return f"{text}s"


class ServicePrincipalSecretModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    service_principal_id: Annotated[str, BeforeValidator(as_principal_id)]
    lifetime: Annotated[str, BeforeValidator(as_lifetime)] | None = None


class ServicePrincipalSecretProvider(WorkspaceProvider):
    args_model = ServicePrincipalSecretModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"service_principal_id", "lifetime"})

    def create_object(
        self, client: WorkspaceClient, args: ServicePrincipalSecretModel, spec: Spec
    ):
        owner = args.service_principal_id
        application_id = ServicePrincipalsApi(client).get(owner).get("applicationId")
        made = create_secret(client, owner, args.lifetime)
        computed = {
            "secret_id": str(made["id"]),
            PRINCIPAL_SECRET_VALUE_KEY: made["secret"],
            "application_id": application_id,
            **{field: made.get(field) for field in LISTED_FIELDS},
        }
        return secret_resource_id(owner, str(made["id"])), spec, computed

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        owner, secret_id = split_id(id_)
        listed = ServicePrincipalSecretsApi(client).list(owner)
        found = next((s for s in listed if str(s.get("id")) == secret_id), None)
        if found is None:
            return None
        observed: Spec = {"service_principal_id": owner}
        kept = recorded.get("lifetime") or lifetime_of(found)
        if kept is not None:
            observed["lifetime"] = kept
        application_id = recorded.get("application_id")
        if application_id is None:  # an import: the one read of the principal
            application_id = ServicePrincipalsApi(client).get(owner).get("applicationId")
        computed = {
            "secret_id": secret_id,
            # The service never shows it again: as recorded, or unknown after an import.
            PRINCIPAL_SECRET_VALUE_KEY: recorded.get(PRINCIPAL_SECRET_VALUE_KEY),
            "application_id": application_id,
            **{field: found.get(field) for field in LISTED_FIELDS},
        }
        return observed, computed

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        ServicePrincipalSecretsApi(client).delete(*split_id(id_))


def create_secret(client: WorkspaceClient, owner: str, lifetime: str | None) -> dict[str, Any]:
    """A new secret of the principal `owner`; a failed create leaves no secret behind."""
    before = {str(s.get("id")) for s in ServicePrincipalSecretsApi(client).list(owner)}

    def discard_unanswered() -> None:
        # Returns nothing to adopt: a secret whose value was lost is of no use to anyone.
        for secret in ServicePrincipalSecretsApi(client).list(owner):
            if str(secret.get("id")) not in before:
                ServicePrincipalSecretsApi(client).delete(owner, str(secret.get("id")))

    try:
        made, _ = create_or_adopt(
            lambda: ServicePrincipalSecretsApi(client).create(owner, lifetime),
            discard_unanswered,
        )
    except WorkspaceError as error:
        if is_uncertain_create_outcome(error) or error.code == INVALID_RESPONSE:
            try:
                discard_unanswered()
            except WorkspaceError as cleanup_error:
                error.add_note(
                    f"Deleting a secret the failed create may have made failed too: "
                    f"{cleanup_error}"
                )
        raise
    return made


def lifetime_of(listed: Mapping[str, Any]) -> str | None:
    """The lifetime a listed secret was made with (its expiry less its creation), where the
    service shows both; what an import records, so a declared lifetime shows no change."""
    try:
        created = _instant(listed["create_time"])
        expires = _instant(listed["expire_time"])
    except (KeyError, TypeError, ValueError):
        return None
    seconds = round((expires - created).total_seconds())
    return f"{seconds}s" if seconds > 0 else None


def _instant(text: str) -> datetime.datetime:
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def secret_resource_id(owner: str, secret_id: str) -> str:
    return f"{owner}{ID_SEPARATOR}{secret_id}"


def split_id(id_: str) -> tuple[str, str]:
    """`<principal id>/<secret id>` -> (principal id, secret id)."""
    owner, separator, secret_id = id_.partition(ID_SEPARATOR)
    try:
        if not separator or not secret_id or ID_SEPARATOR in secret_id:
            raise ValueError
        return canonical_id(owner), secret_id
    except ValueError:
        raise ValueError(
            f"a ServicePrincipalSecret's id is <principal id>/<secret id>, got {id_!r}"
        ) from None


def _principal_secret_output(secret: Any) -> dict[str, Any]:
    # The value makes the whole output a secret: `pulumi stack output --show-secrets`.
    return {
        "client_id": secret.application_id,
        "client_secret": secret.secret,
        "secret_id": secret.secret_id,
        "expire_time": secret.expire_time,
    }


def _principal_secrets(client: Any) -> Any:
    for principal in ServicePrincipalsApi(client).list():
        name = principal.get("displayName") or principal.get("applicationId") or ""
        for secret in ServicePrincipalSecretsApi(client).list(str(principal["id"])):
            yield f"{principal['id']}/{secret['id']}", f"{name}: {secret['id']}"


# Another lifetime (29 days) replaces the secret: a new one, then the old one deleted.
DRILL_LIFETIME = "2505600s"


KIND = declare(
    name="ServicePrincipalSecret",
    provider=ServicePrincipalSecretProvider,
    outputs={
        "secret_id": str,
        PRINCIPAL_SECRET_VALUE_KEY: str,
        "application_id": str,
        "status": str,
        "create_time": str,
        "expire_time": str,
    },
    config_key="servicePrincipalSecrets",
    references={
        "service_principal": Reference(
            target_key="servicePrincipals", field="service_principal_id"
        )
    },
    doc="docs/service-principal-secret.md",
    summary="an OAuth secret of a service principal, for oauth-m2m sign-in (its value a "
    "Pulumi secret; every change replaces it)",
    import_id="<principal id>/<secret id>",
    secrets=(PRINCIPAL_SECRET_VALUE_KEY,),
    stack_output=("service_principal_secrets", _principal_secret_output),
    inventory=_principal_secrets,
    adoption=Adoption(principal_of=lambda id_: id_.split("/", 1)[0]),
    drill=DrillChange(lambda item: {**item, "lifetime": DRILL_LIFETIME}),
)
