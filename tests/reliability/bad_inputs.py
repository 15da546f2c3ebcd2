"""The catalogue of invalid inputs: each one a defect in one item (or one stack setting) of
an otherwise valid config, with the field the error must name and a piece of its reason."""

from __future__ import annotations

import copy
import dataclasses
from dataclasses import dataclass
from typing import Any

GOOD_JOB = {
    "new_cluster": {"spark_version": "13.3.x-scala2.12", "node_type_id": "Standard_DS3_v2",
                    "num_workers": 1},
    "spark_python_task": {"python_file": "dbfs:/jobs/main.py"},
}
GOOD_ACL = [{"group_name": "analysts", "permission_level": "CAN_VIEW"}]
VAULT = {
    "resource_id": "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/dp/"
                   "providers/Microsoft.KeyVault/vaults/dp-kv",
    "dns_name": "https://dp-kv.vault.azure.net/",
}


@dataclass(frozen=True)
class Case:
    """`kind` is a config list (`jobs`, ...) or `setting` (a top-level key of the stack)."""

    kind: str
    label: str
    field: str  # the path the message must name, relative to the item or key
    reason: str  # a piece of the reason the message must give
    change: dict[str, Any] = dataclasses.field(default_factory=dict)  # merged into the good item
    drop: tuple[str, ...] = ()  # keys removed from it
    value: Any = None  # a setting's value


def nested(path: str, value: Any) -> dict[str, Any]:
    """`nested("a.b", 1)` -> {"a": {"b": 1}}, merged over the good item by `merge`."""
    for part in reversed(path.split(".")):
        value = {part: value}
    return value


