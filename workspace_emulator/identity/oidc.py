"""The workspace's own OAuth token endpoint (`/oidc/v1/token`), without HTTP.

Two grants, each ending in a token of the identity provider for the platform resource
(the platform's bearer check takes it as any other):

- `client_credentials`: the client id is a service principal's applicationId, the secret
  one of its OAuth secrets (oauth_secrets.py);
- `urn:ietf:params:oauth:grant-type:token-exchange` (token federation): a JWT subject token
  matching a federation policy of the principal named by `client_id` (federation.py).

Errors are the endpoint's `{error, error_description}`: the service's wording first
(`Client authentication failed`), then what was wrong and how to fix it; a presented
secret or token is never repeated.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workspace_emulator.identity.federation import FEDERATION_POLICY, describe_claims
from workspace_emulator.identity.id_tokens import InvalidIdToken
from workspace_emulator.identity.models import IdentityProvider

CLIENT_CREDENTIALS = "client_credentials"
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt"
ALL_APIS = "all-apis"
# Scopes a request may name next to all-apis; the token is for the whole API regardless.
KNOWN_SCOPES = frozenset({ALL_APIS, "offline_access", "openid", "profile", "email"})
CLIENT_AUTHENTICATION_FAILED = "Client authentication failed"


class OidcError(Exception):
    def __init__(self, status: int, error: str, description: str) -> None:
        super().__init__(description)
        self.status = status
        self.error = error
        self.description = description

    def body(self) -> dict[str, str]:
        return {"error": self.error, "error_description": self.description}


def _client_authentication_failed(why: str) -> OidcError:
    return OidcError(401, "invalid_client", f"{CLIENT_AUTHENTICATION_FAILED}: {why}")


@dataclass(frozen=True)
class TokenRequest:
    grant_type: str | None
    client_id: str | None
    client_secret: str | None
    scope: str | None
    subject_token: str | None
    subject_token_type: str | None

    @classmethod
    def of(cls, form: dict[str, str], basic: tuple[str, str] | None) -> TokenRequest:
        """HTTP Basic credentials win over the form's (the SDK's oauth-m2m sends Basic)."""
        client_id, client_secret = basic or (form.get("client_id"), form.get("client_secret"))
        return cls(form.get("grant_type"), client_id or None, client_secret or None,
                   form.get("scope"), form.get("subject_token"), form.get("subject_token_type"))


class WorkspaceOidc:
    def __init__(self, identity: IdentityProvider, platform_resource: str,
                 token_endpoint: str) -> None:
        self._identity = identity
        self._platform_resource = platform_resource
        # What the SDK asks an ID token's audience to be on a workspace host: a federation
        # policy that names no audiences accepts it.
        self.token_endpoint = token_endpoint

    def issue(self, request: TokenRequest) -> tuple[str, dict[str, Any]]:
        """(the client id signed in, the token response)."""
        scope = self._scope(request.scope)
        if not request.grant_type:
            raise OidcError(400, "invalid_request",
                            f"grant_type is required: {CLIENT_CREDENTIALS} with an OAuth secret, "
                            f"or {TOKEN_EXCHANGE} with a federated subject_token.")
        if request.grant_type == CLIENT_CREDENTIALS:
            client_id = self._authenticate_secret(request)
        elif request.grant_type == TOKEN_EXCHANGE:
            client_id = self._authenticate_federated(request)
        else:
            raise OidcError(400, "unsupported_grant_type",
                            f"grant_type '{request.grant_type}' is not supported; use "
                            f"{CLIENT_CREDENTIALS} or {TOKEN_EXCHANGE}.")
        issued = self._identity.issue_for(client_id, self._platform_resource)
        return client_id, {"access_token": issued.access_token, "token_type": "Bearer",
                           "expires_in": issued.lifetime_seconds, "scope": scope}

    @staticmethod
    def _scope(requested: str | None) -> str:
        if not requested:
            return ALL_APIS
        scopes = requested.split()
        unknown = [s for s in scopes if s not in KNOWN_SCOPES]
        if unknown or ALL_APIS not in scopes:
            raise OidcError(400, "invalid_scope",
                            f"scope must include '{ALL_APIS}' (the emulator's tokens are for the "
                            f"whole workspace API); unknown: {', '.join(unknown) or 'none'}.")
        return requested

    def _authenticate_secret(self, request: TokenRequest) -> str:
        if not request.client_id or not request.client_secret:
            raise _client_authentication_failed(
                "send the service principal's applicationId and one of its OAuth secrets as "
                "HTTP Basic credentials (or as client_id and client_secret in the form).")
        if not self._identity.oauth_secrets.verify(request.client_id, request.client_secret):
            raise _client_authentication_failed(
                f"no unexpired OAuth secret of client '{request.client_id}' matches the one "
                "given. Check the client id is the service principal's applicationId; create a "
                "secret with POST /api/2.0/accounts/servicePrincipals/<id>/credentials/secrets.")
        return request.client_id

    def _authenticate_federated(self, request: TokenRequest) -> str:
        if not request.subject_token:
            raise OidcError(400, "invalid_request",
                            "subject_token is required: the ID token (a JWT) to exchange.")
        if request.subject_token_type != JWT_TOKEN_TYPE:
            raise OidcError(400, "invalid_request",
                            f"subject_token_type must be {JWT_TOKEN_TYPE}.")
        if not request.client_id:
            raise OidcError(400, "invalid_request",
                            "client_id is required: the applicationId of the service principal "
                            "whose federation policy trusts the token (account-wide federation "
                            "is not emulated).")
        try:
            claims = self._identity.id_tokens.verify(request.subject_token)
        except InvalidIdToken as reason:
            raise _client_authentication_failed(f"the subject_token is not accepted: {reason}.") \
                from None
        if self._identity.trusts.find_match(FEDERATION_POLICY, request.client_id, claims,
                                            (self.token_endpoint,)) is None:
            raise _client_authentication_failed(
                f"no federation policy of service principal '{request.client_id}' matches the "
                f"subject_token ({describe_claims(claims)}). Add one with this issuer, subject "
                "and audience (identity.federation_policies of the initial data).")
        return request.client_id
