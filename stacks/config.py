"""The stack's configuration: connection settings and the desired workspace objects.

Everything lives under the `workspace` namespace of the stack's config file
(Pulumi.<stack>.yaml). The client secret is a secret (`pulumi config set --secret
workspace:clientSecret ...`); the `local` stack may instead take it from the
WORKSPACE_CLIENT_SECRET environment variable, which the demo sets from the emulator.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import pulumi

from providers.auth import WorkspaceAuthArgs

NAMESPACE = "workspace"
SECRET_ENV = "WORKSPACE_CLIENT_SECRET"


class ConfigError(pulumi.RunError):
    """Bad stack configuration: names the key and the reason; fails preview."""


def auth_args(config: pulumi.Config) -> WorkspaceAuthArgs:
    secret = config.get_secret("clientSecret")
    if secret is None:
        from_env = os.environ.get(SECRET_ENV)
        if not from_env:
            raise ConfigError(
                f"{NAMESPACE}:clientSecret is not set: run `pulumi config set --secret "
                f"{NAMESPACE}:clientSecret <secret>` (or export {SECRET_ENV})"
            )
        secret = pulumi.Output.secret(from_env)
    return WorkspaceAuthArgs(
        base_url=config.require("baseUrl"),
        auth_url=config.require("authUrl"),
        tenant_id=config.require("tenantId"),
        client_id=config.require("clientId"),
        client_secret=secret,
        resource=config.require("resource"),
        wire_form=config.get("wireForm") or "seed",
        allow_insecure_http=config.get_bool("allowInsecureHttp") or False,
    )


def object_list(config: pulumi.Config, key: str) -> list[dict[str, Any]]:
    """A list of objects under `key` (default empty), each with a unique `name`."""
    value = config.get_object(key) or []
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ConfigError(f"{NAMESPACE}:{key} must be a list of objects")
    names = [item.get("name") for item in value]
    for index, name in enumerate(names):
        if not isinstance(name, str) or not name:
            raise ConfigError(f"{NAMESPACE}:{key}[{index}].name is required (a non-empty string)")
        if names.count(name) > 1:
            raise ConfigError(f"{NAMESPACE}:{key}[{index}].name {name!r} is declared twice")
    return value


def build_args(
    args_class: type, item: dict[str, Any], where: str, stack_keys: tuple[str, ...] = ("name",)
) -> Any:
    """The kind's args from a config item. `stack_keys` (the resource name, references) are
    the stack's own unless the args class has a field of that name; any other unknown key
    fails, naming itself."""
    fields = {f.name for f in dataclasses.fields(args_class)}
    payload = {k: v for k, v in item.items() if k in fields or k not in stack_keys}
    try:
        return args_class(**payload)
    except TypeError as error:
        reason = str(error).replace(f"{args_class.__name__}.__init__() ", "")
        raise ConfigError(f"{NAMESPACE}:{where}: {reason}") from None
