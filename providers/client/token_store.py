"""Tokens shared between the processes of one deployment, sealed with the client secret.

A `pulumi up` runs the program (whose WorkspaceAuth checks the credentials by fetching a
token) and the dynamic-provider host (whose resources need one) as two processes. Without
a shared cache each fetches its own token. This store keeps the token on local disk,
encrypted with a key derived from the client secret, so the second process reuses the
first one's token, and later runs reuse it until shortly before it expires. The file is
useless without the secret, which is what gets a token anyway; nothing goes into state.

Where: ``$WORKSPACE_TOKEN_CACHE_DIR/workspace-iac-tokens`` (a subdirectory of its own in
whatever directory the variable names, which may be shared), else
``$XDG_CACHE_HOME/workspace-iac/tokens``, else ``~/.cache/workspace-iac/tokens``. Set
``WORKSPACE_TOKEN_CACHE_DIR`` to ``off`` to keep tokens in memory only. Any unreadable,
foreign or stale file is a miss, never an error.

That directory is the store's own: whenever the store opens it, it makes it 0700 and its
token files 0600, whatever they were (an existing directory keeps the mode it was made
with otherwise). Writing a token also prunes the files of tokens long expired: those not
written for a day (``PRUNE_AFTER_SECONDS``; a file is rewritten with each new token, and
tokens live an hour), and temporary files a crashed write left. Only the store's own file
names are touched (``workspace-iac-<64 hex digits>.token``, ``.workspace-iac-token-*``):
nothing else in the directory is changed or removed. Keep it out of anything that is
uploaded or shared, such as a CI cache (docs/token-cache.md).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import stat
import tempfile
import time
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from providers.client import user_cache

CACHE_DIR_ENV = "WORKSPACE_TOKEN_CACHE_DIR"
_INFO = b"workspace-iac token cache v1"
DIRECTORY_MODE = 0o700
FILE_MODE = 0o600
PRUNE_AFTER_SECONDS = 24 * 3600.0
# The subdirectory the store keeps in a directory WORKSPACE_TOKEN_CACHE_DIR names.
SUBDIRECTORY = "workspace-iac-tokens"
_TOKEN_PREFIX = "workspace-iac-"
_TEMPORARY_PREFIX = ".workspace-iac-token-"
_TOKEN_FILE = re.compile(r"workspace-iac-[0-9a-f]{64}\.token")
_TEMPORARY_FILE = re.compile(r"\.workspace-iac-token-[A-Za-z0-9_]+")

Key = tuple[str, ...]


def cache_dir() -> Path | None:
    """The directory in force now: a subdirectory of the store's own where the variable
    names a directory (it may hold anything else), else the project's per-user one."""
    directory = user_cache.cache_dir(CACHE_DIR_ENV, "tokens")
    if directory is not None and os.environ.get(CACHE_DIR_ENV):
        return directory / SUBDIRECTORY
    return directory


class SharedTokenStore:
    """Sealed token records on disk, one file per cache key. Thread- and process-safe:
    writes go to a temporary file that replaces the record in one step."""

    def load(self, key: Key, secret: str) -> dict | None:
        path = self._path(key)
        if path is None:
            return None
        try:
            _tighten(path.parent, DIRECTORY_MODE)
            _tighten(path, FILE_MODE)
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
            path.parent.mkdir(mode=DIRECTORY_MODE, parents=True, exist_ok=True)
            _tighten(path.parent, DIRECTORY_MODE)
            _prune_and_tighten(path.parent, keep=path)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=_TEMPORARY_PREFIX)
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
        for path in directory.iterdir():
            if not _TOKEN_FILE.fullmatch(path.name):
                continue
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
        return directory / f"{_TOKEN_PREFIX}{name}.token"


def _tighten(path: Path, mode: int) -> None:
    """Give `path` exactly `mode` if it has more; a missing path or one this user may not
    change is left as it is."""
    try:
        if stat.S_IMODE(path.stat().st_mode) & ~mode:
            path.chmod(mode)
    except OSError:
        pass


def _prune_and_tighten(directory: Path, *, keep: Path) -> None:
    """Remove the store's token files not written for `PRUNE_AFTER_SECONDS` (their tokens
    expired long ago: the file of a key in use is rewritten with each new token) and its
    temporary files of crashed writes as old; make its other token files 0600. Files of
    other names are left as they are."""
    oldest = time.time() - PRUNE_AFTER_SECONDS
    for path in directory.iterdir():
        token_file = _TOKEN_FILE.fullmatch(path.name) is not None
        if path == keep or not (token_file or _TEMPORARY_FILE.fullmatch(path.name)):
            continue
        try:
            if not path.is_file() or path.is_symlink():
                continue
            if path.stat().st_mtime < oldest:
                path.unlink()
                continue
        except OSError:
            continue
        if token_file:
            _tighten(path, FILE_MODE)


def _fernet(key: Key, secret: str) -> Fernet:
    derived = HKDF(
        algorithm=hashes.SHA256(),
        length=32,
        salt="\n".join(key).encode(),
        info=_INFO,
    ).derive(secret.encode())
    return Fernet(base64.urlsafe_b64encode(derived))
