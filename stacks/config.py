"""The stack's settings: one model, parsed once, from the engine's config or from a file.

Everything lives under the `workspace` namespace of the stack's config file
(Pulumi.<stack>.yaml): the connection, one list per resource kind (the kind's `config_key`
in providers/core/registry.py), and the health gate's and the audit's settings. The client
secret is a secret (`pulumi config set --secret workspace:clientSecret ...`), never an
environment variable: the engine hides only the secrets of the stack's config from its
verbose logs.

`load_from_engine()` (the stack program) and `load_from_file()` (`workspace-iac check`,
stacks/check.py, offline) judge the whole namespace before anything is registered:
bad config fails `pulumi preview` before any call to the workspace, with one line per
problem naming the key and the reason (stacks/config_problems.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import yaml
from pulumi.runtime import config as runtime_config

from providers.auth.component import WorkspaceAuthArgs
from providers.client.auth_type import METHODS
from providers.core.registry import config_keys
from stacks.config_rules import (
    CONNECTION_KEYS,
    SECRET_KEYS,
    SECRET_PLACEHOLDER,
    account_kinds_declared,
    account_overrides,
    decoded_list,
    decoded_object,
    method_of,
    missing_problem,
    problems,
    validate,
    warnings,
)
from stacks.errors import NAMESPACE, ConfigError
from stacks.health_settings import HEALTH_KEY, PASSWORD_KEY, HealthSettings, parse_settings


@dataclass(frozen=True)
class StackSettings:
    """The stack's `workspace:*` config, judged and decoded."""

    values: Mapping[str, Any]
    lists: Mapping[str, list[dict[str, Any]]]
    health: HealthSettings | None
    # The credentials' secrets (connection field -> the engine's secret Output), as the
    # stack sets them; empty offline.
    credentials: Mapping[str, Any] = field(default_factory=dict)
    flow_password: Any = None
    secret_keys: frozenset[str] = field(default_factory=frozenset)

    def items(self, config_key: str) -> list[dict[str, Any]]:
        return self.lists.get(config_key, [])

    def auth_args(self) -> WorkspaceAuthArgs:
        return connection_args(self.values, self.credentials)

    @property
    def has_account_items(self) -> bool:
        return bool(account_kinds_declared(self.lists))

    def account_auth_args(self) -> WorkspaceAuthArgs:
        """The account connection: the workspace's sign-in, at the account host, with the
        account's id (docs/account.md). Only where `has_account_items` (the config rules
        then require both settings)."""
        return dataclasses.replace(self.auth_args(), **account_overrides(self.values))

    @property
    def allow_insecure_http(self) -> bool:
        return _boolean(self.values.get("allowInsecureHttp"))


def connection_args(values: Mapping[str, Any], credentials: Mapping[str, Any]) -> WorkspaceAuthArgs:
    """The connection settings of a stack's config (keys without namespace) and its secret
    credentials, as the WorkspaceAuth component takes them; it validates them (text from
    the engine included), and names what its auth type is missing."""
    settings = {
        fieldname: values[key]
        for key, (fieldname, _) in CONNECTION_KEYS.items()
        if values.get(key) is not None
    }
    settings["allow_insecure_http"] = _boolean(settings.get("allow_insecure_http"))
    method = method_of(settings.get("auth_type"))
    if method is not None:
        missing = [
            missing_problem(key, method, chosen="auth_type" in settings)
            for key, fieldname in SECRET_KEYS.items()
            if fieldname in METHODS[method].required and fieldname not in credentials
        ]
        if missing:
            raise ConfigError("\n".join(missing))
    return WorkspaceAuthArgs(**settings, **credentials)


def _boolean(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value)


# --- reading -------------------------------------------------------------------------


