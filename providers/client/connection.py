"""Everything a provider needs to reach the workspace, as one frozen, validated value.

The tuning knobs follow the established clients of this service where they fit
(databricks-sdk / Terraform provider: ``http_timeout_seconds`` -> ``timeout_seconds``,
``retry_timeout_seconds`` -> ``max_retry_seconds``, ``rate_limit`` -> ``rate_limit_per_second``).
"""

from __future__ import annotations

import difflib
import functools
import ipaddress
import re
from collections.abc import Mapping
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from providers.client.auth_type import (
    CREDENTIAL_FIELDS,
    METHODS,
    SECRET_FIELDS,
    AuthType,
    known_names,
)


class WireForm(StrEnum):
    """Which spelling of the API (docs/api.md#wire-forms) the providers send: the public
    service's (the default) or the original specification's legacy one.

    `seed`, the legacy form's first name, still means `legacy` (deprecated): stack files
    and programs that say it keep working, and state recorded with it reads back as
    `legacy`."""

    LEGACY = "legacy"
    PUBLIC = "public"

    @classmethod
    def _missing_(cls, value: object) -> WireForm | None:
        return cls.LEGACY if value == DEPRECATED_LEGACY_NAME else None


# The deprecated name of WireForm.LEGACY.
DEPRECATED_LEGACY_NAME = "seed"
DEFAULT_WIRE_FORM = WireForm.PUBLIC


def deprecated_wire_form_warning(value: object) -> str | None:
    """What to tell a program or stack file that names a wire form by its deprecated name."""
    if value != DEPRECATED_LEGACY_NAME:
        return None
    return (
        f"wire form {DEPRECATED_LEGACY_NAME!r} is the deprecated name of "
        f"{WireForm.LEGACY.value!r} (the specification's legacy spelling of the API): it "
        f"means the same; say {WireForm.LEGACY.value!r}"
    )


class InsecureUrlError(ValueError):
    """An http:// address that is not allowed (TLS is never switched off silently)."""


