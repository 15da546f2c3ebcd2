"""Tokens shared between the processes of one deployment, sealed with the client secret.

A `pulumi up` runs the program (whose WorkspaceAuth checks the credentials by fetching a
token) and the dynamic-provider host (whose resources need one) as two processes. Without
a shared cache each fetches its own token. This store keeps the token on local disk,
encrypted with a key derived from the client secret, so the second process reuses the
first one's token, and later runs reuse it until shortly before it expires. The file is
useless without the secret, which is what gets a token anyway; nothing goes into state.

Where: ``$WORKSPACE_TOKEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/workspace-iac/tokens``, else
``~/.cache/workspace-iac/tokens``. Set ``WORKSPACE_TOKEN_CACHE_DIR`` to ``off`` to keep
tokens in memory only. Any unreadable, foreign or stale file is a miss, never an error.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import tempfile
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from providers.client import user_cache

CACHE_DIR_ENV = "WORKSPACE_TOKEN_CACHE_DIR"
_INFO = b"workspace-iac token cache v1"

Key = tuple[str, ...]


def cache_dir() -> Path | None:
    """The directory in force now."""
    return user_cache.cache_dir(CACHE_DIR_ENV, "tokens")


class SharedTokenStore:
    """Sealed token records on disk, one file per cache key. Thread- and process-safe:
    writes go to a temporary file that replaces the record in one step."""

    def load(self, key: Key, secret: str) -> dict | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            sealed = path.read_bytes()
            record = json.loads(_fernet(key, secret).decrypt(sealed))
        except (OSError, InvalidToken, ValueError):
            return None
        return record if isinstance(record, dict) else None

    def save(self, key: Key, secret: str, record: dict) -> None:
        path = self._path(key)
        if path is None:
            return
        sealed = _fernet(key, secret).encrypt(json.dumps(record).encode())
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".token-")
            try:
                with os.fdopen(handle, "wb") as file:  # mkstemp makes it 0600
                    file.write(sealed)
                os.replace(temporary, path)
            except BaseException:
                os.unlink(temporary)
                raise
        except OSError:
            # A read-only or full disk only costs the next process a token request.
            return

    def remove(self, key: Key) -> None:
        path = self._path(key)
        if path is not None:
            try:
                path.unlink()
            except OSError:
                pass

    def clear(self) -> None:
        directory = cache_dir()
        if directory is None or not directory.is_dir():
            return
        for path in directory.glob("*.token"):
            try:
                path.unlink()
            except OSError:
                pass

    @staticmethod
    def _path(key: Key) -> Path | None:
        directory = cache_dir()
        if directory is None:
            return None
        name = hashlib.sha256("\n".join(key).encode()).hexdigest()
        return directory / f"{name}.token"


def _fernet(key: Key, secret: str) -> Fernet:
    derived = HKDF(
        algorithm=hashes.SHA256(),
        length=32,
        salt="\n".join(key).encode(),
        info=_INFO,
    ).derive(secret.encode())
    return Fernet(base64.urlsafe_b64encode(derived))
