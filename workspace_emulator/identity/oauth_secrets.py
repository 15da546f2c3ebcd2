"""OAuth secrets of service principals: what `/oidc/v1/token` takes as a client secret.

They belong to the principal's application (the account's, not the workspace's: a reset
keeps them), are stored as SHA-256 only, and expire. The value is shown once, on create.
"""

from __future__ import annotations

import datetime
import hashlib
import hmac
import re
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import InvalidParameter, NotFound
from workspace_emulator.storage import Database

DEFAULT_LIFETIME_SECONDS = 730 * 24 * 3600
MAX_LIFETIME_SECONDS = DEFAULT_LIFETIME_SECONDS
# The service's secrets start so; so do these, so a leak scanner test can find them.
SECRET_PREFIX = "dose"
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s?\s*$")


def _sha256(value: str) -> str:
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()


def _timestamp(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class OAuthSecret:
    id: str
    application_id: str
    secret_sha256: str
    create_time: float
    expire_time: float

    def info(self) -> dict[str, Any]:
        """The SecretInfo shape: everything but the value."""
        return {
            "id": self.id,
            # A prefix of the stored hash: enough to tell secrets apart, useless to guess one.
            "secret_hash": self.secret_sha256[:16],
            "status": "ACTIVE" if self.expire_time > clock.now() else "EXPIRED",
            "create_time": _timestamp(self.create_time),
            "update_time": _timestamp(self.create_time),
            "expire_time": _timestamp(self.expire_time),
        }


def parse_lifetime(value: Any) -> int:
    """`lifetime` as the API takes it: seconds as a duration string ("3600s") or a number."""
    if value is None:
        return DEFAULT_LIFETIME_SECONDS
    match = _DURATION.match(str(value)) if isinstance(value, str | int) and \
        not isinstance(value, bool) else None
    seconds = int(float(match.group(1))) if match else 0
    if seconds <= 0 or seconds > MAX_LIFETIME_SECONDS:
        raise InvalidParameter(
            f"'lifetime' must be a duration in seconds such as \"3600s\", more than 0 and at "
            f"most {MAX_LIFETIME_SECONDS}s (730 days); leave it out for 730 days.")
    return seconds


class OAuthSecrets:
    def __init__(self, db: Database) -> None:
        self._db = db

    def create(self, application_id: str, lifetime_seconds: int) -> tuple[OAuthSecret, str]:
        """The new secret and its value (the only time the value is known)."""
        value = SECRET_PREFIX + secrets.token_hex(18)
        now = clock.now()
        secret = OAuthSecret(str(uuid.uuid4()), application_id, _sha256(value), now,
                             now + lifetime_seconds)
        with self._db.write() as conn:
            conn.execute(
                "INSERT INTO oauth_secrets (id, application_id, secret_sha256, create_time,"
                " expire_time) VALUES (?, ?, ?, ?, ?)",
                (secret.id, application_id, secret.secret_sha256, now, secret.expire_time))
        return secret, value

    def of(self, application_id: str) -> list[OAuthSecret]:
        with self._db.read() as conn:
            rows = conn.execute(
                "SELECT id, application_id, secret_sha256, create_time, expire_time"
                " FROM oauth_secrets WHERE application_id = ? ORDER BY create_time, id",
                (application_id,)).fetchall()
        return [OAuthSecret(**dict(row)) for row in rows]

    def delete(self, application_id: str, secret_id: str) -> None:
        with self._db.write() as conn:
            deleted = conn.execute(
                "DELETE FROM oauth_secrets WHERE application_id = ? AND id = ?",
                (application_id, secret_id)).rowcount
        if not deleted:
            raise NotFound(
                f"Secret {secret_id} does not exist for this service principal; list its "
                "secrets for the ids it has.")

    def verify(self, application_id: str, value: str) -> bool:
        """Whether `value` is an unexpired secret of the application."""
        presented = _sha256(value)
        now = clock.now()
        return any(hmac.compare_digest(s.secret_sha256, presented) and s.expire_time > now
                   for s in self.of(application_id))
