"""The keys a stack's `workspace:*` config may have and the rules each follows.

`problems` judges the whole namespace without a call to the workspace and returns one line
per problem, `workspace:<key>: why`, with did-you-mean for unknown keys. The lists are the
kinds' (providers/core/registry.py): each item is a kind's inputs plus a unique `name` (the
resource name) and the kind's references to other lists of the stack.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pydantic

from providers.client import Connection
from providers.client.auth_type import METHODS, AuthType, config_key
from providers.client.connection import (
    ACCOUNT_ID_PATTERN,
    deprecated_wire_form_warning,
    require_secure_url,
)
from providers.core.kind import (
    Kind,
    Lookup,
    Reference,
    nested_holders,
    reference_for,
    with_nested_references,
)
from providers.core.lifecycle import UNKNOWN
from providers.core.registry import by_config_key, config_keys, kind_for_key
from providers.core.service_names import StackNames
from stacks import split
from stacks.errors import NAMESPACE, ConfigError, plain_text_problem
from stacks.health_settings import HEALTH_KEY, PASSWORD_KEY
from stacks.health_settings import problems as health_problems

# The credentials that are secrets: config key -> connection field.
SECRET_KEYS: dict[str, str] = {"clientSecret": "client_secret", "token": "token"}

# What the offline check (`workspace-iac check`) reads in place of a value stored
# encrypted inside a list or object (`pulumi config set --secret --path ...` writes
# `{secure: v1:...}` there): not decrypted, so not judged but as a secret (an unknown).
SECRET_PLACEHOLDER = UNKNOWN

# Connection settings: config key -> (WorkspaceAuthArgs / Connection field, required).
# Which of `authType`'s keys a stack needs depends on the method: Connection says.
CONNECTION_KEYS: dict[str, tuple[str, bool]] = {
    "baseUrl": ("base_url", True),
    "authType": ("auth_type", False),
    "authUrl": ("auth_url", False),
    "tenantId": ("tenant_id", False),
    "clientId": ("client_id", False),
    "resource": ("resource", False),
    "profile": ("profile", False),
    "previewClientId": ("preview_client_id", False),
    "azureWorkspaceResourceId": ("azure_workspace_resource_id", False),
    "wireForm": ("wire_form", False),
    "allowInsecureHttp": ("allow_insecure_http", False),
    "timeoutSeconds": ("timeout_seconds", False),
    "maxAttempts": ("max_attempts", False),
    "maxRetrySeconds": ("max_retry_seconds", False),
    "rateLimitPerSecond": ("rate_limit_per_second", False),
}

# Keys that are neither the connection nor a kind's list: key -> the doc page describing it.
EXTENSION_KEYS: dict[str, str] = {
    HEALTH_KEY: "docs/health.md",
    PASSWORD_KEY: "docs/health.md",
    "auditIgnore": "docs/audit.md",
    "accountId": "docs/account.md",
    "accountHost": "docs/account.md",
    "guardrails": "docs/guardrails.md",
    "guardrailRules": "docs/guardrails.md",
    split.OWNS_KEY: "docs/split.md",
    split.USES_KEY: "docs/split.md",
    "singleWrite": "docs/state.md",
}
# The account connection's own settings (docs/account.md); its sign-in is the workspace's.
ACCOUNT_HOST_KEY = "accountHost"
ACCOUNT_ID_KEY = "accountId"


class Elsewhere(set):
    """The item names of a list another stack owns (`workspace:owns`), which this one names
    through `workspace:uses`: unknown offline (any name may be one), resolved from those
    stacks' outputs."""

    def __contains__(self, value: object) -> bool:
        return isinstance(value, str)


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


def decoded_object(values: Mapping[str, Any], key: str) -> Any:
    value = values.get(key)
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return "text"
    return value


def type_name(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "a boolean"}.get(
        type(value), "a number" if isinstance(value, int | float) else type(value).__name__
    )


# --- judging -------------------------------------------------------------------------


