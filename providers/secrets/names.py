"""Secret scope names: their rule and how a secret names its scope (the secret kinds share them)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from providers.secrets.secret_scopes_api import SecretScopesApi

if TYPE_CHECKING:
    pass


SCOPE_NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,128}$")


def scope_names(client: Any) -> list[str]:
    return [str(scope["name"]) for scope in SecretScopesApi(client).list() if scope.get("name")]


def scope_name(value: str) -> str:
    if not SCOPE_NAME.match(value):
        raise ValueError("must be 1 to 128 characters of letters, digits, '-', '_' and '.'")
    return value
