"""What `diff` and `update` of a job need: the one normal form, field-level changes, and
the body of `jobs/update`.

Pure functions over JSON-like job settings in the public Jobs 2.2 shape (`jobs/get` under
`settings`); a legacy single-task shape is lifted first (`job_wire.lift`). The structure
comes from the official SDK's dataclasses (`JobSettings` and everything it nests; their
shapes, `providers/client/sdk_shapes.py`, so the SDK's modules need not load), so
every nesting of a task (`tasks[*]`, `tasks[*].for_each_task.task`) and of a cluster is
treated alike, and a field the SDK types as an integer compares equal whether it was
written 5, 5.0 or "5" (and a string field, "5" or 5).

The normal form (`canonical`) is itself valid settings:

- keyed lists (`KEYED_LISTS`: tasks by `task_key`, ...) are sorted by key, so their order
  is no change; lists the service treats as sets (libraries, `depends_on`, notification
  recipients, health rules, ...) are sorted and without duplicates;
- values that mean the same as leaving the field out are left out: the table `DEFAULTS`,
  empty lists and maps, and the empty objects of `EMPTY_MEANS_ABSENT`;
- `READ_ONLY` fields and the provider's deployment tag are left out.

A read of the service compares with a declaration after one more step,
`canonical(live, declared=declaration)`: values the service fills in itself, which depend
on the workspace (`SERVER_FILLED`), are left out of the read wherever the declaration does
not set them, and fields the service accepts but never returns (`INPUT_ONLY`) are taken
from the declaration.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from providers.client.sdk_shapes import ListOf, MapOf, SdkClass, fields, shapes
from providers.core.create_or_adopt import DEPLOYMENT_TAG_KEY
from providers.jobs.job_wire import copied, is_legacy_single_task, lift

# The SDK's classes by name (`jobs.Task`), from their shapes: the SDK's modules stay unloaded.
jobs = shapes("jobs")
compute = shapes("compute")

# What a job resource's inputs hold beside the job's settings.
OWN_FIELDS = ("deployment_tag", "authoritative")


# --- the tables ------------------------------------------------------------------------


class _SourceByGit:
    """The documented default of a task's `source`: GIT when the job has a `git_source`."""

    def __repr__(self) -> str:
        return "GIT if the job has a git_source, else WORKSPACE"


SOURCE_BY_GIT = _SourceByGit()


@dataclass(frozen=True)
class Default:
    """`owner.field` set to `value` means what leaving it out means."""

    owner: SdkClass
    field: str
    value: Any
    reason: str


@dataclass(frozen=True)
class Rule:
    """A field of `owner` that the normal form treats as the table holding it says."""

    owner: SdkClass
    field: str
    reason: str


# Each row is a documented default of the Jobs API (reference of JobSettings, Task and
# what they nest, and "Updating from Jobs API 2.1 to 2.2" for the queue).
DEFAULTS: tuple[Default, ...] = (
    Default(jobs.JobSettings, "max_concurrent_runs", 1, "unset allows one active run"),
    Default(jobs.JobSettings, "timeout_seconds", 0, "0 is no timeout, as is unset"),
    Default(jobs.JobSettings, "queue", {"enabled": True}, "Jobs 2.2 queues runs unless disabled"),
    Default(jobs.Task, "run_if", "ALL_SUCCESS", "a task waits for all its dependencies' success"),
    Default(jobs.Task, "timeout_seconds", 0, "0 is no timeout, as is unset"),
    Default(jobs.Task, "max_retries", 0, "0 never retries, as does unset"),
    Default(jobs.Task, "min_retry_interval_millis", 0, "unset retries at once"),
    Default(jobs.Task, "retry_on_timeout", False, "unset does not retry a timed-out run"),
    Default(jobs.Task, "disabled", False, "unset runs the task"),
    Default(jobs.CronSchedule, "pause_status", "UNPAUSED", "a schedule fires unless paused"),
    Default(jobs.TriggerSettings, "pause_status", "UNPAUSED", "a trigger fires unless paused"),
    Default(jobs.Continuous, "pause_status", "UNPAUSED", "a continuous job runs unless paused"),
    Default(jobs.Continuous, "task_retry_mode", "NEVER", "documented default"),
    Default(jobs.NotebookTask, "source", SOURCE_BY_GIT, "documented default of source"),
    Default(jobs.SqlTaskFile, "source", SOURCE_BY_GIT, "documented default of source"),
    Default(jobs.DbtTask, "source", SOURCE_BY_GIT, "documented default of source"),
    Default(jobs.DbtTask, "schema", "default", "unset uses the schema named `default`"),
    Default(jobs.PipelineTask, "full_refresh", False, "a flag, off unless set"),
    Default(jobs.SqlTaskAlert, "pause_subscriptions", False, "a flag, off unless set"),
    Default(jobs.SqlTaskDashboard, "pause_subscriptions", False, "a flag, off unless set"),
    Default(jobs.JobEmailNotifications, "no_alert_for_skipped_runs", False, "a flag, off"),
    Default(jobs.TaskEmailNotifications, "no_alert_for_skipped_runs", False, "a flag, off"),
    Default(jobs.JobNotificationSettings, "no_alert_for_skipped_runs", False, "a flag, off"),
    Default(jobs.JobNotificationSettings, "no_alert_for_canceled_runs", False, "a flag, off"),
    Default(jobs.TaskNotificationSettings, "no_alert_for_skipped_runs", False, "a flag, off"),
    Default(jobs.TaskNotificationSettings, "no_alert_for_canceled_runs", False, "a flag, off"),
    Default(jobs.TaskNotificationSettings, "alert_on_last_attempt", False, "a flag, off"),
)

