"""Trusts in outside identity providers: which (issuer, subject, audience) of an ID token
stands for which application.

Two kinds, one rule: the platform's token federation policies (a service principal's
`/oidc/v1/token` token exchange) and the identity provider's federated credentials (an
application's client assertion at `/<tenant>/oauth2/token`). A trust matches a token whose
`iss` and `sub` equal its own and whose `aud` is one of its audiences (or, for a trust
that names none, one of the default audiences of its kind).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workspace_emulator.identity.id_tokens import audiences_of
from workspace_emulator.storage import Database, from_json, to_json

FEDERATION_POLICY = "federation_policy"
FEDERATED_CREDENTIAL = "federated_credential"
# What Entra ID expects in a federated credential's audience unless told otherwise.
AZURE_TOKEN_EXCHANGE_AUDIENCE = "api://AzureADTokenExchange"


@dataclass(frozen=True)
class Trust:
    kind: str
    application_id: str
    issuer: str
    subject: str
    audiences: tuple[str, ...] = ()

    def matches(self, claims: dict[str, Any], default_audiences: tuple[str, ...]) -> bool:
        accepted = self.audiences or default_audiences
        return (claims.get("iss") == self.issuer and claims.get("sub") == self.subject
                and any(a in accepted for a in audiences_of(claims)))


class FederatedTrusts:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add(self, trust: Trust) -> None:
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO federated_trusts (kind, application_id, issuer, subject, audiences)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT(kind, application_id, issuer, subject)"
                " DO UPDATE SET audiences = excluded.audiences",
                (trust.kind, trust.application_id, trust.issuer, trust.subject,
                 to_json(list(trust.audiences))),
            )

    def of(self, kind: str, application_id: str) -> list[Trust]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT issuer, subject, audiences FROM federated_trusts"
                " WHERE kind = ? AND application_id = ?", (kind, application_id)).fetchall()
        return [Trust(kind, application_id, row["issuer"], row["subject"],
                      tuple(from_json(row["audiences"]))) for row in rows]

    def find_match(self, kind: str, application_id: str, claims: dict[str, Any],
                   default_audiences: tuple[str, ...]) -> Trust | None:
        return next((t for t in self.of(kind, application_id)
                     if t.matches(claims, default_audiences)), None)


def trust_from_initial_data(kind: str, entry: dict[str, Any]) -> Trust:
    """`{application_id, issuer, subject, audiences?}` of the initial data's identity section."""
    return Trust(kind, entry["application_id"], entry["issuer"], entry["subject"],
                 tuple(entry.get("audiences", ())))


def describe_claims(claims: dict[str, Any]) -> str:
    return (f"issuer '{claims.get('iss')}', subject '{claims.get('sub')}', audience "
            f"'{', '.join(audiences_of(claims))}'")
