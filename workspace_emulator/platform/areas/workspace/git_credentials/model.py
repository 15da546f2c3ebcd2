"""Git credentials: the token a principal's Git folders reach their remotes with.

A credential belongs to one principal (the caller, or with `principal_id` a service
principal an admin manages) and names one Git provider (any case on the way in, the
service's spelling stored). A principal holds one credential per provider: a second create
for the same provider is refused and names the one there (PATCH or delete it). The token is
stored as its SHA-256 only and never answered; a PATCH that gives one replaces it. A Git
folder's clone of a remote marked private needs the caller's credential for its provider
(areas/repos asks `has_credential`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound
from workspace_emulator.storage import Database, from_json, to_json

PROVIDERS = ("gitHub", "bitbucketCloud", "gitLab", "azureDevOpsServices", "gitHubEnterprise",
             "bitbucketServer", "gitLabEnterpriseEdition", "awsCodeCommit")
CREDENTIAL_ID_START = 93488329053511
# What a credential shows (never the token).
PUBLIC_FIELDS = ("credential_id", "git_provider", "git_username", "git_email", "name",
                 "is_default_for_provider")
TEXT_FIELDS = ("git_username", "git_email", "name")
TABLES = """
CREATE TABLE IF NOT EXISTS git_credentials (credential_id INTEGER PRIMARY KEY,
    principal_id TEXT NOT NULL, git_provider TEXT NOT NULL, doc TEXT NOT NULL,
    token_sha256 TEXT);
"""


def provider_named(value: Any) -> str:
    spelled = {p.lower(): p for p in PROVIDERS}
    if not isinstance(value, str) or value.lower() not in spelled:
        raise InvalidParameter(
            f"Invalid Git provider {value!r}; one of {', '.join(PROVIDERS)} (any case).")
    return spelled[value.lower()]


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def _public(doc: Mapping[str, Any]) -> dict[str, Any]:
    return {k: doc[k] for k in PUBLIC_FIELDS if doc.get(k) is not None}


def _fields(body: Mapping[str, Any]) -> dict[str, Any]:
    """The body's credential fields, checked (the token apart)."""
    fields: dict[str, Any] = {"git_provider": provider_named(body.get("git_provider"))}
    for key in TEXT_FIELDS:
        if body.get(key) is not None:
            if not isinstance(body[key], str):
                raise InvalidParameter(f"'{key}' must be a string")
            fields[key] = body[key]
    default = body.get("is_default_for_provider")
    if default is not None:
        if not isinstance(default, bool):
            raise InvalidParameter("'is_default_for_provider' must be true or false")
        fields["is_default_for_provider"] = default
    token = body.get("personal_access_token")
    if token is not None and (not isinstance(token, str) or not token):
        raise InvalidParameter("'personal_access_token' must be a non-empty string")
    return fields


class GitCredentials:
    def __init__(self, db: Database) -> None:
        self._db = db

    def _row(self, conn, principal_id: str, credential_id: int):
        row = conn.execute(
            "SELECT doc FROM git_credentials WHERE credential_id = ? AND principal_id = ?",
            (credential_id, principal_id)).fetchone()
        if row is None:
            raise NotFound(f"Git credential with id {credential_id} does not exist.")
        return from_json(row["doc"])

    @staticmethod
    def _refuse_second(conn, principal_id: str, provider: str, but: int | None) -> None:
        row = conn.execute(
            "SELECT credential_id FROM git_credentials WHERE principal_id = ? AND "
            "git_provider = ? AND credential_id IS NOT ?", (principal_id, provider, but),
        ).fetchone()
        if row is not None:
            raise AlreadyExists(
                f"A Git credential for {provider} already exists for this user (credential "
                f"{row['credential_id']}); only one credential per Git provider is supported: "
                f"update it (PATCH /api/2.0/git-credentials/{row['credential_id']}) or delete "
                "it first.")

    def list(self, principal_id: str) -> list[dict[str, Any]]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT doc FROM git_credentials WHERE principal_id = ? ORDER BY credential_id",
                (principal_id,)).fetchall()
        return [_public(from_json(row["doc"])) for row in rows]

    def get(self, principal_id: str, credential_id: int) -> dict[str, Any]:
        with self._db.read() as conn:
            return _public(self._row(conn, principal_id, credential_id))

    def has_credential(self, principal_id: str, provider: str) -> bool:
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT 1 FROM git_credentials WHERE principal_id = ? AND git_provider = ? "
                "AND token_sha256 IS NOT NULL", (principal_id, provider)).fetchone()
        return row is not None

    def create(self, principal_id: str, body: Mapping[str, Any]) -> dict[str, Any]:
        fields = _fields(body)
        if fields["git_provider"] == "awsCodeCommit" and not fields.get("git_username"):
            raise InvalidParameter("'git_username' is required for awsCodeCommit")
        token = body.get("personal_access_token")
        with self._db.write() as conn:
            self._refuse_second(conn, principal_id, fields["git_provider"], None)
            credential_id = self._db.next_value(conn, "git_credential_id", CREDENTIAL_ID_START)
            doc = {"credential_id": credential_id, **fields}
            conn.execute(
                "INSERT INTO git_credentials (credential_id, principal_id, git_provider, doc, "
                "token_sha256) VALUES (?, ?, ?, ?, ?)",
                (credential_id, principal_id, fields["git_provider"], to_json(doc),
                 _sha256(token) if token else None))
        return _public(doc)

    def update(self, principal_id: str, credential_id: int, body: Mapping[str, Any]) -> None:
        """The fields given replace the stored ones (git_provider is required); a token
        given replaces the stored one, none keeps it."""
        fields = _fields(body)
        token = body.get("personal_access_token")
        with self._db.write() as conn:
            doc = self._row(conn, principal_id, credential_id)
            self._refuse_second(conn, principal_id, fields["git_provider"], credential_id)
            doc.update(fields)
            conn.execute(
                "UPDATE git_credentials SET git_provider = ?, doc = ?, "
                "token_sha256 = COALESCE(?, token_sha256) WHERE credential_id = ?",
                (fields["git_provider"], to_json(doc), _sha256(token) if token else None,
                 credential_id))

    def delete(self, principal_id: str, credential_id: int) -> None:
        with self._db.write() as conn:
            self._row(conn, principal_id, credential_id)
            conn.execute("DELETE FROM git_credentials WHERE credential_id = ?",
                         (credential_id,))

    def token_matches(self, principal_id: str, credential_id: int, token: str) -> bool:
        """Whether the stored token is `token` (for tests of a rotation: never answered)."""
        with self._db.read() as conn:
            row = conn.execute(
                "SELECT token_sha256 FROM git_credentials WHERE credential_id = ? AND "
                "principal_id = ?", (credential_id, principal_id)).fetchone()
        return row is not None and row["token_sha256"] == _sha256(token)
