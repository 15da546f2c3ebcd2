"""Identity-provider state: applications (client id + secret) and issued tokens.

Tokens are opaque random strings; only their SHA-256 is stored, so neither the database
nor any log holds a usable token.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from workspace_emulator import clock
from workspace_emulator.identity.federation import (
    AZURE_TOKEN_EXCHANGE_AUDIENCE,
    FEDERATED_CREDENTIAL,
    FederatedTrusts,
    describe_claims,
)
from workspace_emulator.identity.id_tokens import IdTokenSigner, InvalidIdToken
from workspace_emulator.identity.managed_identities import ManagedIdentities
from workspace_emulator.identity.oauth_secrets import OAuthSecrets
from workspace_emulator.identity.role_assignments import RoleAssignments
from workspace_emulator.storage import Database

SEED_GRANT_TYPE = "client_credential"
PUBLIC_GRANT_TYPE = "client_credentials"
JWT_BEARER_ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"


class IdentityError(Exception):
    """An OAuth error: `error` is the OAuth code, `codes` the provider's numeric codes."""

    def __init__(self, status: int, error: str, description: str, code: int) -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description
        self.codes = [code]


@dataclass(frozen=True)
class IssuedToken:
    access_token: str
    resource: str
    lifetime_seconds: int
    not_before: int
    expires_on: int


@dataclass(frozen=True)
class TokenGrant:
    """What a presented token stands for."""

    client_id: str
    resource: str
    expires_at: float


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