# Objects that, empty, mean the same as absent (besides every empty list and map).
EMPTY_MEANS_ABSENT: frozenset[SdkClass] = frozenset(
    {
        jobs.JobEmailNotifications,  # notifies nobody
        jobs.TaskEmailNotifications,
        jobs.WebhookNotifications,
        jobs.JobNotificationSettings,  # every flag off
        jobs.TaskNotificationSettings,
        jobs.JobsHealthRules,  # no rules
    }
)

READ_ONLY: tuple[Rule, ...] = (
    Rule(jobs.JobSettings, "format", "set by the service; create/update/reset ignore it"),
)

# Filled in by the service when the declaration leaves them out, with values that depend
# on the workspace, the caller or a cluster policy.
SERVER_FILLED: tuple[Rule, ...] = (
    Rule(jobs.JobSettings, "run_as", "the job's creator"),
    Rule(jobs.JobSettings, "edit_mode", "set on create; no documented default"),
    Rule(jobs.SparkPythonTask, "source", "the reference pages disagree on its default"),
    Rule(compute.ClusterSpec, "enable_elastic_disk", "per cloud and node type"),
    Rule(compute.ClusterSpec, "enable_local_disk_encryption", "per workspace"),
    Rule(compute.ClusterSpec, "data_security_mode", "per workspace and runtime"),
    Rule(compute.ClusterSpec, "node_type_id", "from the instance pool or policy"),
    Rule(compute.ClusterSpec, "driver_node_type_id", "the worker node type"),
    Rule(compute.ClusterSpec, "driver_instance_pool_id", "the worker instance pool"),
)
# Server-filled objects that the service also completes where they are declared: left out
# where the declaration does not set them, and compared on the fields declared where it does.
COMPLETED_BY_SERVER: tuple[Rule, ...] = (
    Rule(compute.ClusterSpec, "aws_attributes", "the service adds the cloud defaults"),
    Rule(compute.ClusterSpec, "azure_attributes", "the service adds the cloud defaults"),
    Rule(compute.ClusterSpec, "gcp_attributes", "the service adds the cloud defaults"),
)
# An object whose `field` is declared: the service adds what it decides (a policy's fixed
# and default values), so only the fields declared are compared.
COMPLETED_WHEN_SET: tuple[Rule, ...] = (
    Rule(compute.ClusterSpec, "policy_id", "the policy adds its fixed and default values"),
)

INPUT_ONLY: tuple[Rule, ...] = (
    Rule(compute.ClusterSpec, "apply_policy_default_values", "accepted, never returned"),
    Rule(jobs.TableUpdateTriggerConfiguration, "condition", "accepted, never returned"),
)

