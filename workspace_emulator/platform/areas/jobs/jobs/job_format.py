"""How a job is kept and how each API version shows it.

Every job is stored in the canonical multi-task form (the Jobs 2.2 `settings`), together
with its `format` and, for a single-task job, the legacy layout it was given in:

- SINGLE_TASK: created (or last reset) through /api/2.0 in the legacy single-task shape
  (task settings at job level, in the seed or the public nesting), or with no tasks at all.
  Its task settings are lifted into one task keyed LEGACY_TASK_KEY ("main"):
  the task type, `new_cluster` | `existing_cluster_id`, `libraries` (also those the seed
  nesting keeps inside `new_cluster`), `max_retries`, `min_retry_interval_millis`,
  `retry_on_timeout` and `timeout_seconds` (a legacy job's timeout is its task's; without
  any other task setting it stays the job's).
- MULTI_TASK: everything else, including a legacy shape sent through /api/2.1 or 2.2.

Shown through /api/2.0, a SINGLE_TASK job comes back in the shape and nesting it was given
in; every other view is the canonical form, with `format: MULTI_TASK` (the public API
documents that 2.1 always reports MULTI_TASK).

Server-filled defaults, shown when the client left the field out:

- every view: `name: "Untitled"`, `max_concurrent_runs: 1`, `email_notifications: {}`,
  `format`, and `pause_status: "UNPAUSED"` in a `schedule`, `continuous` or `trigger`
  given without one;
- the canonical view also: `timeout_seconds: 0`, `webhook_notifications: {}`, and
  `run_if: "ALL_SUCCESS"` on each task that has `depends_on`;
- a job created or reset through /api/2.2 gets `queue: {enabled: true}` (queueing is on by
  default for jobs made with 2.2, off for 2.0 and 2.1); it is stored, so it shows in every
  view and `fields_to_remove: ["queue"]` turns it off.

`format` in a request is ignored, as the service documents.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from workspace_emulator.errors import InvalidParameter
from workspace_emulator.platform.areas.jobs.jobs import job_graph, job_settings

SINGLE_TASK, MULTI_TASK = "SINGLE_TASK", "MULTI_TASK"
LEGACY_TASK_KEY = "main"
LEGACY_VERSION = "2.0"
QUEUEING_VERSION = "2.2"
# Fields only a task has; a legacy job gives them at job level. `timeout_seconds` is a job
# field too: it moves into the legacy task only along with one of these.
TASK_ONLY_FIELDS = ("new_cluster", "existing_cluster_id", "libraries", "max_retries",
                    "min_retry_interval_millis", "retry_on_timeout")
LEGACY_TASK_FIELDS = (*TASK_ONLY_FIELDS, "timeout_seconds")
IGNORED_REQUEST_FIELDS = ("format",)
DEFAULT_JOB_NAME = "Untitled"
LEGACY_DEFAULTS: dict[str, Any] = {"max_concurrent_runs": 1, "email_notifications": {}}
CANONICAL_DEFAULTS: dict[str, Any] = {**LEGACY_DEFAULTS, "timeout_seconds": 0,
                                      "webhook_notifications": {}}
DEFAULT_RUN_IF = "ALL_SUCCESS"
KEYED_ARRAYS = {"tasks": "task_key", "job_clusters": "job_cluster_key"}
PAUSABLE = ("schedule", "continuous", "trigger")
DEFAULT_PAUSE_STATUS = "UNPAUSED"


@dataclass(frozen=True)
class LegacyLayout:
    """Where a single-task job's fields were given, to show them back the same way."""

    form: str  # job_settings.SEED_FORM or PUBLIC_FORM
    libraries_in_cluster: bool

    def to_doc(self) -> dict[str, Any]:
        return {"form": self.form, "libraries_in_cluster": self.libraries_in_cluster}

    @classmethod
    def from_doc(cls, doc: dict[str, Any]) -> LegacyLayout:
        return cls(doc["form"], doc["libraries_in_cluster"])


@dataclass(frozen=True)
class StoredSettings:
    settings: dict[str, Any]  # canonical multi-task form, without render-time defaults
    format: str
    layout: LegacyLayout | None = None  # set for SINGLE_TASK only


def is_task_only_field(name: str) -> bool:
    return name in TASK_ONLY_FIELDS or name.endswith(job_graph.TASK_TYPE_SUFFIX)


def legacy_task_fields(settings: dict[str, Any]) -> list[str]:
    """The fields that make settings the legacy single-task shape."""
    return [name for name in settings if is_task_only_field(name)]


def without_ignored(settings: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in settings.items() if k not in IGNORED_REQUEST_FIELDS}


def refuse_mixed(fields: list[str], prefix: str = "") -> InvalidParameter:
    listed = ", ".join(f"'{prefix}{name}'" for name in fields)
    return InvalidParameter(
        f"{listed} {'is a task setting' if len(fields) == 1 else 'are task settings'} of the "
        "single-task format and cannot be given at job level of a multi-task format job; "
        f"give {'it' if len(fields) == 1 else 'them'} inside each task (tasks[].{fields[0]})."
    )


