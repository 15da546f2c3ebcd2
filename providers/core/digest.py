"""What the state knows of a value instead of the value: a secret input's salted digest (what
every kind holding a secret input shares), and the SHA-256 of a file's bytes, read in chunks
(a volume file's content, which may be a wheel of tens of megabytes)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from pathlib import Path
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


CHUNK_BYTES = 1024 * 1024  # what a file's digest or upload holds of it at a time


def file_chunks(path: Path, chunk_bytes: int = CHUNK_BYTES) -> Iterable[bytes]:
    """The file's bytes, `chunk_bytes` at a time."""
    with path.open("rb") as stream:
        while chunk := stream.read(chunk_bytes):
            yield chunk


def sha256_of(chunks: Iterable[bytes]) -> str:
    """The SHA-256 (hex) of the bytes the chunks hold in turn, none held beyond its own."""
    hashed = hashlib.sha256()
    for chunk in chunks:
        hashed.update(chunk)
    return hashed.hexdigest()