KEYED_LISTS: dict[SdkClass, str] = {
    jobs.Task: "task_key",
    jobs.JobCluster: "job_cluster_key",
    jobs.JobEnvironment: "environment_key",
    jobs.JobParameterDefinition: "name",
    jobs.JobEnvironmentVariables: "environment_variables_key",
}
# Lists whose items the service treats as a set, by item type ...
SET_ITEMS: frozenset[SdkClass] = frozenset(
    {compute.Library, jobs.TaskDependency, jobs.JobsHealthRule, jobs.Webhook,
     jobs.SqlTaskSubscription}
)
# ... and every list of these objects (their lists of addresses).
SET_LIST_OWNERS: frozenset[SdkClass] = frozenset(
    {jobs.JobEmailNotifications, jobs.TaskEmailNotifications}
)

# `jobs/update` merges these by key; `fields_to_remove` names their items `<field>/<key>`.
MERGED_BY_KEY: dict[str, str] = {"tasks": "task_key", "job_clusters": "job_cluster_key"}


def _index(rules: tuple[Rule, ...]) -> dict[SdkClass, frozenset[str]]:
    found: dict[SdkClass, set[str]] = {}
    for rule in rules:
        found.setdefault(rule.owner, set()).add(rule.field)
    return {owner: frozenset(names) for owner, names in found.items()}


_DEFAULTS = {(row.owner, row.field): row.value for row in DEFAULTS}
_READ_ONLY = _index(READ_ONLY)
_SERVER_FILLED = _index(SERVER_FILLED + COMPLETED_BY_SERVER)
_COMPLETED = _index(COMPLETED_BY_SERVER)
_COMPLETED_WHEN_SET = _index(COMPLETED_WHEN_SET)
_INPUT_ONLY = _index(INPUT_ONLY)
_NO_NAMES: frozenset[str] = frozenset()


# --- the schema, from the SDK ----------------------------------------------------------


def _is_object(shape: Any) -> bool:
    return isinstance(shape, SdkClass)


def _list_item(shape: Any) -> Any:
    return shape.item if isinstance(shape, ListOf) else None


def _map_value(shape: Any) -> Any:
    return shape.value if isinstance(shape, MapOf) else None


def _field_shape(owner: SdkClass | None, name: str) -> Any:
    return fields(owner).get(name) if owner is not None else None


# --- the normal form -------------------------------------------------------------------

_INTEGER = re.compile(r"-?\d+")


@dataclass(frozen=True)
class _Context:
    git_source: bool
    # Comparing a read with a declaration (else: normalising one side on its own).
    against_declaration: bool


