"""runs/submit: the body of a one-time run, checked field by field, as the settings its run
is planned from.

A one-time run has no job: its body carries the tasks (each with its own cluster, an
existing cluster or an environment of `environments`) and run-level settings (run_name,
timeout_seconds, git_source, run_as, queue, notifications, ...). The fields a job's settings
share are checked as a job's (job_settings, job_graph): task keys, dependencies, clusters,
run_as, queue. The settings
returned keep what the run shows and plans from; `access_control_list` and
`idempotency_token` are the caller's business.
"""

from __future__ import annotations

from typing import Any

from workspace_emulator.platform.areas.jobs.jobs import job_graph, job_settings
from workspace_emulator.platform.areas.jobs.jobs.job_settings import expect, field_error

DEFAULT_RUN_NAME = "Untitled"
# Body fields that are not settings of the run.
REQUEST_ONLY = ("access_control_list", "idempotency_token", "run_name")


def _check_environments(environments: Any) -> set[str]:
    keys: set[str] = set()
    for index, environment in enumerate(expect(environments, list, "environments")):
        where = f"environments[{index}]"
        expect(environment, dict, where)
        key = expect(environment.get("environment_key"), str, f"{where}.environment_key")
        if not key:
            raise field_error(f"{where}.environment_key", "must not be empty")
        if key in keys:
            raise field_error(f"{where}.environment_key",
                              f"'{key}' is given twice; give each environment its own key")
        keys.add(key)
        if "spec" in environment:
            expect(environment["spec"], dict, f"{where}.spec")
    return keys


def _check_git_source(git_source: Any) -> None:
    expect(git_source, dict, "git_source")
    for name in ("git_url", "git_provider"):
        value = expect(git_source.get(name), str, f"git_source.{name}")
        if not value:
            raise field_error(f"git_source.{name}", "must not be empty")


def _check_task_environments(tasks: list[dict[str, Any]], environments: set[str]) -> None:
    for index, task in enumerate(tasks):
        key = task.get("environment_key")
        if key is not None and key not in environments:
            raise field_error(f"tasks[{index}].environment_key",
                              f"environment '{key}' is not defined in field 'environments'; "
                              "define it there or name another one")


def settings_of(body: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """(run name, the run's settings) of a submit body, or InvalidParameter naming the
    field."""
    run_name = body.get("run_name", DEFAULT_RUN_NAME)
    expect(run_name, str, "run_name")
    settings = {k: v for k, v in body.items() if k not in REQUEST_ONLY}
    if "tasks" not in settings:
        raise field_error("tasks", "required: a one-time run needs at least one task")
    if not expect(settings["tasks"], list, "tasks"):
        raise field_error("tasks", "a one-time run needs at least one task")
    job_settings.validate(settings)
    job_graph.check_task_types(settings["tasks"])
    environments = _check_environments(settings.get("environments", []))
    _check_task_environments(settings["tasks"], environments)
    if "git_source" in settings:
        _check_git_source(settings["git_source"])
    return run_name or DEFAULT_RUN_NAME, settings