def lift(legacy: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """Public-nesting legacy settings as canonical settings, and whether `libraries` came
    inside `new_cluster` (the seed nesting keeps them there)."""
    if not legacy_task_fields(legacy):
        return dict(legacy), False
    canonical: dict[str, Any] = {}
    task: dict[str, Any] = {"task_key": LEGACY_TASK_KEY}
    for name, value in legacy.items():
        moves = name in LEGACY_TASK_FIELDS or is_task_only_field(name)
        (task if moves else canonical)[name] = value
    cluster = task.get("new_cluster")
    libraries_in_cluster = isinstance(cluster, dict) and "libraries" in cluster
    if isinstance(cluster, dict) and libraries_in_cluster:
        cluster = dict(cluster)
        libraries = cluster.pop("libraries")
        if "libraries" in task and task["libraries"] != libraries:
            raise InvalidParameter(
                "'libraries' is given twice with different values (at job level and inside "
                "new_cluster); give it once."
            )
        task.update(new_cluster=cluster, libraries=libraries)
    canonical["tasks"] = [task]
    return canonical, libraries_in_cluster


def unlift(canonical: dict[str, Any], layout: LegacyLayout) -> dict[str, Any]:
    """The inverse of `lift`, in the public nesting."""
    legacy = {k: v for k, v in canonical.items() if k != "tasks"}
    tasks = canonical.get("tasks") or []
    if not tasks:
        return legacy
    task = {k: v for k, v in tasks[0].items() if k != "task_key"}
    libraries = task.pop("libraries", None)
    legacy.update(task)
    if libraries is not None:
        cluster = legacy.get("new_cluster")
        if layout.libraries_in_cluster and isinstance(cluster, dict):
            legacy["new_cluster"] = {**cluster, "libraries": libraries}
        else:
            legacy["libraries"] = libraries
    return legacy


def _with_stored_defaults(settings: dict[str, Any], version: str) -> dict[str, Any]:
    settings.setdefault("name", DEFAULT_JOB_NAME)
    if version == QUEUEING_VERSION:
        settings.setdefault("queue", {"enabled": True})
    return settings


def from_request(settings: Any, version: str) -> StoredSettings:
    """A create or reset body, in any accepted shape, checked field by field and stored
    canonically. The rules between tasks (job_graph.check) are the caller's next step."""
    job_settings.expect(settings, dict, "settings")
    settings = without_ignored(settings)
    form = job_settings.detect_form(settings)
    public = job_settings.validate(job_settings.to_public_form(settings))
    legacy = legacy_task_fields(public)
    if "tasks" in public:
        if legacy:
            raise refuse_mixed(legacy)
        job_graph.check_task_types(public["tasks"])
        return StoredSettings(_with_stored_defaults(public, version), MULTI_TASK)
    canonical, libraries_in_cluster = lift(public)
    canonical = _with_stored_defaults(canonical, version)
    if version == LEGACY_VERSION:
        return StoredSettings(canonical, SINGLE_TASK, LegacyLayout(form, libraries_in_cluster))
    return StoredSettings(canonical, MULTI_TASK)


def _canonical_view(settings: dict[str, Any]) -> dict[str, Any]:
    view = {**CANONICAL_DEFAULTS, **settings, "format": MULTI_TASK}
    if "tasks" in view:
        view["tasks"] = [
            {**task, "run_if": DEFAULT_RUN_IF} if task.get("depends_on") and "run_if" not in task
            else task
            for task in view["tasks"]
        ]
    return view


def _with_pause_status(settings: dict[str, Any]) -> dict[str, Any]:
    for name in PAUSABLE:
        if isinstance(settings.get(name), dict) and "pause_status" not in settings[name]:
            settings[name] = {**settings[name], "pause_status": DEFAULT_PAUSE_STATUS}
    return settings


def render(stored: StoredSettings, version: str) -> dict[str, Any]:
    """The settings as `jobs/get` through /api/<version> shows them, defaults filled in."""
    if stored.format == SINGLE_TASK and version == LEGACY_VERSION:
        assert stored.layout is not None
        legacy = {**LEGACY_DEFAULTS, **unlift(stored.settings, stored.layout),
                  "format": SINGLE_TASK}
        return _with_pause_status(job_settings.render(legacy, stored.layout.form))
    return _with_pause_status(_canonical_view(stored.settings))


def upgraded(doc: dict[str, Any]) -> StoredSettings:
    """A stored job document as StoredSettings, including documents written before jobs were
    stored canonically (public-nesting settings plus `settings_form`)."""
    if "format" in doc:
        layout = doc.get("legacy_layout")
        return StoredSettings(doc["settings"], doc["format"],
                              LegacyLayout.from_doc(layout) if layout else None)
    old = without_ignored(doc["settings"])
    if "tasks" in old:
        return StoredSettings(old, MULTI_TASK)
    canonical, libraries_in_cluster = lift(old)
    return StoredSettings(canonical, SINGLE_TASK,
                          LegacyLayout(doc["settings_form"], libraries_in_cluster))