def namespace_values() -> tuple[dict[str, Any], set[str]]:
    """The `workspace:*` config of the running program (key without namespace -> value as
    the engine passes it, a string) and which of those keys are secrets."""
    prefix = f"{NAMESPACE}:"
    merged = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    values = {k.removeprefix(prefix): v for k, v in merged.items() if k.startswith(prefix)}
    secret_keys = set(runtime_config.get_config_secret_keys_env())
    secret_keys |= {k for k in merged if runtime_config.is_config_secret(k)}
    return values, {k.removeprefix(prefix) for k in secret_keys if k.startswith(prefix)}


def file_values(path: Path) -> tuple[dict[str, Any], set[str]]:
    """The same from a Pulumi.<stack>.yaml file: values as YAML parsed them, and the keys
    stored encrypted as a whole (`secure:`). A value encrypted inside a list or object
    (`pulumi config set --secret --path ...`) reads as SECRET_PLACEHOLDER: offline it is
    not decrypted, and its key is not named secret, so every other value of that key is
    judged as plain text (the running program gets them decrypted, its key secret)."""
    document = yaml.safe_load(path.read_text()) or {}
    prefix = f"{NAMESPACE}:"
    config = document.get("config") or {}
    values = {k.removeprefix(prefix): v for k, v in config.items() if k.startswith(prefix)}
    secrets = {k for k, v in values.items() if _encrypted(v)}
    return {k: v if k in secrets else _placeholders(v) for k, v in values.items()}, secrets


def _encrypted(value: Any) -> bool:
    """`{secure: <ciphertext>}`, how Pulumi stores an encrypted config value."""
    return (
        isinstance(value, Mapping) and set(value) == {"secure"} and isinstance(value["secure"], str)
    )


def _placeholders(value: Any) -> Any:
    if _encrypted(value):
        return SECRET_PLACEHOLDER
    if isinstance(value, Mapping):
        return {k: _placeholders(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_placeholders(v) for v in value]
    return value


# --- loading -------------------------------------------------------------------------


def load(
    values: Mapping[str, Any], secret_keys: set[str] | frozenset[str] = frozenset()
) -> StackSettings:
    """The settings, or ConfigError listing every problem at once."""
    validate(values, secret_keys)
    raw_health = decoded_object(values, HEALTH_KEY)
    return StackSettings(
        values=dict(values),
        lists={key: decoded_list(values, key)[0] for key in config_keys()},
        health=None if raw_health is None else parse_settings(raw_health),
        secret_keys=frozenset(secret_keys),
    )


def load_from_engine() -> StackSettings:
    """The running program's settings, secrets as the engine's secret Outputs."""
    values, secret_keys = namespace_values()
    config = pulumi.Config(NAMESPACE)
    return dataclasses.replace(
        load(values, secret_keys),
        credentials=secret_credentials(config),
        flow_password=config.get_secret(PASSWORD_KEY),
    )


def load_from_file(path: Path) -> StackSettings:
    return load(*file_values(path))


def auth_args() -> WorkspaceAuthArgs:
    """The connection of the running program's stack config, for programs that declare
    their own objects (the benchmark's, tests'): no other key is judged."""
    values, _ = namespace_values()
    return connection_args(values, secret_credentials(pulumi.Config(NAMESPACE)))


def secret_credentials(config: pulumi.Config) -> dict[str, Any]:
    """The stack's secret credentials (connection field -> secret Output) it sets."""
    found = {fieldname: config.get_secret(key) for key, fieldname in SECRET_KEYS.items()}
    return {fieldname: value for fieldname, value in found.items() if value is not None}


def report_file(path: Path, label: str, more: Sequence[str] = ()) -> bool:
    """Checks one config file offline: prints its warnings and each problem (or `ok`), each
    line starting with `label`; whether it has none. `more`: problems found beside the
    file's own (the project's, stacks.check)."""
    values, secret_keys = file_values(path)
    for line in warnings(values):
        print(f"{label}: warning: {line}")
    found = [*problems(values, secret_keys), *more]
    for line in found:
        print(f"{label}: {line}")
    if not found:
        print(f"{label}: ok")
    return not found
