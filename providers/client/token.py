"""The token cache every sign-in method's tokens go through: when a token is fetched, reused
and shared between the processes of a deployment (the methods themselves are in
providers/client/sign_in/, the identity provider's request in token_request.py).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from providers.client import sign_in
from providers.client.auth_type import METHODS
from providers.client.connection import Connection
from providers.client.process import Store
from providers.client.token_request import AccessToken
from providers.client.token_store import SharedTokenStore

DEFAULT_REFRESH_MARGIN_SECONDS = 300.0


@dataclass(frozen=True)
class _Entry:
    token: AccessToken
    refresh_at: float


class TokenCache:
    """Tokens per sign-in identity and resource (``key``), reused until
    ``refresh_margin_seconds`` before they expire (at most half their lifetime). Thread-safe;
    concurrent requests for the same key make one token request. With a ``store``, the tokens
    of a method with a secret are also shared with the other processes of a deployment (the
    program and the provider host; see token_store)."""

    def __init__(
        self,
        *,
        refresh_margin_seconds: float = DEFAULT_REFRESH_MARGIN_SECONDS,
        clock: Callable[[], float] = time.time,
        store: SharedTokenStore | None = None,
    ) -> None:
        self.refresh_margin_seconds = refresh_margin_seconds
        self._clock = clock
        self._store = store
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, ...], _Entry] = {}
        self._key_locks: dict[tuple[str, ...], threading.Lock] = {}

    @staticmethod
    def key(connection: Connection, resource: str | None = None) -> tuple[str, ...]:
        """Who the token is for: the method and its identity (a digest of its secret too, so
        that another secret for the same principal, a wrong one as well, gets a token of
        its own), and the resource (the platform's application id, the management address,
        or for the service's own OAuth the workspace). Never a secret."""
        return (
            connection.method.value,
            _digest(connection.secret_values()),
            connection.auth_url or "",
            connection.tenant_id or "",
            connection.client_id or "",
            connection.profile or "",
            resource or platform_resource(connection),
        )

    def get(self, connection: Connection, resource: str | None = None) -> AccessToken:
        connection = sign_in.acting(connection)
        key = self.key(connection, resource)
        token = self._fresh(key)
        if token is not None:
            return token
        with self._key_lock(key):
            token = self._fresh(key) or self._from_store(key, connection)
            if token is not None:
                return token
            token = sign_in.fetch(connection, key[-1], now=self._clock)
            lifetime = max(0.0, token.expires_on - self._clock())
            margin = min(self.refresh_margin_seconds, lifetime / 2)
            entry = _Entry(token, token.expires_on - margin)
            with self._lock:
                self._entries[key] = entry
            secret = _sealing_secret(connection)
            if self._store is not None and secret is not None:
                self._store.save(key, secret, _record(entry))
            return token

    def _from_store(self, key: tuple[str, ...], connection: Connection) -> AccessToken | None:
        secret = _sealing_secret(connection)
        if self._store is None or secret is None:
            return None
        record = self._store.load(key, secret)
        if record is None:
            return None
        try:
            token = AccessToken(str(record["value"]), float(record["expires_on"]), key[-1])
            entry = _Entry(token, float(record["refresh_at"]))
        except (KeyError, TypeError, ValueError):
            return None
        with self._lock:
            self._entries[key] = entry
        return self._fresh(key)

    def holds(self, connection: Connection, resource: str | None = None) -> bool:
        """Whether a token for this connection is at hand (in memory or the shared store)
        that `get` would return without signing in anew."""
        connection = sign_in.acting(connection)
        key = self.key(connection, resource)
        return (self._fresh(key) or self._from_store(key, connection)) is not None

    def invalidate(
        self,
        connection: Connection,
        resource: str | None = None,
        *,
        stale: AccessToken | None = None,
    ) -> None:
        """Drop the cached token; with ``stale``, only if that is still the cached one
        (so a token another thread just fetched survives)."""
        key = self.key(sign_in.acting(connection), resource)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None and (stale is None or entry.token == stale):
                del self._entries[key]
                if self._store is not None:
                    self._store.remove(key)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
        if self._store is not None:
            self._store.clear()

    def _fresh(self, key: tuple[str, ...]) -> AccessToken | None:
        with self._lock:
            entry = self._entries.get(key)
        if entry is not None and self._clock() < entry.refresh_at:
            return entry.token
        return None

    def _key_lock(self, key: tuple[str, ...]) -> threading.Lock:
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())


def _digest(secrets: tuple[str, ...]) -> str:
    if not secrets:
        return ""
    return hashlib.sha256("\0".join(secrets).encode("utf-8", "surrogatepass")).hexdigest()[:32]


def platform_resource(connection: Connection) -> str:
    """What a platform token is issued for: the platform's application id where the method
    signs in with the identity provider, else the workspace itself."""
    return connection.resource or connection.base_url


def _sealing_secret(connection: Connection) -> str | None:
    field_name = METHODS[connection.method].sealing_field
    value: SecretStr | None = getattr(connection, field_name) if field_name else None
    return None if value is None else value.get_secret_value()


def _record(entry: _Entry) -> dict[str, Any]:
    # The refresh time as the fetching process set it (from the token's whole lifetime).
    return {
        "value": entry.token.value,
        "expires_on": entry.token.expires_on,
        "refresh_at": entry.refresh_at,
    }


# The cache every client and WorkspaceAuth use: one per process state (process.py).
tokens = Store("tokens", lambda: TokenCache(store=SharedTokenStore()))
