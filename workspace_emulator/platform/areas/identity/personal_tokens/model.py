"""Personal access tokens: bearer tokens a principal makes for itself through the API, or
an admin makes on behalf of a service principal (token management).

A token stands for its owner, until it expires (on the emulator's clock) or is deleted;
only its SHA-256 is stored. They are the workspace's (a reset removes them). The owner's
own list shows the public fields; token management shows who made each and for whom.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import InvalidParameter, NotFound
from workspace_emulator.identity import TokenGrant
from workspace_emulator.storage import Database, from_json, to_json

# The service's tokens start so (a leak scanner finds them by it).
TOKEN_PREFIX = "dapi"
# What the API documents when lifetime_seconds is left out.
DEFAULT_LIFETIME_SECONDS = 2 * 365 * 24 * 3600
# What the owner's own list shows of a token; token management shows the rest too.
PUBLIC_FIELDS = ("token_id", "creation_time", "expiry_time", "comment")


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


TABLES = """
CREATE TABLE IF NOT EXISTS personal_tokens (token_id TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL UNIQUE, application_id TEXT NOT NULL, doc TEXT NOT NULL);
"""


class PersonalTokens:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, application_id: str, lifetime_seconds: int | None,
               comment: str | None, made_by: dict[str, Any] | None = None
               ) -> tuple[str, dict[str, Any]]:
        """The token's value (shown this once) and its token_info; `made_by`: the management
        fields (owner_id, created_by_id, created_by_username)."""
        if lifetime_seconds is not None and lifetime_seconds <= 0:
            raise InvalidParameter(
                "'lifetime_seconds' must be a positive number of seconds; leave it out for "
                f"{DEFAULT_LIFETIME_SECONDS} seconds (2 years).")
        value = TOKEN_PREFIX + secrets.token_hex(16)
        now_ms = clock.now_ms()
        info: dict[str, Any] = {
            "token_id": secrets.token_hex(32),
            "creation_time": now_ms,
            "expiry_time": now_ms + 1000 * (lifetime_seconds or DEFAULT_LIFETIME_SECONDS),
        }
        if comment is not None:
            info["comment"] = comment
        info.update(made_by or {})
        with self._db.write() as conn:
            conn.execute("DELETE FROM personal_tokens WHERE json_extract(doc, '$.expiry_time') < ?",
                         (now_ms - 3600_000,))
            conn.execute("INSERT INTO personal_tokens (token_id, token_sha256, application_id, doc)"
                         " VALUES (?, ?, ?, ?)",
                         (info["token_id"], _sha256(value), application_id, to_json(info)))
        return value, info

    def of(self, application_id: str) -> list[dict[str, Any]]:
        """The principal's unexpired tokens, oldest first."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM personal_tokens WHERE application_id = ?"
                                " ORDER BY rowid", (application_id,)).fetchall()
        now_ms = clock.now_ms()
        return [{k: info[k] for k in PUBLIC_FIELDS if k in info}
                for info in (from_json(row["doc"]) for row in rows)
                if info["expiry_time"] > now_ms]

    def managed(self) -> list[dict[str, Any]]:
        """Every unexpired token of the workspace, with who made it and for whom."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM personal_tokens ORDER BY rowid").fetchall()
        now_ms = clock.now_ms()
        return [info for info in (from_json(row["doc"]) for row in rows)
                if info["expiry_time"] > now_ms]

    def managed_one(self, token_id: str) -> dict[str, Any]:
        found = next((t for t in self.managed() if t["token_id"] == token_id), None)
        if found is None:
            raise NotFound(f"Token with id {token_id} does not exist.")
        return found

    def delete_any(self, token_id: str) -> None:
        with self._db.write() as conn:
            deleted = conn.execute("DELETE FROM personal_tokens WHERE token_id = ?",
                                   (token_id,)).rowcount
        if not deleted:
            raise NotFound(f"Token with id {token_id} does not exist.")

    def delete(self, application_id: str, token_id: str) -> None:
        with self._db.write() as conn:
            deleted = conn.execute(
                "DELETE FROM personal_tokens WHERE token_id = ? AND application_id = ?",
                (token_id, application_id)).rowcount
        if not deleted:
            raise NotFound(f"Token with id {token_id} does not exist among the caller's tokens; "
                           "GET /api/2.0/token/list shows their token_id values.")

    def resolve(self, token: str, resource: str) -> TokenGrant | None:
        """What an unexpired, undeleted token stands for, as a grant for `resource`."""
        if not token.startswith(TOKEN_PREFIX):
            return None
        with self._db.read() as conn:
            row = conn.execute("SELECT application_id, doc FROM personal_tokens"
                               " WHERE token_sha256 = ?", (_sha256(token),)).fetchone()
        if row is None:
            return None
        expires_at = from_json(row["doc"])["expiry_time"] / 1000
        if expires_at <= clock.now():
            return None
        return TokenGrant(row["application_id"], resource, expires_at)
