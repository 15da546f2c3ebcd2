"""The stack's configuration: connection settings and the desired workspace objects.

Everything lives under the `workspace` namespace of the stack's config file
(Pulumi.<stack>.yaml). The client secret is a secret (`pulumi config set --secret
workspace:clientSecret ...`), never an environment variable: the engine hides only the
secrets of the stack's config from its verbose logs.

`validate` judges the whole namespace before the program registers anything, so bad config
fails `pulumi preview` (and `pulumi up`) before any call to the workspace, with one line per
problem naming the key and the reason. `python -m stacks.config Pulumi.<stack>.yaml ...`
runs the same checks on config files without the engine.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pulumi
import pydantic
import yaml
from pulumi.runtime import config as runtime_config

from providers.auth import WorkspaceAuthArgs
from providers.catalog_binding import CatalogBindingProvider
from providers.client import Connection
from providers.job import JobProvider
from providers.job_permissions import JobPermissionsProvider
from providers.lifecycle import UNKNOWN, check_failures
from providers.repo_branch import RepoBranchProvider
from providers.secret_scope import SecretScopeProvider
from providers.service_principal import ServicePrincipalProvider

NAMESPACE = "workspace"
SECRET_KEY = "clientSecret"

# Connection settings: config key -> (WorkspaceAuthArgs / Connection field, required).
CONNECTION_KEYS: dict[str, tuple[str, bool]] = {
    "baseUrl": ("base_url", True),
    "authUrl": ("auth_url", True),
    "tenantId": ("tenant_id", True),
    "clientId": ("client_id", True),
    "resource": ("resource", True),
    "wireForm": ("wire_form", False),
    "allowInsecureHttp": ("allow_insecure_http", False),
    "timeoutSeconds": ("timeout_seconds", False),
    "maxAttempts": ("max_attempts", False),
    "maxRetrySeconds": ("max_retry_seconds", False),
    "rateLimitPerSecond": ("rate_limit_per_second", False),
}

# Object lists: config key -> the kind's input model (what its provider's check enforces).
OBJECT_LISTS: dict[str, type[pydantic.BaseModel]] = {
    "servicePrincipals": ServicePrincipalProvider.args_model,
    "secretScopes": SecretScopeProvider.args_model,
    "jobs": JobProvider.args_model,
    "jobPermissions": JobPermissionsProvider.args_model,
    "repoBranches": RepoBranchProvider.args_model,
    "catalogBindings": CatalogBindingProvider.args_model,
}

# Keys of a list item that belong to the stack, not to the kind (unless the kind has a field
# of that name): `name` is the Pulumi resource name, `job` names a job of this stack.
STACK_ITEM_KEYS: dict[str, tuple[str, ...]] = {"jobPermissions": ("name", "job")}

# Fields that identify the workspace object: two items of a list must not share one, or
# two resources would fight over one object.
IDENTITY_FIELDS: dict[str, tuple[str, ...]] = {
    "servicePrincipals": ("application_id",),
    "jobPermissions": ("job", "job_id"),
    "repoBranches": ("repo_path", "repo_id"),
    "catalogBindings": ("catalog_name",),
}

# Keys read by other parts of the program (lookups, actions, health gate): key -> the doc
# page describing it. One line per key; they are checked by their own code.
EXTENSION_KEYS: dict[str, str] = {
    "clusterStates": "docs/actions.md",
    "jobRuns": "docs/actions.md",
    "health": "docs/health.md",
    "flowPassword": "docs/health.md",
    "auditIgnore": "docs/audit.md",
}


class ConfigError(pulumi.RunError):
    """Bad stack configuration: names the key and the reason; fails preview."""


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
    stored encrypted (`secure:`)."""
    document = yaml.safe_load(path.read_text()) or {}
    prefix = f"{NAMESPACE}:"
    config = document.get("config") or {}
    values = {k.removeprefix(prefix): v for k, v in config.items() if k.startswith(prefix)}
    secrets = {k for k, v in values.items() if isinstance(v, Mapping) and set(v) == {"secure"}}
    return values, secrets


# --- judging -------------------------------------------------------------------------


