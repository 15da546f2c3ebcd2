"""Job settings between the canonical multi-task shape and the legacy single-task shapes.

Kinds speak one shape: the public Jobs 2.2 `settings` (tasks keyed by `task_key`). Two
legacy shapes still reach the client and are lifted to it, one task keyed
``LEGACY_TASK_KEY``:

- the public Jobs 2.0 single-task shape: the task's fields (`new_cluster` or
  `existing_cluster_id`, a task type such as `spark_python_task`, `libraries`,
  `max_retries`, `min_retry_interval_millis`, `retry_on_timeout`, `timeout_seconds`) at
  job level, next to the job's own (`name`, `tags`, `schedule`, ...);
- the legacy form's nesting (the specification's), the same with four of the task's fields and
  `spark_env_vars` nested in `new_cluster` (``normalise_job_settings`` undoes that).

Lowering goes the other way for the legacy wire form only: a job that is exactly a lifted
legacy job the legacy form's nesting can express goes out in it, anything else as it is (Jobs 2.0
accepts the multi-task shape too).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from providers.client import sdk_shapes
from providers.client.connection import WireForm
from providers.client.wire import LEGACY_FORM_CLUSTER_FIELDS, normalise_job_settings, profile

LEGACY_TASK_KEY = "main"


@functools.cache
def task_types() -> tuple[str, ...]:
    """Every task type the SDK knows (`notebook_task`, `spark_python_task`, ...), in the
    order of its `Task` class (from the class's shape: the SDK's module stays unloaded)."""
    task = sdk_shapes.shapes("jobs").Task
    return tuple(name for name in sdk_shapes.fields(task) if name.endswith("_task"))


LEGACY_CLUSTER_FIELDS = ("new_cluster", "existing_cluster_id")
# The task's own fields in the Jobs 2.0 single-task shape, besides its cluster and type.
LEGACY_TASK_SETTINGS = (
    "libraries",
    "max_retries",
    "min_retry_interval_millis",
    "retry_on_timeout",
    "timeout_seconds",
)

# What the legacy form's nesting can carry: the task's part of the specification's create body ...
LEGACY_FORM_TASK_FIELDS = frozenset(
    {"task_key", *LEGACY_CLUSTER_FIELDS, "spark_python_task", "libraries", "max_retries",
     "timeout_seconds"}
)
# ... and the job-level fields of a Jobs 2.0 single-task job.
LEGACY_FORM_JOB_FIELDS = frozenset(
    {"name", "tags", "max_concurrent_runs", "email_notifications", "schedule", "tasks"}
)


def is_legacy_single_task(settings: Mapping[str, Any]) -> bool:
    """True for settings in a single-task shape: no `tasks`, and a task type or a cluster
    at job level."""
    if settings.get("tasks") is not None:
        return False
    if any(settings.get(name) is not None for name in LEGACY_CLUSTER_FIELDS):
        return True
    # Every task type's name ends so; only such a key needs the SDK's list.
    if not any(name.endswith("_task") for name in settings):
        return False
    return any(settings.get(name) is not None for name in task_types())


def lift(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Settings in any accepted shape -> a new dict in the canonical multi-task shape.

    Settings already in it come back as a copy; a single-task job becomes one task keyed
    ``LEGACY_TASK_KEY`` (its `format` marker is dropped: the result is multi-task).
    """
    if not is_legacy_single_task(settings):
        return copied(dict(settings))
    job = normalise_job_settings(dict(settings))
    task: dict[str, Any] = {"task_key": LEGACY_TASK_KEY}
    for name in (*task_types(), *LEGACY_CLUSTER_FIELDS, *LEGACY_TASK_SETTINGS):
        if name in job:
            task[name] = job.pop(name)
    cluster = task.get("new_cluster")
    if isinstance(cluster, dict) and "name" in cluster:
        # The specification's cluster `name` is the public cluster spec's `cluster_name`.
        cluster.setdefault("cluster_name", cluster.pop("name"))
    job.pop("format", None)
    job["tasks"] = [task]
    return job


def copied(value: Any) -> Any:
    """A copy of settings for the caller to change: every dict and list in them is new;
    anything else is shared, as nothing changes it in place (a JSON scalar, an unknown value
    of a preview). A third of `copy.deepcopy`'s cost, which a job's normal form pays per
    value on every read."""
    if isinstance(value, dict):
        return {key: copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [copied(item) for item in value]
    return value


def given_twice(settings: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(public place, legacy-form place) of each value a legacy job gives in both nestings with
    different values: lifting would have to drop one of them."""
    cluster = settings.get("new_cluster")
    if not isinstance(cluster, Mapping):
        return []
    log_conf = cluster.get("cluster_log_conf")
    places = [
        (name, f"new_cluster.{name}", settings.get(name), cluster.get(name))
        for name in LEGACY_FORM_CLUSTER_FIELDS
    ]
    places += [
        (
            "new_cluster.spark_env_vars",
            "new_cluster.cluster_log_conf.spark_env_vars",
            cluster.get("spark_env_vars"),
            log_conf.get("spark_env_vars") if isinstance(log_conf, Mapping) else None,
        ),
        ("new_cluster.cluster_name", "new_cluster.name", cluster.get("cluster_name"),
         cluster.get("name")),
    ]
    return [
        (place, legacy_place)
        for place, legacy_place, value, legacy_value in places
        if value is not None and legacy_value is not None and value != legacy_value
    ]


def legacy_single_task(settings: Mapping[str, Any]) -> dict[str, Any] | None:
    """The Jobs 2.0 single-task shape (public nesting) of canonical settings that are a
    lifted legacy job the legacy form's nesting can express, else None."""
    tasks = settings.get("tasks")
    if not isinstance(tasks, list) or len(tasks) != 1 or not isinstance(tasks[0], Mapping):
        return None
    task = tasks[0]
    if task.get("task_key") != LEGACY_TASK_KEY or not set(task) <= LEGACY_FORM_TASK_FIELDS:
        return None
    if not set(settings) <= LEGACY_FORM_JOB_FIELDS:
        return None
    job = {name: copied(value) for name, value in settings.items() if name != "tasks"}
    job.update({name: copied(value) for name, value in task.items() if name != "task_key"})
    return job


def to_wire(settings: Mapping[str, Any], form: WireForm) -> dict[str, Any]:
    """Full settings (create, reset) in the body the wire form sends, as a new dict."""
    canonical = lift(settings)
    if form is WireForm.LEGACY:
        legacy = legacy_single_task(canonical)
        if legacy is not None:
            return profile(WireForm.LEGACY).job_settings_to_wire(legacy)
    return canonical
