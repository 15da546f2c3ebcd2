"""Access tokens the flow controller issues at login.

Tokens are shaped like NiFi's: a signed JWT whose body carries the user and the expiry.
The issuer also remembers every token it issued, so checking one is a lookup, not a
signature verification. (NiFi signs with a rotating asymmetric key; HS256 with a per-process
secret is enough here because no client verifies the signature.)
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import json
import secrets
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass

# NiFi's single-user login provider issues tokens valid for 12 hours.
DEFAULT_TOKEN_LIFETIME_SECONDS = 12 * 3600
ISSUER = "SingleUserLoginIdentityProvider"


class TokenState(enum.Enum):
    VALID = "valid"
    EXPIRED = "expired"
    UNKNOWN = "unknown"


@dataclass(frozen=True)
class IssuedToken:
    username: str
    expires_at: float


class FlowTokenIssuer:
    def __init__(
        self,
        clock: Callable[[], float],
        lifetime_seconds: float = DEFAULT_TOKEN_LIFETIME_SECONDS,
    ):
        self._clock = clock
        self._lifetime = lifetime_seconds
        self._secret = secrets.token_bytes(32)
        self._issued: dict[str, IssuedToken] = {}

    def issue(self, username: str) -> str:
        now = self._clock()
        self._forget_expired(now)
        expires_at = now + self._lifetime
        token = self._encode_jwt(
            {
                "sub": username,
                "iss": ISSUER,
                "aud": ISSUER,
                "preferred_username": username,
                "iat": int(now),
                "nbf": int(now),
                "exp": int(expires_at),
                "jti": str(uuid.uuid4()),
            }
        )
        self._issued[token] = IssuedToken(username, expires_at)
        return token

    def check(self, token: str) -> TokenState:
        issued = self._issued.get(token)
        if issued is None:
            return TokenState.UNKNOWN
        if self._clock() >= issued.expires_at:
            return TokenState.EXPIRED
        return TokenState.VALID

    def _forget_expired(self, now: float) -> None:
        # Keeps the table bounded, yet long enough after expiry that a late caller is told
        # its session expired rather than that its token is unknown.
        horizon = now - self._lifetime
        for token in [t for t, issued in self._issued.items() if issued.expires_at <= horizon]:
            del self._issued[token]

    def _encode_jwt(self, claims: dict[str, object]) -> str:
        header = {"alg": "HS256", "typ": "JWT"}
        signing_input = f"{_b64url_json(header)}.{_b64url_json(claims)}"
        signature = hmac.new(self._secret, signing_input.encode(), hashlib.sha256).digest()
        return f"{signing_input}.{_b64url(signature)}"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _b64url_json(value: Mapping[str, object]) -> str:
    return _b64url(json.dumps(value, separators=(",", ":")).encode())
