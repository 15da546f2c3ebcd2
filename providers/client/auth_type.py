"""How a connection signs in: the methods (`workspace:authType`), named as the service's
own unified client configuration names them, and the connection fields each one uses.

A method's `required` fields must be set, its `optional` ones may be; any other credential
field set beside it is refused, so that a stack never carries a secret nothing reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class AuthType(StrEnum):
    AZURE_CLIENT_SECRET = "azure-client-secret"
    OAUTH_M2M = "oauth-m2m"
    PAT = "pat"
    AZURE_CLI = "azure-cli"
    AZURE_MSI = "azure-msi"
    GITHUB_OIDC = "github-oidc"
    GITHUB_OIDC_AZURE = "github-oidc-azure"
    DATABRICKS_CLI = "databricks-cli"


@dataclass(frozen=True)
class Method:
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    # The secret field a token cached on disk is sealed with (token_store); None: the
    # method has no secret of its own, and its tokens are kept in memory only.
    sealing_field: str | None = None
    # Whether it signs in with the identity provider (Azure AD) and so can also fetch the
    # management token (`azure_workspace_resource_id`).
    azure: bool = False


METHODS: dict[AuthType, Method] = {
    AuthType.AZURE_CLIENT_SECRET: Method(
        required=("auth_url", "tenant_id", "client_id", "client_secret", "resource"),
        optional=("azure_workspace_resource_id",),
        sealing_field="client_secret",
        azure=True,
    ),
    AuthType.OAUTH_M2M: Method(
        required=("client_id", "client_secret"), sealing_field="client_secret"
    ),
    AuthType.PAT: Method(required=("token",)),
    AuthType.AZURE_CLI: Method(
        required=("resource",), optional=("tenant_id", "azure_workspace_resource_id"), azure=True
    ),
    AuthType.AZURE_MSI: Method(
        required=("resource",), optional=("client_id", "azure_workspace_resource_id"), azure=True
    ),
    AuthType.GITHUB_OIDC: Method(required=("client_id",)),
    AuthType.GITHUB_OIDC_AZURE: Method(
        required=("auth_url", "tenant_id", "client_id", "resource"),
        optional=("azure_workspace_resource_id",),
        azure=True,
    ),
    AuthType.DATABRICKS_CLI: Method(required=(), optional=("profile",)),
}

# Every field some method reads for its credentials.
CREDENTIAL_FIELDS: tuple[str, ...] = tuple(
    dict.fromkeys(name for m in METHODS.values() for name in (*m.required, *m.optional))
)
SECRET_FIELDS = frozenset({"client_secret", "token"})


def known_names() -> str:
    return ", ".join(repr(t.value) for t in AuthType)


def config_key(field_name: str) -> str:
    """A connection field's key in a stack's config, without the namespace."""
    head, *rest = field_name.split("_")
    return head + "".join(part.title() for part in rest)


# Methods whose token is the credential itself, or may be (a profile's personal access
# token): only a call to the workspace shows whether the service still takes it.
UNPROVEN_BY_A_TOKEN = frozenset({AuthType.PAT, AuthType.DATABRICKS_CLI})

_FIELD_NAMES = re.compile(
    r"\b("
    + "|".join(sorted(("auth_type", "base_url", *CREDENTIAL_FIELDS), key=len, reverse=True))
    + r")\b"
)


def with_config_keys(text: str) -> str:
    """`text` with each connection field it names followed by the stack config key."""
    return _FIELD_NAMES.sub(lambda m: f"{m[1]} (workspace:{config_key(m[1])})", text)