def merge(base: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and value:
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def job(label, field, reason, change=None, drop=()):
    return Case("jobs", label, field, reason, change or {}, drop)


def principal(label, field, reason, change=None, drop=()):
    return Case("servicePrincipals", label, field, reason, change or {}, drop)


def scope(label, field, reason, change=None, drop=()):
    return Case("secretScopes", label, field, reason, change or {}, drop)


def permission(label, field, reason, change=None, drop=()):
    return Case("jobPermissions", label, field, reason, change or {}, drop)


def branch(label, field, reason, change=None, drop=()):
    return Case("repoBranches", label, field, reason, change or {}, drop)


def binding(label, field, reason, change=None, drop=()):
    return Case("catalogBindings", label, field, reason, change or {}, drop)


def setting(label, key, reason, value):
    return Case("setting", label, key, reason, value=value)


ITEM_CASES = [
    # jobs
    job("missing spark version", "new_cluster.spark_version", "Field required",
        drop=("new_cluster.spark_version",)),
    job("node type of wrong type", "new_cluster.node_type_id", "valid string",
        nested("new_cluster.node_type_id", 123)),
    job("min above max", "new_cluster.autoscale.min_workers", "must not exceed max_workers",
        {"new_cluster": {"num_workers": None, "autoscale": {"min_workers": 5,
                                                            "max_workers": 2}}}),
    job("both sizes", "new_cluster", "exactly one of num_workers and autoscale",
        nested("new_cluster.autoscale", {"min_workers": 1, "max_workers": 2})),
    job("negative workers", "new_cluster.num_workers", "greater than or equal to 0",
        nested("new_cluster.num_workers", -1)),
    job("workers as words", "new_cluster.num_workers", "valid integer",
        nested("new_cluster.num_workers", "two")),
    job("init script off dbfs", "new_cluster.init_scripts[0].dbfs.destination",
        "must be a path under 'dbfs:/'",
        nested("new_cluster.init_scripts", [{"dbfs": {"destination": "s3://b/x.sh"}}])),
    job("log path outside mounts", "new_cluster.cluster_log_conf.dbfs.destination",
        "must be a path under 'dbfs:/mnt/'",
        nested("new_cluster.cluster_log_conf", {"dbfs": {"destination": "dbfs:/logs"}})),
    job("unpinned package", "libraries[0].pypi.package", "must pin one exact version",
        {"libraries": [{"pypi": {"package": "requests"}}]}),
    job("range pin", "libraries[0].pypi.package", "must pin one exact version",
        {"libraries": [{"pypi": {"package": "requests>=2.0"}}]}),
    job("wildcard pin", "libraries[0].pypi.package", "must pin one exact version",
        {"libraries": [{"pypi": {"package": "requests==2.*"}}]}),
    job("library without pypi", "libraries[0].pypi", "Field required",
        {"libraries": [{}]}),
    job("task file off dbfs", "spark_python_task.python_file", "must be a path under 'dbfs:/'",
        nested("spark_python_task.python_file", "/jobs/main.py")),
    job("parameters not a list", "spark_python_task.parameters", "valid list",
        nested("spark_python_task.parameters", "--date today")),
    job("negative timeout", "timeout_seconds", "greater than or equal to 0",
        {"timeout_seconds": -5}),
    job("retries below -1", "max_retries", "greater than or equal to -1", {"max_retries": -2}),
    job("concurrency as words", "max_concurrent_runs", "valid integer",
        {"max_concurrent_runs": "many"}),
    job("reserved tag", "tags", "reserved for the provider",
        {"tags": {"pulumi-deployment": "x"}}),
    job("misspelt key", "schedul", "unknown key", {"schedul": {}}),
    job("two clusters", "new_cluster", "either new_cluster or existing_cluster_id",
        {"existing_cluster_id": "0101-120000-etl00001"}),
    job("env var not text", "new_cluster.spark_env_vars.LEVEL", "valid string",
        nested("new_cluster.spark_env_vars", {"LEVEL": 3})),
    # service principals
    principal("application id not a GUID", "application_id", "a GUID",
              {"application_id": "not-a-guid"}),
    principal("application id missing", "application_id", "Field required",
              drop=("application_id",)),
    principal("active as text", "active", "valid boolean", {"active": "yes"}),
    principal("unknown entitlement", "entitlements[0]", "Input should be",
              {"entitlements": ["fly"]}),
    principal("entitlement twice", "entitlements", "more than once",
              {"entitlements": ["workspace-access", "workspace-access"]}),
    principal("blank group", "groups[0]", "must not be empty", {"groups": [" "]}),
    principal("group twice", "groups", "more than once", {"groups": ["1001", "1001"]}),
    principal("blank display name", "display_name", "must not be empty",
              {"display_name": "  "}),
    principal("foreign schema", "schemas", "or left out", {"schemas": ["urn:x"]}),
    principal("misspelt key", "displayname", "did you mean 'display_name'",
              {"displayname": "x"}),
    # secret scopes
    scope("space in name", "name", "1 to 128 characters", {"name": "a b"}),
    scope("name too long", "name", "1 to 128 characters", {"name": "s" * 129}),
    scope("unknown manager", "initial_manage_principal", "'users'",
          {"initial_manage_principal": "admins"}),
    scope("vault id malformed", "keyvault.resource_id", "key vault resource id",
          {"keyvault": {**VAULT, "resource_id": "/subscriptions/x"}}),
    scope("vault over http", "keyvault.dns_name", "vault.azure.net",
          {"keyvault": {**VAULT, "dns_name": "http://dp-kv.vault.azure.net/"}}),
    scope("vault without address", "keyvault.dns_name", "Field required",
          {"keyvault": {"resource_id": VAULT["resource_id"]}}),
    scope("misspelt key", "keyvalt", "unknown key", {"keyvalt": VAULT}),
    # job permissions
    permission("unknown level", "access_controls[0].permission_level", "must be one of",
               {"access_controls": [{"group_name": "analysts", "permission_level": "CAN_FLY"}]}),
    permission("owner declared", "access_controls[0].permission_level", "IS_OWNER cannot",
               {"access_controls": [{"group_name": "analysts", "permission_level": "IS_OWNER"}]}),
    permission("two principals in one entry", "access_controls[0]", "give exactly one of",
               {"access_controls": [{"group_name": "analysts", "user_name": "a@example.com",
                                     "permission_level": "CAN_VIEW"}]}),
    permission("no principal", "access_controls[0]", "give exactly one of",
               {"access_controls": [{"permission_level": "CAN_VIEW"}]}),
    permission("empty list", "access_controls", "at least 1 item", {"access_controls": []}),
    permission("principal twice", "access_controls", "give each principal once",
               {"access_controls": GOOD_ACL + [{"group_name": "analysts",
                                                "permission_level": "CAN_MANAGE_RUN"}]}),
    permission("job id as words", "job_id", "must be a positive integer or a string of digits",
               {"job_id": "abc"}),
    permission("job id zero", "job_id", "must be a positive 64-bit integer", {"job_id": 0}),
    permission("blank group", "access_controls[0]", "group_name must not be empty",
               {"access_controls": [{"group_name": " ", "permission_level": "CAN_VIEW"}]}),
    permission("unknown job", "job", "no job named", {"job": "no-such-job"},
               drop=("job_id",)),
    # repo branches
    branch("path outside repos", "repo_path", "starting /Repos/ or /Workspace/",
           {"repo_path": "/Users/x/repo"}),
    branch("double dot", "branch", "must be a git branch name", {"branch": "a..b"}),
    branch("space in branch", "branch", "must be a git branch name", {"branch": "my branch"}),
    branch("id and path", "repo_id", "exactly one of repo_id or repo_path",
           {"repo_id": "123"}),
    branch("neither id nor path", "repo_id", "exactly one of repo_id or repo_path",
           drop=("repo_path",)),
    branch("id not a number", "repo_id", "must be a positive integer or a string of digits",
           {"repo_id": "abc"}, drop=("repo_path",)),
    branch("unknown delete mode", "on_delete", "'restore' or 'leave'", {"on_delete": "keep"}),
    branch("branch missing", "branch", "Field required", drop=("branch",)),
    # catalog bindings
    binding("bad catalog name", "catalog_name", "letters, digits", {"catalog_name": "fin ance!"}),
    binding("unknown isolation", "isolation_mode", "'ISOLATED' or 'OPEN'",
            {"isolation_mode": "CLOSED"}),
    binding("workspace id not a number", "bindings[0].workspace_id",
            "must be a positive integer or a string of digits",
            {"bindings": [{"workspace_id": "abc"}]}),
    binding("unknown binding type", "bindings[0].binding_type", "BINDING_TYPE_READ_WRITE",
            {"bindings": [{"workspace_id": "1", "binding_type": "RW"}]}),
    binding("workspace twice", "bindings", "more than once",
            {"bindings": [{"workspace_id": "1"}, {"workspace_id": "1"}]}),
    binding("catalog missing", "catalog_name", "Field required", drop=("catalog_name",)),
    binding("bindings as text", "bindings", "valid list", {"bindings": "all"}),
]

SETTING_CASES = [
    setting("misspelt list", "jbos", "did you mean 'jobs'", []),
    setting("secret in plain text", "clientSecret", "stored in plain text", "hunter2"),
    setting("unknown wire form", "wireForm", "'seed' or 'public'", "xml"),
    setting("negative timeout", "timeoutSeconds", "greater than 0", "-1"),
    setting("no attempts", "maxAttempts", "greater than or equal to 1", "0"),
    setting("negative rate limit", "rateLimitPerSecond", "greater than or equal to 0", "-3"),
    setting("plain http to a remote host", "baseUrl", "non-loopback host",
            "http://workspace.example.com"),
    setting("query string in address", "authUrl", "query string", "http://127.0.0.1:1/?x=1"),
    setting("a switch to skip TLS verification", "skipTlsVerify", "unknown key", "true"),
    setting("list that is not a list", "repoBranches", "must be a list of objects",
            {"name": "x"}),
]


def good_item(kind: str, index: int) -> dict[str, Any]:
    """A valid item of `kind`, distinct from every other (names and identities)."""
    name = f"{kind.lower()}-{index}"
    if kind == "jobs":
        return {"name": name, **copy.deepcopy(GOOD_JOB)}
    if kind == "servicePrincipals":
        return {"name": name, "application_id": f"00000000-0000-0000-0000-{index:012d}"}
    if kind == "secretScopes":
        return {"name": name}
    if kind == "jobPermissions":
        return {"name": name, "job_id": 1000 + index, "access_controls": GOOD_ACL}
    if kind == "repoBranches":
        return {"name": name, "repo_path": f"/Repos/drill/repo-{index}", "branch": "main"}
    if kind == "catalogBindings":
        return {"name": name, "catalog_name": f"catalog_{index}",
                "bindings": [{"workspace_id": "1234567890123456"}]}
    raise ValueError(kind)


def without(item: dict[str, Any], dotted: str) -> dict[str, Any]:
    parts = dotted.split(".")
    target = item
    for part in parts[:-1]:
        target = target[part]
    target.pop(parts[-1], None)
    return item


def bad_item(case: Case, index: int) -> dict[str, Any]:
    item = good_item(case.kind, index)
    for dotted in case.drop:
        without(item, dotted)
    changed = merge(item, case.change)
    # `None` in a change means "leave this key out" (e.g. num_workers when autoscale is set).
    def prune(value):
        if isinstance(value, dict):
            return {k: prune(v) for k, v in value.items() if v is not None}
        return value
    return prune(changed)


@dataclass
class Batch:
    config: dict[str, Any]                              # workspace:<key> -> value
    expected: list[tuple[Case, str]]                    # (case, the key path it must name)


def item_batch() -> Batch:
    """Every item case in one config: the stack judges the whole config at once."""
    lists: dict[str, list[dict[str, Any]]] = {}
    expected = []
    for case in ITEM_CASES:
        items = lists.setdefault(case.kind, [])
        items.append(bad_item(case, len(items)))
        expected.append((case, f"workspace:{case.kind}[{len(items) - 1}].{case.field}"))
    # one extra item per defect that only shows between items
    duplicate = good_item("secretScopes", 900)
    lists["secretScopes"] += [duplicate, dict(duplicate)]
    expected.append((scope("name declared twice", "name", "declared twice"),
                     f"workspace:secretScopes[{len(lists['secretScopes']) - 1}].name"))
    twin = good_item("servicePrincipals", 901)
    lists["servicePrincipals"] += [twin, {**twin, "name": "twin"}]
    expected.append((principal("application id declared twice", "application_id",
                               "also declared by"),
                     f"workspace:servicePrincipals[{len(lists['servicePrincipals']) - 1}]"
                     ".application_id"))
    lists["repoBranches"].append({"repo_path": "/Repos/drill/nameless", "branch": "main"})
    expected.append((branch("item without a name", "name", "required"),
                     f"workspace:repoBranches[{len(lists['repoBranches']) - 1}].name"))
    return Batch({f"workspace:{k}": v for k, v in lists.items()}, expected)


def setting_batch() -> Batch:
    config = {f"workspace:{c.field}": c.value for c in SETTING_CASES}
    return Batch(config, [(c, f"workspace:{c.field}") for c in SETTING_CASES])