def canonical(
    settings: Mapping[str, Any], *, declared: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The one normal form `diff` compares (see the module's docstring). Idempotent.

    `settings` are as declared or as the service echoes them; with `declared` (a read of
    the service compared with that declaration), server-filled values the declaration does
    not set are left out and input-only ones are taken from it.

    One diff of an unchanged job asks for the normal form of the same settings three times
    (the recorded state, the old inputs, the new inputs); the form is computed once and
    copied out of a small cache keyed by the settings' JSON text.
    """
    try:
        key = json.dumps([settings, declared], separators=(",", ":"))
    except (TypeError, ValueError):  # not JSON (an unknown value of a preview): no cache
        return _canonical(settings, declared)
    with _FORMS_LOCK:
        form = _FORMS.get(key)
    if form is None:
        form = _canonical(settings, declared)
        with _FORMS_LOCK:
            if len(_FORMS) >= _FORMS_KEPT:
                del _FORMS[next(iter(_FORMS))]  # the oldest
            _FORMS[key] = copied(form)
        return form
    return copied(form)


# Normal forms by the JSON text of their arguments, oldest first; shared by the host's threads.
_FORMS: dict[str, dict[str, Any]] = {}
_FORMS_KEPT = 256
_FORMS_LOCK = threading.Lock()


def _canonical(
    settings: Mapping[str, Any], declared: Mapping[str, Any] | None
) -> dict[str, Any]:
    lifted = _multi_task(settings)
    context = _Context(
        git_source=bool(lifted.get("git_source")), against_declaration=declared is not None
    )
    baseline = _multi_task(declared) if declared is not None else None
    return _object(lifted, jobs.JobSettings, baseline, context, completed=False)


def _multi_task(settings: Mapping[str, Any]) -> Mapping[str, Any]:
    """The settings in the multi-task shape, only read: the normal form builds its own."""
    return lift(settings) if is_legacy_single_task(settings) else settings


def _object(
    value: Mapping[str, Any],
    owner: SdkClass,
    declared: Mapping[str, Any] | None,
    context: _Context,
    *,
    completed: bool,
) -> dict[str, Any]:
    """An SDK object. `declared` is its declaration ({} where the declaration lacks it) when
    comparing with one; `completed`: the service adds fields, compare only those declared."""
    if declared is not None:
        completed = completed or any(
            declared.get(name) is not None for name in _COMPLETED_WHEN_SET.get(owner, _NO_NAMES)
        )
    result: dict[str, Any] = {}
    for name, raw in value.items():
        if raw is None or name in _READ_ONLY.get(owner, _NO_NAMES):
            continue
        shape = _field_shape(owner, name)
        inner: Any = None
        if declared is not None:
            inner = declared.get(name)
            if inner is None:
                if completed or name in _SERVER_FILLED.get(owner, _NO_NAMES):
                    continue
                inner = [] if _list_item(shape) is not None else {}
        item = _value(
            raw,
            shape,
            inner,
            context,
            owner=owner,
            completed=completed or name in _COMPLETED.get(owner, _NO_NAMES),
        )
        if name == "tags" and owner == jobs.JobSettings and isinstance(item, dict):
            item.pop(DEPLOYMENT_TAG_KEY, None)
        if not _means_absent(owner, name, shape, item, context):
            result[name] = item
    if declared is not None:
        for name in _INPUT_ONLY.get(owner, _NO_NAMES):
            if value.get(name) is None and declared.get(name) is not None:
                shape = _field_shape(owner, name)
                item = _value(declared[name], shape, None, context, owner=owner, completed=False)
                if not _means_absent(owner, name, shape, item, context):
                    result[name] = item
    return result


def _value(
    raw: Any, shape: Any, declared: Any, context: _Context, *, owner: SdkClass, completed: bool
) -> Any:
    if _is_object(shape) and isinstance(raw, Mapping):
        baseline = declared if isinstance(declared, Mapping) else None
        if context.against_declaration and baseline is None:
            baseline = {}
        return _object(raw, shape, baseline, context, completed=completed)
    item = _list_item(shape)
    if item is not None and isinstance(raw, list):
        return _list(raw, item, owner, declared, context)
    value_shape = _map_value(shape)
    if value_shape is not None and isinstance(raw, Mapping):
        return {
            key: _value(v, value_shape, None, context, owner=owner, completed=False)
            for key, v in raw.items()
            if v is not None
        }
    return _scalar(raw, shape)


def _list(
    raw: list[Any], item: Any, owner: SdkClass, declared: Any, context: _Context
) -> list[Any]:
    key = KEYED_LISTS.get(item)
    if key is not None:
        by_key: dict[Any, Any] = {}
        if context.against_declaration and isinstance(declared, list):
            by_key = {d.get(key): d for d in declared if isinstance(d, Mapping)}

        def declared_item(entry: Any) -> Any:
            if not context.against_declaration or not isinstance(entry, Mapping):
                return None
            return by_key.get(entry.get(key), {})

        entries = [
            _value(entry, item, declared_item(entry), context, owner=owner, completed=False)
            for entry in raw
            if entry is not None
        ]
        return sorted(entries, key=lambda entry: _keyed_order(entry, key))
    entries = [
        _value(entry, item, None, context, owner=owner, completed=False)
        for entry in raw
        if entry is not None
    ]
    if item in SET_ITEMS or owner in SET_LIST_OWNERS:
        return _as_set(entries)
    return entries


def _scalar(raw: Any, shape: Any) -> Any:
    if isinstance(raw, bool):
        return raw
    if shape is int:
        if isinstance(raw, float) and raw.is_integer():
            return int(raw)
        if isinstance(raw, str) and _INTEGER.fullmatch(raw.strip()):
            return int(raw)
    if shape is str and isinstance(raw, int):
        return str(raw)
    return copied(raw)


def _means_absent(owner: SdkClass, name: str, shape: Any, value: Any, context: _Context) -> bool:
    if value == [] and isinstance(value, list):
        return True
    if value == {} and isinstance(value, dict):
        return _map_value(shape) is not None or shape in EMPTY_MEANS_ABSENT
    if (owner, name) not in _DEFAULTS:
        return False
    default = _DEFAULTS[(owner, name)]
    if default is SOURCE_BY_GIT:
        default = "GIT" if context.git_source else "WORKSPACE"
    return _same(value, default)


def _same(a: Any, b: Any) -> bool:
    # JSON tells true from 1, which Python's == does not.
    return _json(a) == _json(b)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _keyed_order(entry: Any, key: str) -> tuple[int, str]:
    if isinstance(entry, Mapping) and isinstance(entry.get(key), str):
        return (0, entry[key])
    return (1, _json(entry))


def _as_set(entries: list[Any]) -> list[Any]:
    unique = {_json(entry): entry for entry in entries}
    return [unique[text] for text in sorted(unique)]


# --- changes ---------------------------------------------------------------------------

ChangeKind = Literal["add", "delete", "update"]


@dataclass(frozen=True)
class Change:
    """One difference: `path` names the leaf (`tasks[ingest].max_retries`), or a whole
    keyed item (`tasks[ingest]`) or set member (`tasks[ingest].libraries[pypi:x==1]`)
    added or deleted."""

    path: str
    kind: ChangeKind
    old: Any = None
    new: Any = None

    def __str__(self) -> str:
        if self.kind == "add":
            return f"{self.path}: + {_json(self.new)}"
        if self.kind == "delete":
            return f"{self.path}: - {_json(self.old)}"
        return f"{self.path}: {_json(self.old)} → {_json(self.new)}"


def changes(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Change]:
    """Every difference between two settings in normal form, field by field, in a stable
    order. To compare a read of the service with a declaration, pass
    ``canonical(live, declared=declaration)`` as `old`."""
    found: list[Change] = []
    _diff(canonical(old), canonical(new), jobs.JobSettings, "", found)
    return found


def _diff(old: Any, new: Any, shape: Any, path: str, found: list[Change]) -> None:
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        if _is_object(shape) or shape is None:
            owner = shape if _is_object(shape) else None
            _diff_entries(old, new, path, found, lambda name: _field_shape(owner, name), False)
            return
        value_shape = _map_value(shape)
        if value_shape is not None:
            _diff_entries(old, new, path, found, lambda name: value_shape, True)
            return
    item = _list_item(shape)
    if item is not None and isinstance(old, list) and isinstance(new, list):
        if _diff_list(old, new, item, path, found):
            return
    if not _same(old, new):
        found.append(Change(path, "update", old, new))


def _diff_entries(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    path: str,
    found: list[Change],
    shape_of: Callable[[str], Any],
    keyed: bool,
) -> None:
    for name in sorted(set(old) | set(new)):
        at = f"{path}[{name}]" if keyed else (f"{path}.{name}" if path else name)
        if name not in old:
            found.append(Change(at, "add", None, new[name]))
        elif name not in new:
            found.append(Change(at, "delete", old[name], None))
        else:
            _diff(old[name], new[name], shape_of(name), at, found)


def _diff_list(old: list[Any], new: list[Any], item: Any, path: str, found: list[Change]) -> bool:
    """Keyed items by key, set members by label; False for an ordered list (one leaf)."""
    key = KEYED_LISTS.get(item)
    if key is not None:
        before, after = _by_key(old, key), _by_key(new, key)
        if before is None or after is None:
            return False
        _diff_entries(before, after, path, found, lambda name: item, True)
        return True
    if item not in SET_ITEMS:
        return False
    before_set, after_set = _by_label(old, item), _by_label(new, item)
    _diff_entries(before_set, after_set, path, found, lambda name: item, True)
    return True


def _by_key(entries: Any, key: str) -> dict[str, Any] | None:
    """Items by their key, or None when an item has no key or two share one."""
    if not isinstance(entries, list):
        return {} if entries is None else None
    found: dict[str, Any] = {}
    for entry in entries:
        if not isinstance(entry, Mapping) or not isinstance(entry.get(key), str):
            return None
        if entry[key] in found:
            return None
        found[entry[key]] = entry
    return found


def _by_label(entries: list[Any], item: Any) -> dict[str, Any]:
    labels = [_label(entry, item) for entry in entries]
    if len(set(labels)) != len(labels):
        labels = [_json(entry) for entry in entries]
    return dict(zip(labels, entries, strict=True))


def _label(entry: Any, item: Any) -> str:
    """A short name for a set member: `ingest` for a dependency, `pypi:x==1` for a library."""
    if not isinstance(entry, Mapping):
        return _json(entry)
    if item == jobs.TaskDependency and isinstance(entry.get("task_key"), str):
        outcome = entry.get("outcome")
        return entry["task_key"] + (f"={outcome}" if outcome is not None else "")
    if item == jobs.Webhook and isinstance(entry.get("id"), str):
        return entry["id"]
    if item == compute.Library and len(entry) == 1:
        kind, spec = next(iter(entry.items()))
        if isinstance(spec, str):
            return f"{kind}:{spec}"
        if isinstance(spec, Mapping):
            name = spec.get("package") or spec.get("coordinates")
            if isinstance(name, str):
                return f"{kind}:{name}"
    return _json(entry)


# --- update and reset ------------------------------------------------------------------


def update_request(
    old_declared: Mapping[str, Any],
    new_declared: Mapping[str, Any],
    *,
    authoritative: bool = False,
) -> dict[str, Any]:
    """The body of `jobs/update` (without `job_id`) that takes a job from the settings the
    stack declared before to those it declares now, and changes nothing it never declared.

    `new_settings` holds every top-level field declared now, except that of `tasks` and
    `job_clusters` (merged by key by the service) it holds only the items added or changed
    (whole: an item sent replaces the job's item of that key). `fields_to_remove` names the
    top-level fields declared before and no longer, and `tasks/<key>`, `job_clusters/<key>`
    for items no longer declared. Tags replace the job's whole: callers put the deployment
    tag in both declarations.

    With `authoritative=True`, the body of `jobs/reset` instead: `{new_settings}` with
    every declared setting; `removed_by_reset` names what that removes.
    """
    new = _declared_fields(new_declared)
    if authoritative:
        return {"new_settings": new}
    old = _declared_fields(old_declared)
    old_form, new_form = canonical(old), canonical(new)
    new_settings: dict[str, Any] = {}
    for name, value in new.items():
        if name in _READ_ONLY.get(jobs.JobSettings, _NO_NAMES):
            continue
        key = MERGED_BY_KEY.get(name)
        if key is None or not isinstance(value, list):
            new_settings[name] = value
            continue
        before = _by_key(old_form.get(name), key) or {}
        after = _by_key(new_form.get(name), key) or {}
        changed = [entry for entry in value if _item_changed(entry, key, before, after)]
        if changed:
            new_settings[name] = changed
    fields_to_remove = [name for name in old if name not in new]
    for name, key in MERGED_BY_KEY.items():
        if isinstance(old.get(name), list) and name in new:
            kept = set(_keys(new.get(name), key))
            fields_to_remove += [f"{name}/{k}" for k in _keys(old[name], key) if k not in kept]
    return {"new_settings": new_settings, "fields_to_remove": fields_to_remove}


def removed_by_reset(live: Mapping[str, Any], declared: Mapping[str, Any]) -> list[str]:
    """The path of every live setting a `jobs/reset` to `declared` removes, for the preview
    of an authoritative update (settings made outside the stack among them)."""
    compared = canonical(live, declared=declared)
    return [change.path for change in changes(compared, declared) if change.kind == "delete"]


def _item_changed(entry: Any, key: str, before: dict[str, Any], after: dict[str, Any]) -> bool:
    """True for an item to send: new, changed in normal form, or without a usable key."""
    name = entry.get(key) if isinstance(entry, Mapping) else None
    if not isinstance(name, str) or name not in before:
        return True
    return not _same(before[name], after.get(name))


def _declared_fields(settings: Mapping[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in lift(settings).items() if value is not None}


def _keys(entries: Any, key: str) -> list[str]:
    if not isinstance(entries, list):
        return []
    return [e[key] for e in entries if isinstance(e, Mapping) and isinstance(e.get(key), str)]
