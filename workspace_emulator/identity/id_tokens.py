"""ID tokens (JWTs) the emulator mints as its stand-in of GitHub Actions' OIDC provider, and
checks when they come back as a federated credential.

Signed with HS256 by a key made at start-up and never stored or shown: only this process
can mint or verify them, so a token that verifies is one the emulator issued. The issuer is
GitHub's, so federation policies in the initial data read as they would in production.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import uuid
from typing import Any

from workspace_emulator import clock

GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com"
ID_TOKEN_LIFETIME_SECONDS = 300  # what GitHub gives its job tokens, about


class InvalidIdToken(Exception):
    """Why a presented ID token is not accepted; never holds the token itself."""


def _encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _decode(part: str) -> bytes:
    return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))


class IdTokenSigner:
    def __init__(self, issuer: str = GITHUB_ACTIONS_ISSUER) -> None:
        self.issuer = issuer
        self._key = secrets.token_bytes(32)

    def mint(self, subject: str, audience: str, extra_claims: dict[str, Any] | None = None,
             lifetime_seconds: int = ID_TOKEN_LIFETIME_SECONDS) -> str:
        now = int(clock.now())
        claims = {
            **(extra_claims or {}),
            "iss": self.issuer, "sub": subject, "aud": audience,
            "iat": now, "nbf": now, "exp": now + lifetime_seconds, "jti": str(uuid.uuid4()),
        }
        header = _encode(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        payload = _encode(json.dumps(claims, separators=(",", ":")).encode())
        return f"{header}.{payload}.{self._signature(header, payload)}"

    def verify(self, token: str) -> dict[str, Any]:
        """The claims of a token this emulator minted, unexpired; else InvalidIdToken."""
        parts = token.split(".")
        if len(parts) != 3:
            raise InvalidIdToken("the token is not a JWT (three dot-separated parts)")
        header, payload, signature = parts
        try:
            algorithm = json.loads(_decode(header)).get("alg")
            claims = json.loads(_decode(payload))
        except (ValueError, UnicodeDecodeError, AttributeError) as exc:
            raise InvalidIdToken("the token's header or payload is not base64url JSON") from exc
        if algorithm != "HS256" or not isinstance(claims, dict):
            raise InvalidIdToken("the token was not issued by this emulator's OIDC stand-in")
        if not hmac.compare_digest(signature, self._signature(header, payload)):
            raise InvalidIdToken(
                "the token's signature does not verify: it was not issued by this emulator "
                "process (tokens do not survive a restart)")
        now = clock.now()
        if not isinstance(claims.get("exp"), int | float) or claims["exp"] <= now:
            raise InvalidIdToken("the token has expired; request a new one")
        if isinstance(claims.get("nbf"), int | float) and claims["nbf"] > now:
            raise InvalidIdToken("the token is not valid yet (nbf)")
        return claims

    def _signature(self, header: str, payload: str) -> str:
        digest = hmac.new(self._key, f"{header}.{payload}".encode("ascii"), hashlib.sha256)
        return _encode(digest.digest())


def audiences_of(claims: dict[str, Any]) -> list[str]:
    audience = claims.get("aud")
    if isinstance(audience, str):
        return [audience]
    return [a for a in audience if isinstance(a, str)] if isinstance(audience, list) else []