def suggestion(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""


def problems(values: Mapping[str, Any], secret_keys: Iterable[str] = ()) -> list[str]:
    """Every problem of a stack's `workspace` config, one line each: `workspace:<key>: why`."""
    keys = config_keys()
    known = [*CONNECTION_KEYS, *SECRET_KEYS, *keys, *EXTENSION_KEYS]
    found = [
        f"{NAMESPACE}:{key}: unknown key{suggestion(key, known)}"
        for key in sorted(values)
        if key not in known
    ]
    secret_keys = set(secret_keys)
    found += [
        plain_text_problem(key) for key in SECRET_KEYS if key in values and key not in secret_keys
    ]
    found += connection_problems(values)
    lists: dict[str, list[dict[str, Any]]] = {}
    for key in keys:
        items, list_problems = decoded_list(values, key)
        found += list_problems
        lists[key] = items
    names: dict[str, set[Any]] = {
        key: {i.get("name") for i in items} for key, items in lists.items()}
    found += split.problems(values)
    owned = split.owned_keys(values)
    if owned is not None and split.used_stacks(values):
        names.update({key: Elsewhere() for key in keys if key not in owned})
    # Only the kinds of the lists the stack declares are loaded and asked.
    declared = declared_kinds(lists)
    for key, kind in declared.items():
        found += item_problems(kind, lists[key], names)
        if key not in secret_keys:
            found += plain_secret_values(kind, lists[key])
    found += same_object_problems(StackNames(list(declared.values()), lists), lists)
    found += account_problems(values, lists)
    found += health_problems(values, secret_keys)
    return found


def same_object_problems(
    names: StackNames, lists: Mapping[str, list[dict[str, Any]]]
) -> list[str]:
    """Two items of a list naming one object as the service writes its name (`Sales` and
    `sales`; a schema given by `catalog:` and one by `catalog_name:`): a name field naming
    it could not tell which one it means. Where the kind's identity rule already says so
    (the same value twice), it is not said again."""
    found = []
    for key, index, first, name in names.twice:
        kind = names.by_key[key]
        items = lists[key]
        if kind.identity == kind.named_as and all(
            items[index].get(f) == items[first].get(f) for f in kind.identity
        ):
            continue
        found.append(
            f"{NAMESPACE}:{key}[{index}]: names the object {name!r} as {key}[{first}] does; "
            "one resource per object (remove one item)"
        )
    return found


def explained(values: Mapping[str, Any]) -> list[str]:
    """What each API name field of each item names (`workspace-iac check --explain`), one
    line each: the item of the stack it resolved to (the item waits for it), or a plain
    name, sent as it is."""
    kinds = by_config_key()
    lists = {key: decoded_list(values, key)[0] for key in kinds}
    names = StackNames(list(kinds.values()), lists)
    lines = []
    for key, items in lists.items():
        for index, item in enumerate(items):
            where = f"{NAMESPACE}:{key}[{index}]"
            for match in names.matches(kinds[key], item):
                said = f"{where}.{match.where}: {match.value!r}"
                if match.target is not None:
                    target_key, target_name = match.target
                    lines.append(f"{said} -> {target_key} item {target_name!r} "
                                 f"({match.name}); waits for it")
                else:
                    lines.append(f"{said} stays a plain name (no item of the stack)")
    return lines


def declared_kinds(lists: Mapping[str, Sequence[Mapping[str, Any]]]) -> dict[str, Kind]:
    """The kinds whose lists have items, by config key, in the registry's order: the only
    kinds a stack's program and its config rules load (a kind's module, its model)."""
    return {key: kind_for_key(key) for key in config_keys() if lists.get(key)}


def account_kinds_declared(lists: Mapping[str, list[dict[str, Any]]]) -> list[str]:
    """The config keys of the account-level kinds whose lists have items."""
    return [key for key, kind in declared_kinds(lists).items() if kind.account_level]


def account_overrides(values: Mapping[str, Any]) -> dict[str, Any]:
    """What the account connection changes of the workspace's (keys without namespace): the
    account host and the account's id; the workspace's alone (its Azure resource, its wire
    form) left out. The sign-in is the workspace's. The stack program
    (`StackSettings.account_auth_args`), the audit and adopt (stacks/audit.py) make it so."""
    return {"base_url": values[ACCOUNT_HOST_KEY], "account_id": values[ACCOUNT_ID_KEY],
            "azure_workspace_resource_id": None, "wire_form": None}


def account_problems(values: Mapping[str, Any],
                     lists: Mapping[str, list[dict[str, Any]]]) -> list[str]:
    """The account connection's settings: both needed once an account-level list has
    items; the host judged as the workspace's is."""
    declared = account_kinds_declared(lists)
    found = []
    if declared:
        needs = ", ".join(f"{NAMESPACE}:{key}" for key in declared)
        hints = {ACCOUNT_HOST_KEY: "the account host, e.g. https://accounts.cloud.databricks.com",
                 ACCOUNT_ID_KEY: "the account's id, from the account console"}
        found += [
            f"{NAMESPACE}:{key}: required by the account's items ({needs}): "
            f"`pulumi config set {NAMESPACE}:{key} <{hint}>`"
            for key, hint in hints.items() if values.get(key) in (None, "")]
    host = values.get(ACCOUNT_HOST_KEY)
    if host not in (None, ""):
        try:
            require_secure_url(str(host), field=f"{NAMESPACE}:{ACCOUNT_HOST_KEY}",
                               allow_insecure_http=str(values.get("allowInsecureHttp",
                                                                  "")).lower() == "true")
        except ValueError as error:
            found.append(f"{NAMESPACE}:{ACCOUNT_HOST_KEY}: {error}")
    account_id = values.get(ACCOUNT_ID_KEY)
    if account_id not in (None, "") and not (
            isinstance(account_id, str) and ACCOUNT_ID_PATTERN.fullmatch(account_id)):
        found.append(f"{NAMESPACE}:{ACCOUNT_ID_KEY}: must be the account's id, as the account "
                     "console shows it (letters, digits and '-', e.g. "
                     f"8e2f4a6c-1b3d-4f5e-9a7c-2d4f6b8e0a1c), got {account_id!r}")
    return found


def validate(values: Mapping[str, Any], secret_keys: Iterable[str] = ()) -> None:
    found = problems(values, secret_keys)
    if found:
        raise ConfigError(f"the stack's config has {len(found)} problem(s):\n" + "\n".join(found))


def warnings(values: Mapping[str, Any]) -> list[str]:
    """What a stack's config may say but should not, one line each: `workspace:<key>: why`.
    None of it fails the config."""
    found = []
    if (warning := deprecated_wire_form_warning(values.get("wireForm"))) is not None:
        found.append(f"{NAMESPACE}:wireForm: {warning}")
    return found


def connection_settings(values: Mapping[str, Any]) -> dict[str, Any]:
    """The connection fields a stack's config sets (keys without namespace)."""
    keys = {key: fieldname for key, (fieldname, _) in CONNECTION_KEYS.items()} | SECRET_KEYS
    return {f: values[k] for k, f in keys.items() if values.get(k) not in (None, "")}


def connection_problems(values: Mapping[str, Any]) -> list[str]:
    found = [
        f"{NAMESPACE}:{key}: required (`pulumi config set {NAMESPACE}:{key} <value>`)"
        for key, (_, required) in CONNECTION_KEYS.items()
        if required and values.get(key) in (None, "")
    ]
    settings = connection_settings(values)
    method = method_of(settings.get("auth_type"))
    if method is not None:
        found += [
            missing_problem(config_key(name), method, chosen="auth_type" in settings)
            for name in METHODS[method].required
            if name not in settings and name not in SECRET_KEYS.values()
        ]
    if found:
        return found
    # The secrets' values are judged where they are read (WorkspaceAuth, stacks/config.py),
    # never here: the offline check has them encrypted. Whether one is set is: a required
    # one counts as set, and one the method does not use is refused by name.
    secrets = {f for f in SECRET_KEYS.values() if f in settings}
    if method is not None:
        secrets |= set(METHODS[method].required) & set(SECRET_KEYS.values())
    settings |= {f: "not-judged-here" for f in secrets}
    try:
        Connection.model_validate(settings)
    except pydantic.ValidationError as error:
        for issue in error.errors(include_url=False):
            reason = issue["msg"].removeprefix("Value error, ")
            # A rule across fields has no place: the first field its reason names.
            named = _FIELD_NAMES.search(reason)
            fieldname = str(issue["loc"][0]) if issue["loc"] else named[1] if named else ""
            key = config_key(fieldname or "auth_type")
            found.append(f"{NAMESPACE}:{key}: {_with_keys(reason)}")
    return found


def method_of(auth_type: Any) -> AuthType | None:
    if auth_type is None:
        return AuthType.AZURE_CLIENT_SECRET
    try:
        return AuthType(auth_type)
    except ValueError:
        return None  # Connection's validation names it, with did-you-mean


def missing_problem(key: str, method: AuthType, *, chosen: bool) -> str:
    """`key` is missing for `method`, which the stack `chosen` or left to the default."""
    secret = " --secret" if key in SECRET_KEYS else ""
    default = "" if chosen else " (the default)"
    return (
        f"{NAMESPACE}:{key}: required (`pulumi config set{secret} {NAMESPACE}:{key} <value>`) "
        f"by authType {method.value!r}{default}"
    )


_FIELD_NAMES = re.compile(
    r"\b(" + "|".join(sorted(Connection.model_fields, key=len, reverse=True)) + r")\b"
)


def _with_keys(reason: str) -> str:
    """The reason with the connection fields it names spelled as config keys."""
    return _FIELD_NAMES.sub(lambda m: config_key(m[1]), reason)


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


# The item key naming an existing object the next `pulumi up` imports (what `python -m
# stacks.adopt` writes): the id `ResourceOptions(import_=...)` takes (docs/adopt.md).
IMPORT_KEY = "import"


def stack_keys(kind: Kind) -> tuple[str, ...]:
    """Keys of a list item that belong to the stack, not to the kind: the resource name, the
    import id and the references (unless the kind has a field of that name)."""
    own = ("name", IMPORT_KEY, *kind.item_references)
    return tuple(k for k in own if k not in kind.model.model_fields)


def import_problem(kind: Kind, where: str, item: Mapping[str, Any]) -> str | None:
    """Why an item's `import` is not an id the next up can import, if it is not."""
    if IMPORT_KEY not in item or IMPORT_KEY in kind.model.model_fields:
        return None
    value = item[IMPORT_KEY]
    if not kind.importable:
        return f"{where}.{IMPORT_KEY}: a {kind.name} cannot be imported (it is an action)"
    if not isinstance(value, str) or not value.strip():
        return (
            f"{where}.{IMPORT_KEY}: must be a non-empty string, the {kind.import_id or 'id'} "
            "of the object to import"
        )
    problem = kind.import_id_problem(value)
    return f"{where}.{IMPORT_KEY}: {problem}" if problem else None


def item_problems(
    kind: Kind, items: list[dict[str, Any]], names: Mapping[str, set[Any]]
) -> list[str]:
    key = kind.config_key or kind.name
    own_keys = stack_keys(kind)
    found: list[str] = []
    first_name: dict[str, int] = {}
    first_identity: dict[tuple[str, str], int] = {}
    for index, item in enumerate(items):
        where = f"{NAMESPACE}:{key}[{index}]"
        if problem := name_problem(key, index, item, first_name):
            found.append(problem)
        if problem := import_problem(kind, where, item):
            found.append(problem)
        for field in (*kind.identity, *([IMPORT_KEY] if IMPORT_KEY in own_keys else [])):
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
        inputs = {k: v for k, v in item.items() if k not in own_keys}
        def value_of(reference: Reference | Lookup, value: Any) -> Any:
            # Known once the reference is resolved; an in-place one's id is judged as given.
            named = isinstance(reference, Lookup) or reference.names_item(value, names)
            return UNKNOWN if named else value

        for name, declared in kind.item_references.items():
            reference = reference_for(declared, item)
            if reference is None:
                continue
            found += reference_problems(kind, where, name, reference, item, names)
            if name in item:
                inputs[reference.field] = value_of(reference, item[name])
        for path_key, declared in kind.nested_references.items():
            name = path_key.rsplit(".", 1)[-1]
            for path, holder in nested_holders(item, path_key):
                reference = reference_for(declared, holder)
                if reference is not None:
                    found += reference_problems(
                        kind, f"{where}.{path}", name, reference, holder, names
                    )
        inputs = with_nested_references(inputs, kind, value_of)
        for failure in kind.provider.input_failures(inputs):
            reason = failure.reason
            if reason == "Extra inputs are not permitted":
                unknown = failure.property.rsplit(".", 1)[-1]
                reason = f"unknown key{suggestion(unknown, field_names(kind, own_keys))}"
            found.append(f"{where}.{item_path(failure.property)}: {reason}")
    return found


def plain_secret_values(kind: Kind, items: list[dict[str, Any]]) -> list[str]:
    """The kind's secret inputs (a Secret's value) stored in plain text in a list the engine
    does not call secret. The running program can tell only the list (the engine marks the
    whole key secret when any value in it is encrypted); the offline check, each value (an
    encrypted one reads as SECRET_PLACEHOLDER)."""
    key = kind.config_key or kind.name
    fields = [f for f in kind.secrets if f in kind.model.model_fields]
    return [
        plain_text_problem(f"{key}[{index}].{field}", path=True)
        for index, item in enumerate(items)
        if kind.adoption.holds_secret is None or kind.adoption.holds_secret(item)
        for field in fields
        if item.get(field) is not None and not _encrypted(item[field])
    ]


def _encrypted(value: Any) -> bool:
    """Whether a secret input reads as encrypted: the value, or, for an object holding a
    secret (a storage credential's service principal and its client_secret), a value in it."""
    if isinstance(value, dict):
        return any(_encrypted(v) for v in value.values())
    return bool(value == SECRET_PLACEHOLDER)


def reference_problems(
    kind: Kind,
    where: str,
    name: str,
    reference: Reference | Lookup,
    item: Mapping[str, Any],
    names: Mapping[str, set[Any]],
) -> list[str]:
    """The one rule of references: the reference or the id it stands for, not both; the
    reference names an item of its list (or is of the lookup's type)."""
    direct = reference.field
    if isinstance(reference, Reference) and reference.in_place:
        return []  # a name of the list's items, or an id as the service gives it
    if name in item and direct in item:
        return [f"{where}: give either {name} or {direct}, not both"]
    if name not in item:
        # A nested reference's field is not one of the item's own (never required).
        own_field = kind.model.model_fields.get(direct)
        required = own_field is not None and own_field.is_required()
        if direct in item or not required:
            return []
        return [f"{where}.{name}: required (or {direct})"]
    value = item[name]
    if isinstance(reference, Lookup):
        if not isinstance(value, reference.expects):
            return [f"{where}.{name}: must be {type_name(reference.expects())}"]
        return []
    if isinstance(names.get(reference.target_key), Elsewhere):
        return []  # an item of a used stack (docs/split.md)
    declared = sorted(n for n in names.get(reference.target_key, set()) if isinstance(n, str))
    if value in declared:
        return []
    noun = re.sub(r"(?<!^)(?=[A-Z])", " ", config_keys()[reference.target_key]).lower()
    hint = suggestion(str(value), declared) or (
        f" ({reference.target_key} declared: {', '.join(declared) or 'none'})"
    )
    target = f"{NAMESPACE}:{reference.target_key}"
    return [f"{where}.{name}: no {noun} named {value!r} in {target}{hint}"]


def item_path(dotted: str) -> str:
    """`access_controls.0.group_name` -> `access_controls[0].group_name`."""
    path = ""
    for part in dotted.split("."):
        path += f"[{part}]" if part.isdigit() else f".{part}"
    return path.lstrip(".")


def field_names(kind: Kind, extra: Iterable[str] = ()) -> set[str]:
    """Every field name anywhere in the kind's input model (for "did you mean")."""
    names = set(extra) | {key.rsplit(".", 1)[-1] for key in kind.nested_references}
    seen: set[type[pydantic.BaseModel]] = set()
    pending: list[type[pydantic.BaseModel]] = [kind.model]
    while pending:
        current = pending.pop()
        seen.add(current)
        for name, info in current.model_fields.items():
            names.add(name)
            pending += [t for t in nested_models(info.annotation) if t not in seen]
    return names - set(kind.stamped)


def nested_models(annotation: Any) -> list[type[pydantic.BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return [annotation]
    return [m for arg in getattr(annotation, "__args__", ()) for m in nested_models(arg)]


def object_lists() -> list[str]:
    """The config keys of the kinds that manage workspace objects (not the actions)."""
    return [key for key, kind in by_config_key().items() if kind.importable]