def is_loopback_host(host: str) -> bool:
    """Literal loopback only: an address of 127.0.0.0/8 or ::1, or exactly `localhost`.
    Nothing is resolved, and `*.localhost` does not count: such a name reaches whatever a
    resolver, a hosts file or a proxy makes of it, and plain http (or the legacy form's
    secret in a URL) must never depend on that."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def require_secure_url(url: str, *, allow_insecure_http: bool, field: str = "url") -> str:
    """Return the URL without a trailing slash, or raise if it is not https (or allowed http)."""
    url = check_url_shape(url, field=field)
    if url.startswith("http://") and not allow_insecure_http:
        raise InsecureUrlError(
            f"{field} {url!r} uses http://; set allow_insecure_http to true to talk "
            "to a local emulator over plain http"
        )
    return url


# Characters no workspace URL holds: control characters and whitespace (which `urlsplit`
# drops or strips before judging, so a checked URL would not be the one used) and quotes
# and backslashes (a URL written into generated code or a shell must not end its string).
_NOT_IN_A_URL = re.compile(r"[\x00-\x20\x7f\"'`\\<>]")


def check_url_shape(url: str, *, field: str = "url") -> str:
    """An absolute https:// URL, or http:// to a loopback host; no credentials or query; as
    checked: scheme, host and path, without a trailing slash."""
    if _NOT_IN_A_URL.search(url):
        raise InsecureUrlError(
            f"{field} must be a plain URL, without spaces, control characters, quotes or "
            f"backslashes; got {url!r}"
        )
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise InsecureUrlError(f"{field} must be an absolute https:// URL, got {url!r}")
    if parts.query or parts.fragment:
        raise InsecureUrlError(f"{field} must not carry a query string or fragment")
    if parts.username or parts.password:
        raise InsecureUrlError(f"{field} must not carry credentials")
    if parts.scheme == "http" and not is_loopback_host(parts.hostname):
        raise InsecureUrlError(
            f"{field} {url!r} uses http:// on a non-loopback host; use https:// "
            "(plain http is only accepted for localhost with allow_insecure_http)"
        )
    return f"{parts.scheme}://{parts.netloc}{parts.path}".rstrip("/")


# Values the service's SDK hands to a command line (`az ... --tenant T --resource R`,
# `databricks auth token --profile P`), which on Windows runs through cmd.exe: only
# characters no shell gives a meaning to.
_GUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_DOMAIN = re.compile(
    r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
    r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
)
_RESOURCE_URL = re.compile(r"https://[A-Za-z0-9.-]+(?::[0-9]{1,5})?(?:/[A-Za-z0-9._~/-]*)?")
ACCOUNT_ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]{0,63}")
_PROFILE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")


def check_tenant_id(value: str) -> str:
    if _GUID.fullmatch(value) or _DOMAIN.fullmatch(value):
        return value
    raise ValueError(
        "tenant_id must be the tenant's id (a GUID) or one of its domain names (such as "
        "contoso.onmicrosoft.com): letters, digits, '-' and '.' only"
    )


def check_resource(value: str) -> str:
    if _GUID.fullmatch(value) or _RESOURCE_URL.fullmatch(value):
        return value
    raise ValueError(
        "resource must be the platform's application id (a GUID, such as "
        "2ff814a6-3304-4ab8-85cb-cd0e6f879c1d) or an https:// URL of letters, digits and "
        "'.', '-', '_', '~', '/' only"
    )


def check_profile(value: str) -> str:
    if _PROFILE.fullmatch(value):
        return value
    raise ValueError(
        "profile must be a profile's name of the service's config file: letters, digits, "
        "'-', '_' and '.' (not first), at most 128"
    )


class Connection(BaseModel):
    """How to reach and authenticate to one workspace."""

    # A validation error never prints the values given: a token given as a number would
    # be shown in it.
    model_config = ConfigDict(frozen=True, extra="ignore", hide_input_in_errors=True)

    base_url: str = Field(min_length=1)
    # None: not chosen, which means azure-client-secret (the one method before there was a
    # choice); `method` is the one in force. Only a chosen one is recorded.
    auth_type: AuthType | None = None
    auth_url: str | None = None
    tenant_id: str | None = None
    client_id: str | None = None
    client_secret: SecretStr | None = None
    resource: str | None = Field(
        default=None, description="the platform's application resource id (Azure methods)"
    )
    token: SecretStr | None = Field(default=None, description="a personal access token (pat)")
    profile: str | None = Field(
        default=None, description="a profile of the service's config file (databricks-cli)"
    )
    preview_client_id: str | None = Field(
        default=None,
        description="the read-only principal previews in CI sign in as (github-oidc methods)",
    )
    azure_workspace_resource_id: str | None = Field(
        default=None,
        description="the workspace's Azure resource id: also send the management token",
    )
    account_id: str | None = Field(
        default=None,
        description="the account's id: set, `base_url` is the account host and the "
        "connection reaches the account API (/api/2.0/accounts/<account_id>/...)",
    )
    wire_form: WireForm = DEFAULT_WIRE_FORM
    timeout_seconds: float = Field(default=30, gt=0)
    max_attempts: int = Field(default=6, ge=1)
    max_retry_seconds: float = Field(default=300, ge=0)
    rate_limit_per_second: float = Field(
        default=0,
        ge=0,
        description="a hard ceiling per endpoint family; 0: none, the client adapts to the "
        "service's 429s (providers/client/ratelimit.py)",
    )
    allow_insecure_http: bool = False

    @field_validator("auth_type", mode="before")
    @classmethod
    def _known_auth_type(cls, value: Any) -> Any:
        if value is None or value in AuthType.__members__.values():
            return value
        close = difflib.get_close_matches(str(value), [t.value for t in AuthType], n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ValueError(f"unknown auth type {value!r}: {hint}known ones: {known_names()}")

    @field_validator(
        "auth_url",
        "tenant_id",
        "client_id",
        "resource",
        "profile",
        "preview_client_id",
        "azure_workspace_resource_id",
    )
    @classmethod
    def _not_blank(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and not value.strip():
            raise ValueError(f"{info.field_name} must not be empty")
        return value

    @field_validator("tenant_id", "resource", "profile")
    @classmethod
    def _safe_for_a_command_line(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None or not value.strip():
            return value  # None, or blank: _not_blank says so
        check = {"tenant_id": check_tenant_id, "resource": check_resource}
        return check.get(info.field_name or "", check_profile)(value)

    @field_validator("account_id")
    @classmethod
    def _account_id_shape(cls, value: str | None) -> str | None:
        if value is not None and not ACCOUNT_ID_PATTERN.fullmatch(value):
            raise ValueError(
                "account_id must be the account's id, as the account console shows it (a "
                "GUID such as 8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c): letters, digits and '-'"
            )
        return value

    @field_validator("client_secret", "token")
    @classmethod
    def _secret_not_empty(cls, value: SecretStr | None, info: ValidationInfo) -> SecretStr | None:
        if value is not None and not value.get_secret_value():
            raise ValueError(f"{info.field_name} must not be empty")
        return value

    @field_validator("base_url", "auth_url")
    @classmethod
    def _url_shape(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        return check_url_shape(value, field=info.field_name or "url")

    @property
    def method(self) -> AuthType:
        return self.auth_type or AuthType.AZURE_CLIENT_SECRET

    @model_validator(mode="after")
    def _fields_of_the_method(self) -> Connection:
        """The method's required fields are set, and no other method's credentials are."""
        method = METHODS[self.method]
        missing = [name for name in method.required if getattr(self, name) is None]
        if missing:
            raise ValueError(
                f"auth type {self.method.value!r} needs {_listed(missing)}"
                + (
                    ""
                    if self.auth_type
                    else " (no auth_type was chosen, which means "
                    f"{AuthType.AZURE_CLIENT_SECRET.value!r}; known ones: {known_names()})"
                )
            )
        unused = [
            name
            for name in CREDENTIAL_FIELDS
            if getattr(self, name) is not None and name not in (*method.required, *method.optional)
        ]
        if unused:
            raise ValueError(
                f"auth type {self.method.value!r} does not use {_listed(unused)}: remove "
                f"{'it' if len(unused) == 1 else 'them'}, or choose the auth type that uses "
                f"{'it' if len(unused) == 1 else 'them'}"
            )
        return self

    @model_validator(mode="after")
    def _http_only_when_allowed(self) -> Connection:
        for name in ("base_url", "auth_url"):
            if getattr(self, name) is not None:
                require_secure_url(
                    getattr(self, name), allow_insecure_http=self.allow_insecure_http, field=name
                )
        return self

    def to_props(self) -> dict[str, Any]:
        """Plain values for Pulumi props, secrets included (the caller marks them secret);
        settings left unset are left out."""
        props = self.model_dump(mode="json", exclude_none=True)
        for name in SECRET_FIELDS:
            value = getattr(self, name)
            if value is not None:
                props[name] = value.get_secret_value()
        return props

    def secret_values(self) -> tuple[str, ...]:
        """The credentials' secret values, for redaction."""
        values = (getattr(self, name) for name in sorted(SECRET_FIELDS))
        return tuple(v.get_secret_value() for v in values if v is not None)

    @classmethod
    def from_props(cls, props: Mapping[str, Any]) -> Connection:
        """The connection of these settings (other keys are ignored). Connections are frozen,
        so the same settings give the same one, validated once: a refresh asks per resource."""
        # Typed: `1` and `True` are equal keys, not equal settings.
        settings = tuple(sorted((k, type(v), v) for k, v in props.items() if k in cls.model_fields))
        try:
            hash(settings)
        except TypeError:  # not plain settings: validation says which field is wrong
            return cls.model_validate({k: v for k, _, v in settings})
        return _validated(cls, settings)

    def cache_key(self) -> tuple[tuple[str, Any], ...]:
        """The identity of this connection without the secret value."""
        values = self.model_dump(mode="json", exclude=set(SECRET_FIELDS))
        return tuple(sorted(values.items()))


@functools.lru_cache(maxsize=16)
def _validated(cls: type[Connection], settings: tuple[tuple[str, type, Any], ...]) -> Connection:
    return cls.model_validate({k: v for k, _, v in settings})


def _listed(names: list[str]) -> str:
    return ", ".join(names)
