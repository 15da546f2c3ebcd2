"""A secret value known to the state only by its digest: what every kind holding a secret input
shares."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


def digest(value: bytes, salt: str | None = None) -> str:
    """`<salt>:<HMAC-SHA256 of the value under the salt>`; a fresh salt unless given."""
    salt = salt or secrets.token_hex(16)
    mac = hmac.new(bytes.fromhex(salt), value, hashlib.sha256).hexdigest()
    return f"{salt}:{mac}"


def same_value(recorded_digest: Any, value: bytes) -> bool:
    if not isinstance(recorded_digest, str) or ":" not in recorded_digest:
        return False
    salt = recorded_digest.split(":", 1)[0]
    try:
        return hmac.compare_digest(digest(value, salt), recorded_digest)
    except ValueError:  # not a hex salt
        return False
