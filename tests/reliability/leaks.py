"""Finding secrets in text: the client secret by value, and access tokens by shape, each
candidate checked against the hashes of the tokens the emulator issued (it keeps no token
in plain text, only its SHA-256)."""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path

from workspace_emulator.storage import DATABASE_FILE

# secrets.token_urlsafe(32): 43 characters of the URL-safe alphabet.
TOKEN_SHAPE = re.compile(r"(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])")


def issued_token_hashes(data_dir: Path) -> set[str]:
    with sqlite3.connect(data_dir / DATABASE_FILE) as conn:
        return {row[0] for row in conn.execute("SELECT token_sha256 FROM tokens")}


def leaked_tokens(text: str, token_hashes: set[str]) -> list[str]:
    return [
        candidate[:6] + "..."
        for candidate in set(TOKEN_SHAPE.findall(text))
        if hashlib.sha256(candidate.encode()).hexdigest() in token_hashes
    ]


def leaks(text: str, client_secret: str, token_hashes: set[str]) -> list[str]:
    found = ["client secret"] if client_secret in text else []
    return found + [f"token {t}" for t in leaked_tokens(text, token_hashes)]
