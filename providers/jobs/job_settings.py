"""A job's settings at the full depth of Jobs API 2.2: the input model and every check rule.

`JobSettingsModel` is the model of the SDK's `jobs.JobSettings` (and all it nests), derived by
`providers.core.sdk_schema`, with the few rules of our own that users already rely on (a named job,
PyPI libraries pinned to one version, the deployment tag key reserved). It reads the settings
exactly as `jobs/get` returns them under `settings`, and it lifts the two legacy single-task
shapes (the legacy form's nesting and the public Jobs 2.0 shape) to one task keyed
`LEGACY_TASK_KEY`.

`problems()` holds the rules that span fields: references between tasks, job clusters and
environments, the dependency graph, task types and their compute, path forms, schedules,
triggers, and the ranges the service documents. Every problem is `(path, reason)`, with keyed
items named by their key: `tasks[transform].depends_on[0].task_key`. `check_settings()` runs
both and returns the same pairs for pydantic's own errors.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import json
import re
import zoneinfo
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, TypeAdapter, ValidationError, model_validator

from providers.client.sdk_services import jobs
from providers.compute.rules import (
    COMPUTE_RULES,
    URI,
    Found,
    Loc,
    _exactly_one,
    _field_names,
    _given,
    _one_of,
    _range,
    cluster_problems,
    library_problems,
)
from providers.core.create_or_adopt import DEPLOYMENT_TAG_KEY
from providers.core.sdk_schema import ClassRules, model_at, model_of
from providers.jobs import job_wire

LEGACY_TASK_KEY = "main"


# What the SDK's classes say, so that a new task type or storage kind arrives with the pin.
TASK_TYPES = job_wire.task_types()
CLUSTER_FIELDS = ("existing_cluster_id", "job_cluster_key", "new_cluster")
TRIGGER_KINDS = _field_names(jobs.TriggerSettings, leave_out={"pause_status"})
TRIGGER_VARIANTS = _field_names(jobs.TriggerConfiguration, leave_out={"pause_status"})
RUN_AS_PRINCIPALS = _field_names(jobs.JobRunAs)
SQL_TASK_KINDS = ("alert", "dashboard", "file", "query")
GIT_REFERENCES = ("git_branch", "git_tag", "git_commit")
JOB_TRIGGER_FIELDS = ("schedule", "continuous", "trigger")

# Task fields a legacy single-task job gives at job level; `timeout_seconds` joins them there.
LEGACY_TASK_FIELDS = (
    *TASK_TYPES,
    "existing_cluster_id",
    "new_cluster",
    "libraries",
    "max_retries",
    "min_retry_interval_millis",
    "retry_on_timeout",
)

# Lists of the job whose items have a key, and the field that holds it.
KEYED_LISTS = {
    "tasks": "task_key",
    "job_clusters": "job_cluster_key",
    "environments": "environment_key",
    "parameters": "name",
    "environment_variables": "environment_variables_key",
}

# Documented limits of the service.
MAX_TASKS = 1000
MAX_TAGS = 25
MAX_CONCURRENT_RUNS = 1000
MAX_ENVIRONMENT_VARIABLE_ENTRIES = 10
MAX_INLINE_VARIABLES = 20
MAX_DBT_COMMANDS = 10
MIN_TRIGGER_SECONDS = 60
# Objects that rules elsewhere look at (a job's git_source, a task's condition_task): a check
# never judges the rest without them.
REFERENCED_OBJECTS = frozenset({"git_source", "condition_task"})
_MAX_CUT_ROUNDS = 4
KEY_PATTERN = re.compile(r"^[\w-]{1,100}$", re.ASCII)  # task and job cluster keys
KEY_RULE = "1 to 100 letters, digits, '_' or '-'"
PARAMETER_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
VARIABLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,255}$")


# Task types that run on a cluster or, with an environment, on serverless compute.
NEEDS_COMPUTE = ("spark_python_task", "python_wheel_task", "spark_jar_task", "dbt_task")
NUMERIC_CONDITIONS = {"GREATER_THAN", "GREATER_THAN_OR_EQUAL", "LESS_THAN", "LESS_THAN_OR_EQUAL"}


# --- our rules on the derived model ----------------------------------------------------


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank: give the job a name")
    return value


def _no_reserved_tag(tags: dict[str, str]) -> dict[str, str]:
    if DEPLOYMENT_TAG_KEY in tags:
        raise ValueError(
            f"the key {DEPLOYMENT_TAG_KEY!r} is reserved: the provider tags the job with its "
            "deployment there; use another key"
        )
    return tags


JOB_RULES: dict[str, ClassRules] = {
    **COMPUTE_RULES,
    "JobSettings": ClassRules(
        fields={
            "name": Annotated[str, AfterValidator(_not_blank)],
            "tags": Annotated[dict[str, str], AfterValidator(_no_reserved_tag)],
        },
        required=("name",),
    ),
}


# --- the legacy single-task shapes -----------------------------------------------------


class LegacyShapeError(ValueError):
    """Legacy single-task settings that cannot be lifted (a value given twice, or legacy
    fields beside `tasks`). The message names every place involved; `path` is where the
    check reports it."""

    def __init__(self, message: str, path: str) -> None:
        super().__init__(message)
        self.path = path


def is_legacy(settings: Any) -> bool:
    """Whether `settings` is in a single-task shape (the legacy form's nesting or Jobs 2.0)."""
    return _has_legacy_fields(settings) and "tasks" not in settings


def _has_legacy_fields(settings: Any) -> bool:
    return isinstance(settings, Mapping) and any(name in settings for name in LEGACY_TASK_FIELDS)


def lift_legacy(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Settings in either legacy single-task shape -> the same job with one task keyed
    `LEGACY_TASK_KEY` (new dicts; the argument is not changed), as the client lifts what it
    reads (`job_wire.lift`). Settings in the multi-task shape come back as they are. Raises
    LegacyShapeError where a value is given twice or legacy fields stand beside `tasks`."""
    stray = [name for name in LEGACY_TASK_FIELDS if name in settings]
    if not stray:
        return dict(settings)
    if "tasks" in settings:
        name = stray[0]
        where = (
            "a task (tasks[].new_cluster) or job_clusters"
            if name == "new_cluster"
            else f"the task(s) that use it (tasks[].{name})"
        )
        raise LegacyShapeError(
            f"{name} is a single-task field, and this job has tasks: move it into {where}", name
        )
    for place, legacy_place in job_wire.given_twice(settings)[:1]:
        raise LegacyShapeError(
            f"{place} and {legacy_place} (the legacy form's nesting) are both given, with "
            "different values; give it once",
            "new_cluster",
        )
    lifted = job_wire.lift(settings)
    if "tasks" not in lifted:  # task fields without a task type or a cluster
        moved = (*LEGACY_TASK_FIELDS, "timeout_seconds")
        task = {"task_key": LEGACY_TASK_KEY, **{k: lifted.pop(k) for k in moved if k in lifted}}
        lifted["tasks"] = [task]
    return lifted


# --- the model -------------------------------------------------------------------------

_DerivedJobSettings: Any = model_of(jobs.JobSettings, overrides=JOB_RULES)


class JobSettingsModel(_DerivedJobSettings):
    """A job's settings: Jobs API 2.2 `JobSettings`, or a legacy single-task shape (lifted)."""

    @model_validator(mode="before")
    @classmethod
    def _lift_legacy(cls, data: Any) -> Any:
        return lift_legacy(data) if _has_legacy_fields(data) else data


def check_settings(
    inputs: Mapping[str, Any],
) -> tuple[JobSettingsModel | None, list[tuple[str, str]]]:
    """Validate `inputs` -> (the model, []) when all is well, else (the model or None, every
    (path, reason)): pydantic's errors when the shape is wrong, else `problems()`."""
    try:
        settings = JobSettingsModel.model_validate(inputs)
    except ValidationError as error:
        errors = error.errors(include_url=False)
        found = [(_where(e, inputs), _reason(e)) for e in errors]
        return None, found + _problems_beside(inputs, errors)
    return settings, problems(settings, inputs)


def _problems_beside(inputs: Mapping[str, Any], errors: Sequence[Any]) -> list[tuple[str, str]]:
    """The rules across fields, judged on the settings without the values pydantic refused,
    so that one check names every problem. A refused value is left out, and so is an object
    its absence leaves without a required field; a problem in the object that held a value
    left out, or at or above it, is not reported (it may be only that absence). Nothing is
    judged where leaving out would renumber a list or remove what other rules refer to."""
    if any(isinstance((e.get("ctx") or {}).get("error"), LegacyShapeError) for e in errors):
        return []
    rest = copy.deepcopy(lift_legacy(inputs) if _has_legacy_fields(inputs) else dict(inputs))
    cuts: list[Loc] = []
    pending = [(tuple(e["loc"]), e["type"]) for e in errors]
    fields: dict[str, Any] = {}
    for _ in range(_MAX_CUT_ROUNDS):
        for loc, kind in pending:
            place = loc[:-1] if kind == "missing" else loc
            if not place and kind == "missing":
                continue  # a required field of the job: absent, and reported
            if not place or place[-1] in REFERENCED_OBJECTS or not _cut_out(rest, place):
                return []
            cuts.append(place)
        pending, fields = [], {}
        for name, value in rest.items():
            adapter = _field_adapter(name)
            if adapter is None:
                return []
            try:
                fields[name] = adapter.validate_python(value)
            except ValidationError as error:
                pending += [((name, *e["loc"]), e["type"]) for e in error.errors()]
        if not pending:
            break
    else:
        return []
    settings = JobSettingsModel.model_construct(**fields)
    return [
        (error_path(loc, inputs), reason)
        for loc, reason in _job_problems(settings)
        if not any(_near(loc, cut) for cut in cuts)
    ]


def _near(loc: Loc, cut: Loc) -> bool:
    """Whether a problem at `loc` may come from leaving out the value at `cut`."""
    holder = cut[:-1]
    return loc == cut[: len(loc)] or (bool(holder) and loc[: len(holder)] == holder)


def _cut_out(data: Any, loc: Loc) -> bool:
    """Removes the value at `loc` (a key of a mapping) from `data`; False where it cannot."""
    *parents, last = loc
    node = data
    for part in parents:
        node = _child(node, part)
    if not isinstance(node, dict) or not isinstance(last, str):
        return False  # a list item: removing it would renumber the others
    node.pop(last, None)
    return True


@functools.cache
def _field_adapter(name: str) -> TypeAdapter[Any] | None:
    field = JobSettingsModel.model_fields.get(name)
    if field is None:
        return None
    return TypeAdapter(field.rebuild_annotation())


def _where(error: Any, inputs: Mapping[str, Any]) -> str:
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, LegacyShapeError):  # raised before any field had a place
        return cause.path
    return error_path(error["loc"], inputs)


def _reason(error: Any) -> str:
    kind = error["type"]
    if kind == "value_error":
        return str(error["ctx"]["error"])
    if kind == "missing":
        return "Field required"
    if kind == "extra_forbidden":
        loc = tuple(error["loc"])
        parent = model_at(JobSettingsModel, loc[:-1])
        if parent is not None:
            known = [*parent.model_fields, *(LEGACY_TASK_FIELDS if len(loc) == 1 else ())]
            hint = _did_you_mean(str(loc[-1]), known)
            return f"unknown key{hint or f' (not a field of {parent.__name__})'}"
        return "unknown key"
    return str(error["msg"])


# --- paths -----------------------------------------------------------------------------


def error_path(loc: Sequence[int | str], inputs: Any) -> str:
    """A pydantic error location (or one of `problems()`) as the path the user wrote:
    `tasks.1.depends_on.0.task_key` -> `tasks[transform].depends_on[0].task_key`. Items of the
    job's keyed lists are named by their key (by index while the key is missing or repeated);
    for legacy single-task inputs, the lifted task's fields are named where they were given."""
    loc = tuple(loc)
    if loc[:2] == ("tasks", 0) and is_legacy(inputs):
        loc = _legacy_place(inputs, loc[2:])
    return _render(loc, inputs)


def _legacy_place(inputs: Mapping[str, Any], rest: Loc) -> Loc:
    if not rest:
        return ()
    field, tail = rest[0], rest[1:]
    cluster = inputs.get("new_cluster")
    if not isinstance(cluster, Mapping):
        return rest
    if field == "new_cluster" and tail:
        if tail[0] == "spark_env_vars" and "spark_env_vars" not in cluster:
            return ("new_cluster", "cluster_log_conf", "spark_env_vars", *tail[1:])
        if tail[0] == "cluster_name" and "cluster_name" not in cluster and "name" in cluster:
            return ("new_cluster", "name", *tail[1:])
    if field not in inputs and field in cluster:
        return ("new_cluster", *rest)
    return rest


def _render(loc: Loc, root: Any) -> str:
    text, node = "", root
    for depth, part in enumerate(loc):
        if isinstance(part, int):
            key = _item_key(str(loc[0]), node, part) if depth == 1 else None
            text += f"[{key if key is not None else part}]"
        else:
            text += f".{part}" if text else str(part)
        node = _child(node, part)
    return text


def _item_key(field: str, items: Any, index: int) -> str | None:
    key_field = KEYED_LISTS.get(field)
    if key_field is None or not isinstance(items, list) or not 0 <= index < len(items):
        return None
    keys = [_child(item, key_field) for item in items]
    key = keys[index]
    return key if isinstance(key, str) and key and keys.count(key) == 1 else None


def _child(node: Any, part: int | str) -> Any:
    if isinstance(part, int):
        return node[part] if isinstance(node, list) and 0 <= part < len(node) else None
    if isinstance(node, Mapping):
        return node.get(part)
    if isinstance(node, BaseModel):
        return getattr(node, part, None)
    return None


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


# --- the cross-field rules -------------------------------------------------------------


@dataclasses.dataclass
class _Job:
    """What the rules of one task need to know of the job around it."""

    tasks: dict[str, Any]
    cluster_keys: list[str]
    environment_keys: list[str]
    variable_keys: list[str]
    has_git_source: bool
    # Declared in a legacy single-task shape, whose task type is optional (a job of a
    # cluster and settings only, as Jobs 2.0 has it).
    legacy: bool = False


def problems(
    settings: JobSettingsModel, inputs: Mapping[str, Any] | None = None
) -> list[tuple[str, str]]:
    """Every rule across fields that `settings` breaks, as (path, reason). Paths are rendered
    against `inputs` when given (so a legacy shape is named as written), else `settings`."""
    found = list(_job_problems(settings, legacy=inputs is not None and is_legacy(inputs)))
    root = inputs if inputs is not None else settings
    return [(error_path(loc, root), reason) for loc, reason in found]


def _job_problems(settings: Any, *, legacy: bool = False) -> Found:
    tasks = settings.tasks or []
    job = _Job(
        tasks={t.task_key: t for t in tasks},
        cluster_keys=[c.job_cluster_key for c in settings.job_clusters or []],
        environment_keys=[e.environment_key for e in settings.environments or []],
        variable_keys=[v.environment_variables_key for v in settings.environment_variables or []],
        has_git_source=settings.git_source is not None,
        legacy=legacy,
    )
    if len(tasks) > MAX_TASKS:
        yield ("tasks",), f"has {len(tasks)} tasks; a job holds at most {MAX_TASKS}"
    yield from _keys(tasks, "tasks", "task_key", "task", pattern=KEY_PATTERN)
    yield from _keys(
        settings.job_clusters or [],
        "job_clusters",
        "job_cluster_key",
        "job cluster",
        pattern=KEY_PATTERN,
    )
    yield from _keys(settings.environments or [], "environments", "environment_key", "environment")
    yield from _keys(settings.parameters or [], "parameters", "name", "job parameter")
    yield from _keys(
        settings.environment_variables or [],
        "environment_variables",
        "environment_variables_key",
        "environment variables entry",
    )
    for index, task in enumerate(tasks):
        yield from _task_problems(task, ("tasks", index), job)
    yield from _dependency_cycles(tasks)
    for index, cluster in enumerate(settings.job_clusters or []):
        if cluster.new_cluster is not None:
            yield from cluster_problems(
                cluster.new_cluster, ("job_clusters", index, "new_cluster")
            )
    yield from _environment_problems(settings)
    yield from _parameter_problems(settings)
    yield from _range(
        settings.max_concurrent_runs, ("max_concurrent_runs",), 0, MAX_CONCURRENT_RUNS
    )
    yield from _range(settings.timeout_seconds, ("timeout_seconds",), 0, None, "0 means none")
    if settings.tags and len(settings.tags) > MAX_TAGS:
        yield ("tags",), f"has {len(settings.tags)} tags; a job takes at most {MAX_TAGS}"
    yield from _health_problems(settings.health, ("health",))
    yield from _run_as_problems(settings.run_as)
    yield from _git_source_problems(settings.git_source)
    yield from _trigger_problems(settings)


def _keys(
    items: list[Any], field: str, key_field: str, what: str, *, pattern: re.Pattern | None = None
) -> Found:
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        key = getattr(item, key_field)
        if pattern is not None and not pattern.match(key):
            yield (field, index, key_field), f"{key!r} is not a valid key: {KEY_RULE}"
        if key in first:
            yield (
                (field, index, key_field),
                (
                    f"{what} {key!r} is given twice ({field}[{first[key]}] and {field}[{index}]); "
                    f"each {key_field} must be unique in the job"
                ),
            )
        else:
            first[key] = index


def _task_problems(task: Any, loc: Loc, job: _Job, *, nested: bool = False) -> Found:
    types = _given(task, TASK_TYPES)
    if not types and not (job.legacy and not nested):
        yield loc, f"no task type: give one of {_one_of(TASK_TYPES)}"
    elif len(types) > 1:
        # Named at a field the user wrote, also where a legacy job gives it at job level.
        yield (
            (*loc, types[-1]),
            f"gives {len(types)} task types ({', '.join(types)}); a task has one",
        )
    yield from _compute_problems(task, loc, types, job)
    if not nested:
        yield from _dependency_problems(task, loc, job)
    yield from _range(task.timeout_seconds, (*loc, "timeout_seconds"), 0, None, "0 means none")
    yield from _range(task.max_retries, (*loc, "max_retries"), -1, None, "-1 retries forever")
    yield from _range(task.min_retry_interval_millis, (*loc, "min_retry_interval_millis"), 0)
    yield from _health_problems(task.health, (*loc, "health"))
    for index, library in enumerate(task.libraries or []):
        yield from library_problems(library, (*loc, "libraries", index))
    if task.new_cluster is not None:
        yield from cluster_problems(task.new_cluster, (*loc, "new_cluster"))
    yield from _source_problems(task, loc, job)
    if task.condition_task is not None:
        yield from _condition_problems(task.condition_task, (*loc, "condition_task"))
    if task.sql_task is not None:
        yield from _exactly_one(task.sql_task, SQL_TASK_KINDS, (*loc, "sql_task"), "SQL task kind")
    if task.dbt_task is not None:
        yield from _dbt_problems(task.dbt_task, (*loc, "dbt_task"))
    if task.run_job_task is not None and task.run_job_task.job_id <= 0:
        yield (*loc, "run_job_task", "job_id"), "must be the id of a job (a positive number)"
    if task.for_each_task is not None:
        yield from _for_each_problems(task.for_each_task, (*loc, "for_each_task"), job, nested)


def _compute_problems(task: Any, loc: Loc, types: list[str], job: _Job) -> Found:
    clusters = _given(task, CLUSTER_FIELDS)
    if len(clusters) > 1:
        yield (
            (*loc, clusters[-1]),
            f"gives {len(clusters)} computes ({', '.join(clusters)}); give one",
        )
    for task_type in types:
        if task_type in NEEDS_COMPUTE and not clusters and task.environment_key is None:
            yield (
                (*loc, task_type),
                (
                    f"{task_type} needs compute: give job_cluster_key, existing_cluster_id, "
                    "new_cluster, or environment_key (serverless)"
                ),
            )
        if task_type == "spark_submit_task" and clusters in ([], ["existing_cluster_id"]):
            yield (
                (*loc, task_type),
                "spark_submit_task runs only on a new cluster: give new_cluster or a job cluster",
            )
    yield from _reference(
        task.job_cluster_key,
        (*loc, "job_cluster_key"),
        job.cluster_keys,
        "job cluster",
        "job_clusters",
    )
    yield from _reference(
        task.environment_key,
        (*loc, "environment_key"),
        job.environment_keys,
        "environment",
        "environments",
    )
    yield from _reference(
        task.environment_variables_key,
        (*loc, "environment_variables_key"),
        job.variable_keys,
        "environment variables entry",
        "environment_variables",
    )


def _reference(key: str | None, loc: Loc, known: list[str], what: str, where: str) -> Found:
    if key is None or key in known:
        return
    if not known:
        yield loc, f"no {what} {key!r} in this job: define it in {where}"
    else:
        yield loc, f"no {what} {key!r} in this job{_did_you_mean(key, known)}"


def _dependency_problems(task: Any, loc: Loc, job: _Job) -> Found:
    for index, dependency in enumerate(task.depends_on or []):
        where = (*loc, "depends_on", index)
        key = dependency.task_key
        if key == task.task_key:
            yield (*where, "task_key"), "a task cannot depend on itself"
            continue
        upstream = job.tasks.get(key)
        if upstream is None:
            yield (
                (*where, "task_key"),
                f"no task {key!r} in this job{_did_you_mean(key, job.tasks)}",
            )
            continue
        if dependency.outcome is not None:
            if upstream.condition_task is None:
                yield (
                    (*where, "outcome"),
                    f"an outcome is for a dependency on a condition task, and {key!r} is not one",
                )
            elif dependency.outcome not in ("true", "false"):
                yield (*where, "outcome"), f"must be 'true' or 'false', got {dependency.outcome!r}"


def _dependency_cycles(tasks: list[Any]) -> Found:
    index_of = {task.task_key: index for index, task in enumerate(tasks)}
    upstream = {
        task.task_key: [d.task_key for d in task.depends_on or [] if d.task_key in index_of]
        for task in tasks
    }
    done: set[str] = set()
    for start in upstream:
        if start in done:
            continue
        # Depth-first over dependencies; a dependency already on the path closes a cycle.
        path: list[str] = [start]
        branches = [iter(upstream[start])]
        while branches:
            key = next(branches[-1], None)
            if key is None:
                done.add(path.pop())
                branches.pop()
                continue
            if key in path:
                cycle = [*path[path.index(key) :], key]
                last = tasks[index_of[path[-1]]]
                entry = next(i for i, d in enumerate(last.depends_on) if d.task_key == key)
                if path[-1] != key:  # depending on itself is reported on its own
                    yield (
                        ("tasks", index_of[path[-1]], "depends_on", entry, "task_key"),
                        f"dependency cycle: {' -> '.join(cycle)} (each depends on the next)",
                    )
            elif key not in done:
                path.append(key)
                branches.append(iter(upstream[key]))


def _for_each_problems(loop: Any, loc: Loc, job: _Job, nested: bool) -> Found:
    if "{{" not in loop.inputs:
        try:
            items = json.loads(loop.inputs)
        except ValueError:
            items = None
        if not isinstance(items, list):
            yield (
                (*loc, "inputs"),
                (
                    'must be a JSON array (e.g. \'["a", "b"]\') or a reference to an array '
                    "(e.g. '{{job.parameters.items}}')"
                ),
            )
    yield from _range(loop.concurrency, (*loc, "concurrency"), 1)
    if loop.task.for_each_task is not None:
        yield (*loc, "task", "for_each_task"), "a for-each task cannot run another for-each task"
    else:
        yield from _task_problems(loop.task, (*loc, "task"), job, nested=True)


def _condition_problems(condition: Any, loc: Loc) -> Found:
    if condition.op not in NUMERIC_CONDITIONS:
        return
    for side in ("left", "right"):
        operand = getattr(condition, side)
        if "{{" in operand:
            continue
        try:
            float(operand)
        except ValueError:
            yield (
                (*loc, side),
                (
                    f"{condition.op} compares numbers: give a number or a reference such as "
                    f"'{{{{tasks.check.values.count}}}}', got {operand!r}"
                ),
            )


def _dbt_problems(dbt: Any, loc: Loc) -> Found:
    if not dbt.commands:
        yield (*loc, "commands"), "give at least one dbt command (e.g. 'dbt run')"
    elif len(dbt.commands) > MAX_DBT_COMMANDS:
        yield (*loc, "commands"), f"has {len(dbt.commands)} commands; at most {MAX_DBT_COMMANDS}"
    for index, command in enumerate(dbt.commands):
        if command.split(maxsplit=1)[:1] != ["dbt"]:
            yield (*loc, "commands", index), f"a dbt command starts with 'dbt', got {command!r}"
    if dbt.profiles_directory is not None and dbt.warehouse_id is not None:
        yield (*loc, "profiles_directory"), "give profiles_directory or warehouse_id, not both"
    if dbt.catalog is not None and dbt.warehouse_id is None:
        yield (*loc, "catalog"), "a catalog needs warehouse_id"


# Where each task type names a file, and whether the path may also be a URI (cloud storage).
_SOURCE_PATHS = (
    ("notebook_task", ("notebook_path",), False),
    ("spark_python_task", ("python_file",), True),
    ("sql_task", ("file", "path"), False),
    ("dbt_task", ("project_directory",), False),
)


def _source_problems(task: Any, loc: Loc, job: _Job) -> Found:
    for task_type, path_fields, uri_allowed in _SOURCE_PATHS:
        holder = getattr(task, task_type)
        for name in path_fields[:-1]:
            holder = getattr(holder, name, None) if holder is not None else None
        if holder is None:
            continue
        where = (*loc, task_type, *path_fields[:-1])
        if holder.source == "GIT" and not job.has_git_source:
            yield (*where, "source"), "source GIT needs git_source on the job"
        path = getattr(holder, path_fields[-1])
        if path is None:
            continue
        # With no source given, the job's git_source makes it GIT, except that a Python file
        # may also still name a workspace or cloud file then.
        source = holder.source or ("GIT" if job.has_git_source else "WORKSPACE")
        ambiguous = holder.source is None and job.has_git_source and uri_allowed
        absolute = path.startswith("/") or (uri_allowed and bool(URI.match(path)))
        if ambiguous:
            continue
        if source == "GIT" and absolute:
            yield (
                (*where, path_fields[-1]),
                (
                    "with source GIT (the default when the job has git_source) the path is "
                    "relative to the repository root, e.g. 'src/etl'; give source: WORKSPACE "
                    "for a workspace path"
                ),
            )
        elif source != "GIT" and not absolute:
            example = "'/Workspace/Users/me@example.com/etl'" + (
                " or a URI such as 'dbfs:/jobs/etl.py'" if uri_allowed else ""
            )
            yield (
                (*where, path_fields[-1]),
                (
                    f"a workspace path is absolute, e.g. {example}; a relative path needs "
                    "source: GIT and git_source on the job"
                ),
            )


def _environment_problems(settings: Any) -> Found:
    for index, environment in enumerate(settings.environments or []):
        spec = environment.spec
        if spec is None:
            continue
        loc = ("environments", index, "spec")
        if (
            spec.environment_version is None
            and spec.base_environment is None
            and (spec.client is None)
        ):
            yield loc, "give environment_version (e.g. '2') or base_environment"
        elif spec.environment_version is not None and spec.base_environment is not None:
            yield loc, "give environment_version or base_environment, not both"
    entries = settings.environment_variables or []
    if len(entries) > MAX_ENVIRONMENT_VARIABLE_ENTRIES:
        yield (
            ("environment_variables",),
            f"has {len(entries)} entries; a job takes at most {MAX_ENVIRONMENT_VARIABLE_ENTRIES}",
        )
    for index, entry in enumerate(entries):
        spec = entry.spec
        if spec is None:
            continue
        loc = ("environment_variables", index, "spec")
        variables = spec.variables or {}
        if len(variables) > MAX_INLINE_VARIABLES:
            yield (
                (*loc, "variables"),
                f"has {len(variables)} variables; at most {MAX_INLINE_VARIABLES}",
            )
        for name in variables:
            if not VARIABLE_NAME.match(name):
                yield (
                    (*loc, "variables", name),
                    (
                        "a variable name starts with a letter or '_' and holds only letters, "
                        "digits and '_' (at most 256)"
                    ),
                )
        for file_index, path in enumerate(spec.files or []):
            if not path.startswith(("/Workspace/", "/Volumes/")):
                yield (
                    (*loc, "files", file_index),
                    f"give a /Workspace/... or /Volumes/... path, got {path!r}",
                )


def _parameter_problems(settings: Any) -> Found:
    for index, parameter in enumerate(settings.parameters or []):
        if not PARAMETER_NAME.match(parameter.name):
            yield (
                ("parameters", index, "name"),
                (
                    f"{parameter.name!r}: a parameter name holds only letters, digits, '_', '-' "
                    "and '.'"
                ),
            )


def _health_problems(health: Any, loc: Loc) -> Found:
    for index, rule in enumerate((health.rules or []) if health is not None else []):
        yield from _range(rule.value, (*loc, "rules", index, "value"), 0)


def _run_as_problems(run_as: Any) -> Found:
    if run_as is not None:
        yield from _exactly_one(run_as, RUN_AS_PRINCIPALS, ("run_as",), "principal")


def _git_source_problems(git: Any) -> Found:
    if git is None:
        return
    yield from _exactly_one(git, GIT_REFERENCES, ("git_source",), "git reference")
    if not git.git_url.startswith("https://"):
        yield (
            ("git_source", "git_url"),
            f"give the repository's https:// URL, got {git.git_url!r}",
        )


def _trigger_problems(settings: Any) -> Found:
    given = _given(settings, JOB_TRIGGER_FIELDS)
    if len(given) > 1:
        yield (
            (given[1],),
            (
                f"{' and '.join(given)} are given together; a job runs on one of schedule, "
                "continuous and trigger"
            ),
        )
    if settings.triggers and given:
        yield ("triggers",), f"triggers replaces {' and '.join(given)}: give one or the other"
    if settings.schedule is not None:
        yield from _cron_problems(settings.schedule, ("schedule",))
    if settings.continuous is not None:
        yield from _window_problems(settings.continuous.maintenance_window, ("continuous",))
    if settings.trigger is not None:
        yield from _exactly_one(settings.trigger, TRIGGER_KINDS, ("trigger",), "trigger kind")
        yield from _trigger_kind_problems(settings.trigger, ("trigger",))
    for index, trigger in enumerate(settings.triggers or []):
        loc = ("triggers", index)
        yield from _exactly_one(trigger, TRIGGER_VARIANTS, loc, "trigger kind")
        yield from _trigger_kind_problems(trigger, loc)
        if trigger.schedule is not None:
            yield from _cron_problems(trigger.schedule, (*loc, "schedule"))
        if trigger.continuous is not None:
            yield from _window_problems(trigger.continuous.maintenance_window, (*loc, "continuous"))


def _trigger_kind_problems(trigger: Any, loc: Loc) -> Found:
    for kind in ("file_arrival", "table_update", "model"):
        config = getattr(trigger, kind, None)
        if config is None:
            continue
        for name in ("min_time_between_triggers_seconds", "wait_after_last_change_seconds"):
            yield from _range(getattr(config, name), (*loc, kind, name), MIN_TRIGGER_SECONDS)
    arrival = getattr(trigger, "file_arrival", None)
    if arrival is not None and not (
        arrival.url.startswith("/Volumes/") or re.match(r"^[a-z][a-z0-9+.-]*://.", arrival.url)
    ):
        yield (
            (*loc, "file_arrival", "url"),
            (
                "give the external location's URL (e.g. 's3://bucket/landing/') or a volume path "
                f"(e.g. '/Volumes/main/raw/landing/'), got {arrival.url!r}"
            ),
        )
    update = getattr(trigger, "table_update", None)
    if update is not None and not update.table_names:
        yield (*loc, "table_update", "table_names"), "give at least one table"
    periodic = getattr(trigger, "periodic", None)
    if periodic is not None:
        yield from _range(periodic.interval, (*loc, "periodic", "interval"), 1)


def _window_problems(window: Any, loc: Loc) -> Found:
    if window is not None:
        where = (*loc, "maintenance_window")
        yield from _range(window.start_hour, (*where, "start_hour"), 0, 23)
        problem = timezone_problem(window.timezone_id)
        if problem:
            yield (*where, "timezone_id"), problem


def _cron_problems(schedule: Any, loc: Loc) -> Found:
    problem = cron_problem(schedule.quartz_cron_expression)
    if problem:
        yield (*loc, "quartz_cron_expression"), problem
    problem = timezone_problem(schedule.timezone_id)
    if problem:
        yield (*loc, "timezone_id"), problem


# --- Quartz cron expressions and time zones --------------------------------------------

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_DAYS = ("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT")


@dataclasses.dataclass(frozen=True)
class _CronField:
    name: str
    low: int
    high: int
    names: tuple[str, ...] = ()
    special: re.Pattern | None = None  # Quartz's L, W and # forms


_CRON_FIELDS = (
    _CronField("seconds", 0, 59),
    _CronField("minutes", 0, 59),
    _CronField("hours", 0, 23),
    _CronField("day-of-month", 1, 31, special=re.compile(r"^(L(-\d{1,2})?|LW|\d{1,2}W)$")),
    _CronField("month", 1, 12, _MONTHS),
    _CronField("day-of-week", 1, 7, _DAYS, re.compile(r"^(L|(\d|[A-Z]{3})(L|#[1-5]))$")),
    _CronField("year", 1970, 2099),
)
_CRON_SHAPE = "seconds minutes hours day-of-month month day-of-week [year], e.g. '0 30 2 * * ?'"


def cron_problem(expression: str) -> str | None:
    """Why `expression` is not a Quartz cron expression the service takes, or None."""
    parts = expression.upper().split()
    if len(parts) not in (6, 7):
        return f"has {len(parts)} fields; a Quartz expression has 6 or 7: {_CRON_SHAPE}"
    for field, text in zip(_CRON_FIELDS, parts, strict=False):
        problem = _cron_field_problem(field, text)
        if problem:
            return f"{field.name} field {text!r}: {problem}"
    if (parts[3] == "?") == (parts[5] == "?"):
        return (
            "give '?' in exactly one of day-of-month and day-of-week (Quartz does not combine "
            "them), e.g. '0 0 6 * * ?' or '0 0 6 ? * MON-FRI'"
        )
    return None


def _cron_field_problem(field: _CronField, text: str) -> str | None:
    if text == "?":
        return None if field.special else "'?' is only for day-of-month and day-of-week"
    for item in text.split(","):
        if field.special and field.special.match(item):
            problem = _special_problem(field, item)
        else:
            problem = _cron_item_problem(field, item)
        if problem:
            return problem
    return None


def _special_problem(field: _CronField, item: str) -> str | None:
    if field.name == "day-of-month":
        number = re.sub(r"\D", "", item)
        if item.startswith("L") and number and int(number) > 30:
            return "an offset from the last day is at most 30 (e.g. 'L-3')"
        if item.endswith("W") and number and not 1 <= int(number) <= 31:
            return "the day before W is 1-31 (e.g. '15W')"
        return None
    day = item.rstrip("L").split("#")[0]
    return None if item == "L" else _cron_value_problem(field, day)


def _cron_item_problem(field: _CronField, item: str) -> str | None:
    base, slash, step = item.partition("/")
    if slash:
        if not step.isdigit() or not 1 <= int(step) <= field.high:
            return f"the step after '/' is a number from 1 to {field.high}"
    if base == "*":
        return None
    if not base:
        return "an empty value"
    start, dash, end = base.partition("-")
    for value in (start, end) if dash else (start,):
        problem = _cron_value_problem(field, value)
        if problem:
            return problem
    return None


def _cron_value_problem(field: _CronField, value: str) -> str | None:
    if value in field.names:
        return None
    allowed = f"{field.low}-{field.high}" + (
        f" or {field.names[0]}-{field.names[-1]}" if field.names else ""
    )
    if not value.isdigit() or not field.low <= int(value) <= field.high:
        extra = " (1 = SUN)" if field.name == "day-of-week" else ""
        return f"{value!r} is not a value here: {allowed}{extra}"
    return None


# Java's short zone ids (ZoneId.SHORT_IDS), which the service's scheduler also takes.
_JAVA_SHORT_IDS = frozenset(
    "ACT AET AGT ART AST BET BST CAT CNT CST CTT EAT ECT EST HST IET IST JST MIT MST NET NST "
    "PLT PNT PRT PST SST VST".split()
)
_OFFSET_ID = re.compile(r"^(GMT|UTC|UT)([+-]\d{1,2}(:?\d{2})?)?$")


@functools.cache
def _zone_ids() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones())  # ~30 ms, once


def timezone_problem(zone_id: str) -> str | None:
    """Why `zone_id` is not a Java time-zone id, or None."""
    if zone_id in _JAVA_SHORT_IDS or _OFFSET_ID.match(zone_id) or zone_id in _zone_ids():
        return None
    return (
        f"{zone_id!r} is not a time-zone id{_did_you_mean(zone_id, _zone_ids())}; give an "
        "IANA id such as 'Europe/Amsterdam' or 'UTC'"
    )