class IdentityProvider:
    def __init__(
        self,
        db: Database,
        tenant_id: str,
        resources: tuple[str, ...],
        token_lifetime_seconds: int,
    ) -> None:
        self._db = db
        self.tenant_id = tenant_id
        self.resources = resources
        self.token_lifetime_seconds = token_lifetime_seconds
        self.oauth_secrets = OAuthSecrets(db)
        self.trusts = FederatedTrusts(db)
        self.role_assignments = RoleAssignments(db)
        self.managed_identities = ManagedIdentities(db)
        self.id_tokens = IdTokenSigner()

    # applications

    def register_application(self, client_id: str, secret: str, display_name: str) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO applications (client_id, secret_sha256, display_name) VALUES (?, ?, ?)"
                " ON CONFLICT(client_id) DO UPDATE SET secret_sha256 = excluded.secret_sha256,"
                " display_name = excluded.display_name",
                (client_id, _sha256(secret), display_name),
            )

    def application_display_name(self, client_id: str) -> str | None:
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT display_name FROM applications WHERE client_id = ?", (client_id,)
            ).fetchone()
        return None if row is None else row["display_name"]

    def register_secretless_application(self, client_id: str, display_name: str) -> None:
        """An application no one holds a secret of (a managed identity, a principal the
        workspace made): it signs in by other means, or not at all."""
        self.register_application(client_id, secrets.token_urlsafe(32), display_name)

    def verify_client(self, client_id: str, secret: str) -> bool:
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT secret_sha256 FROM applications WHERE client_id = ?", (client_id,)
            ).fetchone()
        return row is not None and hmac.compare_digest(row["secret_sha256"], _sha256(secret))

    # tokens

    def issue_token(
        self,
        tenant: str,
        grant_type: str | None,
        expected_grant_type: str,
        client_id: str | None,
        client_secret: str | None,
        resource: str | None,
        client_assertion_type: str | None = None,
        client_assertion: str | None = None,
    ) -> IssuedToken:
        if tenant != self.tenant_id:
            raise IdentityError(
                400, "invalid_request",
                f"AADSTS90002: Tenant '{tenant}' not found. Check that the tenant id is right.",
                90002,
            )
        credential_name = "client_assertion" if client_assertion and not client_secret \
            else "client_secret"
        credential = client_assertion if credential_name == "client_assertion" else client_secret
        for name, value in (
            ("grant_type", grant_type), ("client_id", client_id),
            (credential_name, credential), ("resource", resource),
        ):
            if not value:
                raise IdentityError(
                    400, "invalid_request",
                    f"AADSTS900144: The request body must contain the following parameter: "
                    f"'{name}'.",
                    900144,
                )
        if grant_type != expected_grant_type:
            raise IdentityError(
                400, "invalid_request",
                f"AADSTS70003: The grant type '{grant_type}' is not supported here; "
                f"use grant_type={expected_grant_type}.",
                70003,
            )
        assert client_id is not None and credential is not None and resource is not None
        if credential_name == "client_assertion":
            self._verify_assertion(client_id, client_assertion_type, credential)
        elif not self.verify_client(client_id, credential):
            raise IdentityError(
                401, "invalid_client",
                "AADSTS7000215: Invalid client secret provided, or application "
                f"'{client_id}' was not found in the tenant.",
                7000215,
            )
        if resource not in self.resources:
            raise IdentityError(
                400, "invalid_request",
                f"AADSTS500011: The resource principal named '{resource}' was not found in "
                f"the tenant '{self.tenant_id}'.",
                500011,
            )
        return self._store_token(client_id, resource)

    def _verify_assertion(self, client_id: str, assertion_type: str | None,
                          assertion: str) -> None:
        """A federated credential: an ID token matching one of the application's."""
        if assertion_type != JWT_BEARER_ASSERTION:
            raise IdentityError(
                400, "invalid_request",
                f"AADSTS700023: client_assertion_type must be '{JWT_BEARER_ASSERTION}'.",
                700023,
            )
        if self.application_display_name(client_id) is None:
            raise IdentityError(
                400, "unauthorized_client",
                f"AADSTS700016: Application with identifier '{client_id}' was not found in "
                f"the directory '{self.tenant_id}'.",
                700016,
            )
        try:
            claims = self.id_tokens.verify(assertion)
        except InvalidIdToken as reason:
            raise IdentityError(
                401, "invalid_client",
                f"AADSTS50013: Assertion failed signature validation: {reason}.", 50013,
            ) from None
        if self.trusts.find_match(FEDERATED_CREDENTIAL, client_id, claims,
                                  (AZURE_TOKEN_EXCHANGE_AUDIENCE,)) is None:
            raise IdentityError(
                400, "invalid_request",
                "AADSTS70021: No matching federated identity record found for presented "
                f"assertion ({describe_claims(claims)}). Add a federated credential with "
                f"these values to application '{client_id}' (identity.federated_credentials "
                "of the initial data).",
                70021,
            )

    def issue_for(self, client_id: str, resource: str) -> IssuedToken:
        """A token for a client authenticated by other means (an OAuth secret, a federated
        token, the host of a managed identity)."""
        return self._store_token(client_id, resource)

    def _store_token(self, client_id: str, resource: str) -> IssuedToken:
        token = secrets.token_urlsafe(32)
        issued_at = clock.now()
        expires_at = issued_at + self.token_lifetime_seconds
        with self._db.write() as conn:
            conn.execute("DELETE FROM tokens WHERE expires_at < ?", (issued_at - 3600,))
            conn.execute(
                "INSERT INTO tokens (token_sha256, client_id, resource, expires_at)"
                " VALUES (?, ?, ?, ?)",
                (_sha256(token), client_id, resource, expires_at),
            )
        return IssuedToken(
            access_token=token,
            resource=resource,
            lifetime_seconds=self.token_lifetime_seconds,
            not_before=int(issued_at),
            expires_on=int(expires_at),
        )

    def resolve(self, token: str) -> TokenGrant | None:
        """The grant behind a token, or None if the token is unknown or expired."""
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT client_id, resource, expires_at FROM tokens WHERE token_sha256 = ?",
                (_sha256(token),),
            ).fetchone()
        if row is None or row["expires_at"] <= clock.now():
            return None
        return TokenGrant(row["client_id"], row["resource"], row["expires_at"])

    # the flow controller's login checks an application's credentials

    def verify_login(self, username: str, password: str) -> bool:
        return self.verify_client(username, password)