def suggestion(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""


def problems(values: Mapping[str, Any], secret_keys: Iterable[str] = ()) -> list[str]:
    """Every problem of a stack's `workspace` config, one line each: `workspace:<key>: why`."""
    known = [*CONNECTION_KEYS, SECRET_KEY, *OBJECT_LISTS, *EXTENSION_KEYS]
    found = [
        f"{NAMESPACE}:{key}: unknown key{suggestion(key, known)}"
        for key in sorted(values)
        if key not in known
    ]
    if SECRET_KEY in values and SECRET_KEY not in set(secret_keys):
        found.append(
            f"{NAMESPACE}:{SECRET_KEY}: stored in plain text; set it with `pulumi config set "
            f"--secret {NAMESPACE}:{SECRET_KEY} <secret>`"
        )
    found += connection_problems(values)
    lists: dict[str, list[dict[str, Any]]] = {}
    for key in OBJECT_LISTS:
        items, list_problems = decoded_list(values, key)
        found += list_problems
        lists[key] = items
    job_names = {i.get("name") for i in lists["jobs"]}
    for key, items in lists.items():
        found += item_problems(key, items, job_names=job_names)
    from stacks.actions import problems as action_problems  # it builds on this module

    found += action_problems(values, {n for n in job_names if isinstance(n, str)})
    from stacks.health import problems as health_problems  # it builds on this module

    found += health_problems(values, secret_keys)
    return found


def validate(values: Mapping[str, Any], secret_keys: Iterable[str] = ()) -> None:
    found = problems(values, secret_keys)
    if found:
        raise ConfigError(f"the stack's config has {len(found)} problem(s):\n" + "\n".join(found))


def connection_problems(values: Mapping[str, Any]) -> list[str]:
    found = [
        f"{NAMESPACE}:{key}: required (`pulumi config set {NAMESPACE}:{key} <value>`)"
        for key, (_, required) in CONNECTION_KEYS.items()
        if required and values.get(key) in (None, "")
    ]
    if found:
        return found
    field_to_key = {fieldname: key for key, (fieldname, _) in CONNECTION_KEYS.items()}
    settings = {f: values[k] for k, (f, _) in CONNECTION_KEYS.items() if k in values}
    try:
        # The secret is judged where it is read (auth_args), never here.
        Connection.model_validate({**settings, "client_secret": "not-judged-here"})
    except pydantic.ValidationError as error:
        for issue in error.errors(include_url=False):
            fieldname = str(issue["loc"][0]) if issue["loc"] else ""
            key = field_to_key.get(fieldname)
            reason = issue["msg"].removeprefix("Value error, ")
            if key is None:  # a rule across fields: the reason names them
                key = "baseUrl" if "base_url" in reason else "authUrl"
            for fieldname, other in field_to_key.items():
                reason = reason.replace(fieldname, other)
            found.append(f"{NAMESPACE}:{key}: {reason}")
    return found


def decoded_list(values: Mapping[str, Any], key: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The list under `key` (the engine passes it as JSON text), or the problems with it."""
    value = values.get(key)
    if value is None:
        return [], []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return [], [f"{NAMESPACE}:{key}: must be a list of objects, got text"]
    if not isinstance(value, list):
        return [], [f"{NAMESPACE}:{key}: must be a list of objects, got {type_name(value)}"]
    found = [
        f"{NAMESPACE}:{key}[{index}]: must be an object, got {type_name(item)}"
        for index, item in enumerate(value)
        if not isinstance(item, dict)
    ]
    return ([] if found else value), found


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )


def name_problem(
    key: str, index: int, item: dict[str, Any], first_at: dict[str, int]
) -> str | None:
    """Why item `index` of list `key` has no usable resource name, if it has none; records
    the name's first place in `first_at` otherwise."""
    where = f"{NAMESPACE}:{key}[{index}]"
    name = item.get("name")
    if not isinstance(name, str) or not name.strip():
        return f"{where}.name: required (a non-empty string, the resource name)"
    if name in first_at:
        return f"{where}.name: {name!r} is declared twice (first at {key}[{first_at[name]}])"
    first_at[name] = index
    return None


def item_problems(key: str, items: list[dict[str, Any]], job_names: set[Any]) -> list[str]:
    model = OBJECT_LISTS[key]
    stack_keys = STACK_ITEM_KEYS.get(key, ("name",))
    found: list[str] = []
    first_name: dict[str, int] = {}
    first_identity: dict[tuple[str, str], int] = {}
    for index, item in enumerate(items):
        where = f"{NAMESPACE}:{key}[{index}]"
        if problem := name_problem(key, index, item, first_name):
            found.append(problem)
        for field in IDENTITY_FIELDS.get(key, ()):
            value = item.get(field)
            if value is None or isinstance(value, dict | list):
                continue
            identity = (field, json.dumps(value))
            if identity in first_identity:
                found.append(
                    f"{where}.{field}: {value!r} is also declared by "
                    f"{key}[{first_identity[identity]}]; one resource per object"
                )
            else:
                first_identity[identity] = index
        inputs = {k: v for k, v in item.items() if k in model.model_fields or k not in stack_keys}
        if key == "jobPermissions":
            found += job_reference_problems(where, item, job_names)
            if "job" in item:
                inputs["job_id"] = UNKNOWN  # known once the job exists
        for failure in check_failures(model, inputs):
            reason = failure.reason
            if reason == "Extra inputs are not permitted":
                unknown = failure.property.rsplit(".", 1)[-1]
                reason = f"unknown key{suggestion(unknown, field_names(model, stack_keys))}"
            found.append(f"{where}.{item_path(failure.property)}: {reason}")
    return found


def item_path(dotted: str) -> str:
    """`access_controls.0.group_name` -> `access_controls[0].group_name`."""
    path = ""
    for part in dotted.split("."):
        path += f"[{part}]" if part.isdigit() else f".{part}"
    return path.lstrip(".")


def job_reference_problems(where: str, item: Mapping[str, Any], job_names: set[Any]) -> list[str]:
    if "job" in item and "job_id" in item:
        return [f"{where}: give either job (a job of this stack) or job_id, not both"]
    if "job" not in item:
        return [] if "job_id" in item else [f"{where}.job: required (or job_id)"]
    job = item["job"]
    if job not in job_names:
        names = sorted(n for n in job_names if isinstance(n, str))
        hint = suggestion(str(job), names) or f" (jobs declared: {', '.join(names) or 'none'})"
        return [f"{where}.job: no job named {job!r} in {NAMESPACE}:jobs{hint}"]
    return []


def field_names(model: type[pydantic.BaseModel], extra: Iterable[str] = ()) -> set[str]:
    """Every field name anywhere in the model's tree (for "did you mean")."""
    names = set(extra)
    seen: set[type[pydantic.BaseModel]] = set()
    pending = [model]
    while pending:
        current = pending.pop()
        seen.add(current)
        for name, info in current.model_fields.items():
            names.add(name)
            pending += [t for t in nested_models(info.annotation) if t not in seen]
    return names


def nested_models(annotation: Any) -> list[type[pydantic.BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return [annotation]
    return [m for arg in getattr(annotation, "__args__", ()) for m in nested_models(arg)]


# --- what the program builds from it ---------------------------------------------------


def auth_args(config: pulumi.Config) -> WorkspaceAuthArgs:
    secret = config.get_secret(SECRET_KEY)
    if secret is None:
        raise ConfigError(
            f"{NAMESPACE}:{SECRET_KEY} is not set: run `pulumi config set --secret "
            f"{NAMESPACE}:{SECRET_KEY} <secret>`"
        )
    tuning: dict[str, Any] = {
        CONNECTION_KEYS[key][0]: read(key)
        for key, read in (
            ("timeoutSeconds", config.get_float),
            ("maxAttempts", config.get_int),
            ("maxRetrySeconds", config.get_float),
            ("rateLimitPerSecond", config.get_float),
        )
        if config.get(key) is not None
    }
    return WorkspaceAuthArgs(
        base_url=config.require("baseUrl"),
        auth_url=config.require("authUrl"),
        tenant_id=config.require("tenantId"),
        client_id=config.require("clientId"),
        client_secret=secret,
        resource=config.require("resource"),
        wire_form=config.get("wireForm") or "seed",
        allow_insecure_http=config.get_bool("allowInsecureHttp") or False,
        **tuning,
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


def main(paths: list[str]) -> int:
    """Checks config files; prints each problem; exit status 1 when there are any."""
    if not paths:
        print("usage: python -m stacks.config Pulumi.<stack>.yaml ...", file=sys.stderr)
        return 2
    status = 0
    for path in paths:
        found = problems(*file_values(Path(path)))
        for line in found:
            print(f"{path}: {line}")
        if found:
            status = 1
        else:
            print(f"{path}: ok")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
