"""The identity provider: registered applications and the tokens issued to them."""

from workspace_emulator.identity.models import (
    IdentityError,
    IdentityProvider,
    IssuedToken,
    TokenGrant,
)

__all__ = ["IdentityError", "IdentityProvider", "IssuedToken", "TokenGrant"]
