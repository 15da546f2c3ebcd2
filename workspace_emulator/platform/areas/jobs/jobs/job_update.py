"""`jobs/update`: a partial change of a job's settings.

Top-level fields of `new_settings` replace the job's; `tasks` and `job_clusters` are merged
by key (an entry with a known key replaces that entry whole, a new key is appended).
`fields_to_remove` names top-level fields, or `tasks/<task_key>` and
`job_clusters/<job_cluster_key>`; removals happen before `new_settings` is applied, and
removing something absent is not an error.

A single-task job updated through /api/2.0 (or with legacy task settings at job level) is
updated in its legacy shape, as the service's 2.0 API does, and stays single-task. An update
that touches `tasks` or `job_clusters` makes it a multi-task job.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from workspace_emulator.platform.areas.jobs.jobs import job_format, job_graph, job_settings
from workspace_emulator.platform.areas.jobs.jobs.job_format import (
    LEGACY_VERSION,
    MULTI_TASK,
    SINGLE_TASK,
    StoredSettings,
)


@dataclass
class Removals:
    top_level: list[str] = field(default_factory=list)
    by_key: dict[str, list[str]] = field(default_factory=dict)  # array name -> keys


def parse_removals(fields_to_remove: Any) -> Removals:
    removals = Removals()
    if fields_to_remove is None:
        return removals
    if not isinstance(fields_to_remove, list):
        raise job_settings.field_error("fields_to_remove", "expected a list of field names")
    for index, entry in enumerate(fields_to_remove):
        where = f"fields_to_remove[{index}]"
        if not isinstance(entry, str) or not entry:
            raise job_settings.field_error(where, "expected a non-empty string")
        array, slash, key = entry.partition("/")
        if not slash:
            removals.top_level.append(entry)
        elif array in job_format.KEYED_ARRAYS and key and "/" not in key:
            removals.by_key.setdefault(array, []).append(key)
        else:
            raise job_settings.field_error(
                where, f"'{entry}' cannot be removed; give a top-level field name, "
                "'tasks/<task_key>' or 'job_clusters/<job_cluster_key>'")
    return removals


def merged_by_key(current: list[dict[str, Any]], changes: list[dict[str, Any]], key: str
                  ) -> list[dict[str, Any]]:
    position = {item[key]: index for index, item in enumerate(current)}
    result = list(current)
    for change in changes:
        if change[key] in position:
            result[position[change[key]]] = change
        else:
            position[change[key]] = len(result)
            result.append(change)
    return result


def _touches_arrays(new_settings: dict[str, Any], removals: Removals) -> bool:
    return bool(removals.by_key) or any(
        name in new_settings or name in removals.top_level for name in job_format.KEYED_ARRAYS)


def _legacy_update(stored: StoredSettings, new_settings: dict[str, Any], removals: Removals
                   ) -> StoredSettings:
    """Top-level replacement in the legacy shape, in the nesting the update is given in; the
    job keeps its own nesting unless the update uses the seed one."""
    assert stored.layout is not None
    form = job_settings.detect_form(new_settings)
    current = job_settings.render(job_format.unlift(stored.settings, stored.layout), form)
    for name in removals.top_level:
        current.pop(name, None)
    current.update(new_settings)
    result = job_format.from_request(current, LEGACY_VERSION)
    if result.layout is None or form == job_settings.SEED_FORM:
        return result
    return replace(result, layout=replace(result.layout, form=stored.layout.form))


def _canonical_update(stored: StoredSettings, new_settings: dict[str, Any], removals: Removals
                      ) -> StoredSettings:
    legacy = job_format.legacy_task_fields(new_settings)
    if legacy:
        raise job_format.refuse_mixed(legacy, prefix="new_settings.")
    job_settings.validate(new_settings)
    settings = dict(stored.settings)
    for name in removals.top_level:
        settings.pop(name, None)
    for array, keys in removals.by_key.items():
        key_field = job_format.KEYED_ARRAYS[array]
        settings[array] = [item for item in settings.get(array) or []
                           if item[key_field] not in keys]
    for name, value in new_settings.items():
        if name in job_format.KEYED_ARRAYS:
            key_field = job_format.KEYED_ARRAYS[name]
            job_graph.unique_keys(value, key_field, f"new_settings.{name}")
            settings[name] = merged_by_key(settings.get(name) or [], value, key_field)
        else:
            settings[name] = value
    settings.setdefault("name", job_format.DEFAULT_JOB_NAME)
    job_graph.check_task_types(new_settings.get("tasks") or [])
    if stored.format == SINGLE_TASK and not _touches_arrays(new_settings, removals):
        return StoredSettings(settings, SINGLE_TASK, stored.layout)
    return StoredSettings(settings, MULTI_TASK)


def updated(stored: StoredSettings, new_settings: Any, fields_to_remove: Any, version: str
            ) -> StoredSettings:
    """The settings after the update; the rules between tasks are the caller's next step."""
    if new_settings is None:
        new_settings = {}
    if not isinstance(new_settings, dict):
        raise job_settings.field_error("new_settings", "expected an object")
    new_settings = job_format.without_ignored(new_settings)
    removals = parse_removals(fields_to_remove)
    legacy_given = bool(job_format.legacy_task_fields(new_settings))
    if (stored.format == SINGLE_TASK and not _touches_arrays(new_settings, removals)
            and (version == LEGACY_VERSION or legacy_given)):
        return _legacy_update(stored, new_settings, removals)
    return _canonical_update(stored, new_settings, removals)

