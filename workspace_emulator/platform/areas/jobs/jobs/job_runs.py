"""Job runs: each task's outcome, decided when the run starts, and how the run looks at a
given time, computed when it is read (like clusters, no background work).

Timeline, over the transition time T: the run is PENDING for the first half (its tasks
without dependencies PENDING, the others BLOCKED), then RUNNING for the second half, which
is shared evenly by the levels of the task graph (a task's level is one more than its
deepest dependency's): a task is RUNNING in its level's slot and TERMINATED at its end; a
task that never runs (UPSTREAM_FAILED, EXCLUDED, DISABLED) ends when its slot begins. With
T = 0 every run has ended when it is first read. `runs/cancel` ends the run at once:
result CANCELED; tasks not yet ended become CANCELED (those already started, and those
without dependencies) or UPSTREAM_CANCELED.

Failure trigger: a task fails when the string FAILURE_TRIGGER ("--fail") is one of its
values, or a path segment starting with it (`dbfs:/jobs/--fail.py`, `/Shared/--fail`),
anywhere in its task settings (e.g. `spark_python_task.parameters`,
`notebook_task.notebook_path`) or in a run-now parameter that reaches that task type
(`python_params` for Python tasks, `notebook_params` for notebooks, `job_parameters` for
every task; see PARAMETER_TASK_TYPES). A task without a task type (a legacy job that gave
none) takes every kind; a job with no tasks fails when any parameter holds the trigger.

Dependants follow their `run_if` (default ALL_SUCCESS), as the public documentation of
"Run if dependencies" describes: an unmet ALL_SUCCESS, AT_LEAST_ONE_SUCCESS or NONE_FAILED
gives UPSTREAM_FAILED, an unmet AT_LEAST_ONE_FAILED or ALL_FAILED gives EXCLUDED, ALL_DONE
always runs; excluded or disabled tasks count as succeeded for their dependants, and a task
whose dependencies were all excluded is excluded too. The run is FAILED when a leaf task
(one nothing depends on) failed or was skipped for an upstream failure,
SUCCESS_WITH_FAILURES when tasks failed but every leaf succeeded, else SUCCESS.

A notebook task whose notebook is not in the workspace when the run starts (source
WORKSPACE, the default without a job `git_source`: a path no object has, or one that is a
folder or a file) fails as the service's does, `Unable to access the notebook "<path>" ...`
(the trigger above is looked at first); a path inside a repo counts as there
(areas/workspace_objects holds no contents of Git folders). A task whose cluster's init
script or whose library's file (`whl`, `jar`, ...) is not in its volume, DBFS or the
workspace fails as the service fails it (job_files.py): the task and the run INTERNAL_ERROR,
result FAILED, the message naming the file.

A one-time run (runs/submit, run_type SUBMIT_RUN) is planned and shown the same way, from
the tasks of its body, without a job_id. A run of a job keeps the job's parameters as they
were at its start (`job_parameters`: name, default, the run's value).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from workspace_emulator.platform.areas.jobs.jobs import job_files, job_graph
from workspace_emulator.platform.areas.jobs.jobs.job_format import DEFAULT_RUN_IF

FAILURE_TRIGGER = "--fail"
EVERY_TASK_TYPE = None
PARAMETER_TASK_TYPES: dict[str, frozenset[str] | None] = {
    "python_params": frozenset({"spark_python_task", "python_wheel_task"}),
    "python_named_params": frozenset({"python_wheel_task"}),
    "jar_params": frozenset({"spark_jar_task"}),
    "spark_submit_params": frozenset({"spark_submit_task"}),
    "notebook_params": frozenset({"notebook_task"}),
    "sql_params": frozenset({"sql_task"}),
    "dbt_commands": frozenset({"dbt_task"}),
    "pipeline_params": frozenset({"pipeline_task"}),
    "job_parameters": EVERY_TASK_TYPE,
}
RUN_PARAMETER_KINDS = tuple(PARAMETER_TASK_TYPES)
SUCCEEDED = frozenset({"SUCCESS", "SUCCESS_WITH_FAILURES"})
COUNTS_AS_SUCCEEDED = frozenset({"EXCLUDED", "DISABLED"})
FAILURES = frozenset({"FAILED", "TIMEDOUT", "UPSTREAM_FAILED"})
NEVER_RAN = frozenset({"UPSTREAM_FAILED", "EXCLUDED", "DISABLED"})
RUN_IF_EXCLUDES = ("AT_LEAST_ONE_FAILED", "ALL_FAILED")
JOB_RUN, SUBMIT_RUN = "JOB_RUN", "SUBMIT_RUN"
TERMINATED = "TERMINATED"
RUN_TYPES = (JOB_RUN, SUBMIT_RUN, "WORKFLOW_RUN")
# Settings of a one-time run that runs/get shows back.
SHOWN_RUN_SETTINGS = ("git_source",)
ACTIVE_STATES = frozenset({"QUEUED", "PENDING", "RUNNING", "TERMINATING", "BLOCKED"})
# A notebook path -> why a notebook task cannot run it (None: it can; MISSING: nothing is
# there).
NotebookProblem = Callable[[str], "str | None"]
MISSING = "does not exist"


# outcomes

def _strings(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def is_trigger(text: str) -> bool:
    return text == FAILURE_TRIGGER or f"/{FAILURE_TRIGGER}" in text


def failure_cause(task: dict[str, Any] | None, parameters: dict[str, Any]) -> str | None:
    """Where the failure trigger is for this task: the path inside its task settings, or the
    run-now parameter kind; None when the task succeeds."""
    kind = job_graph.task_type(task) if task else None
    if kind is not None:
        assert task is not None
        for path, text in _strings(task[kind], kind):
            if is_trigger(text):
                return path
    for name, targets in PARAMETER_TASK_TYPES.items():
        if name in parameters and (kind is None or targets is None or kind in targets):
            if any(is_trigger(text) for _, text in _strings(parameters[name], name)):
                return name
    return None


def _trigger_message(cause: str) -> str:
    return f"{cause} contained '{FAILURE_TRIGGER}', the emulator's failure trigger"


def _skipped(run_if: str, upstream: dict[str, str]) -> tuple[str, str] | None:
    """(result, message) when the task does not run, None when it does."""
    results = list(upstream.values())
    if all(result in COUNTS_AS_SUCCEEDED for result in results):
        return "EXCLUDED", "Excluded: every upstream task was excluded."
    failed = [key for key, result in upstream.items() if result in FAILURES]
    ran_and_succeeded = any(result in SUCCEEDED for result in results)
    met = {
        "ALL_SUCCESS": all(r in SUCCEEDED | COUNTS_AS_SUCCEEDED for r in results),
        "AT_LEAST_ONE_SUCCESS": any(r in SUCCEEDED | COUNTS_AS_SUCCEEDED for r in results),
        "NONE_FAILED": not failed and ran_and_succeeded,
        "ALL_DONE": True,
        "AT_LEAST_ONE_FAILED": bool(failed),
        "ALL_FAILED": len(failed) == len(results),
    }[run_if]
    if met:
        return None
    if run_if in RUN_IF_EXCLUDES:
        return "EXCLUDED", f"Excluded: the run_if condition {run_if} was not met."
    named = ", ".join(f"'{key}'" for key in failed) or "none succeeded"
    return "UPSTREAM_FAILED", f"Upstream task(s) failed: {named} (run_if {run_if})."


def _workspace_notebooks(task: dict[str, Any], git_source: bool) -> Iterator[str]:
    """The workspace paths of the notebooks a task runs (a for-each task's inner task's
    too): those of `source` WORKSPACE, the default unless the job has a `git_source`."""
    for notebook in (task.get("notebook_task"),
                     ((task.get("for_each_task") or {}).get("task") or {}).get("notebook_task")):
        if not isinstance(notebook, dict) or not isinstance(notebook.get("notebook_path"), str):
            continue
        if notebook.get("source", "GIT" if git_source else "WORKSPACE") == "WORKSPACE":
            yield notebook["notebook_path"]


def notebook_failure(task: dict[str, Any], notebook_problem: NotebookProblem | None,
                     git_source: bool, run_as: str) -> str | None:
    """The service's message when a notebook the task runs is missing or no notebook."""
    if notebook_problem is None:
        return None
    for path in _workspace_notebooks(task, git_source):
        problem = notebook_problem(path)
        if problem == MISSING:
            return (f'Unable to access the notebook "{path}". Either it does not exist, or '
                    f"the identity used to run this job, {run_as}, lacks the required "
                    "permissions.")
        if problem is not None:
            return f'Unable to access the notebook "{path}": it {problem}.'
    return None


def _task_outcome(task: dict[str, Any], results: dict[str, str], parameters: dict[str, Any],
                  cannot_run: Callable[[dict[str, Any]], tuple[str, str] | None]
                  ) -> tuple[str, str, str]:
    """(result, message, the life cycle state it ends in)."""
    if task.get("disabled") is True:
        return "DISABLED", "The task is disabled in the job settings.", TERMINATED
    dependencies = job_graph.dependencies(task)
    if dependencies:
        skipped = _skipped(task.get("run_if") or DEFAULT_RUN_IF,
                           {key: results[key] for key in dependencies})
        if skipped:
            return (*skipped, TERMINATED)
    cause = failure_cause(task, parameters)
    if cause:
        return "FAILED", _trigger_message(cause), TERMINATED
    unreachable = cannot_run(task)
    if unreachable:
        message, life_cycle = unreachable
        return "FAILED", message, life_cycle
    return "SUCCESS", "", TERMINATED


def _run_outcome(tasks: list[dict[str, Any]], planned: list[dict[str, Any]],
                 parameters: dict[str, Any]) -> tuple[str, str, str]:
    """(result, message, the life cycle state it ends in: INTERNAL_ERROR where it failed
    and a failed task ended so)."""
    if not tasks:
        cause = failure_cause(None, parameters)
        if cause:
            return "FAILED", f"Run failed: {_trigger_message(cause)}.", TERMINATED
        return "SUCCESS", "", TERMINATED
    depended_on = {key for task in tasks for key in job_graph.dependencies(task)}
    failed = [p for p in planned if p["result"] == "FAILED"]
    causes = "; ".join(f"task '{p['task_key']}' failed: {p['message']}" for p in failed)
    if any(p["result"] in FAILURES for p in planned if p["task_key"] not in depended_on):
        internal = any(p.get("life_cycle") == job_files.INTERNAL_ERROR for p in failed)
        return ("FAILED", f"Run failed: {causes}.",
                job_files.INTERNAL_ERROR if internal else TERMINATED)
    if failed:
        return "SUCCESS_WITH_FAILURES", f"Every leaf task succeeded, but {causes}.", TERMINATED
    return "SUCCESS", "", TERMINATED


def plan(settings: dict[str, Any], parameters: dict[str, Any],
         new_task_run_id: Callable[[], int], notebook_problem: NotebookProblem | None = None,
         run_as: str = "", file_checks: job_files.FileChecks | None = None,
         pipeline_problem: Callable[[str], str | None] | None = None) -> dict[str, Any]:
    """Each task's level, run id and result, and the run's result. `notebook_problem` says
    why a notebook task cannot run the notebook at a path, `file_checks` whether the files
    its cluster and libraries need are there, `pipeline_problem` why a pipeline task's
    update of a pipeline fails, at the run's start."""
    tasks = settings.get("tasks") or []
    git_source = bool(settings.get("git_source"))

    def cannot_run(task: dict[str, Any]) -> tuple[str, str] | None:
        missing = job_files.missing_file(task, settings, file_checks)
        if missing:
            return missing, job_files.INTERNAL_ERROR
        pipeline_id = (task.get("pipeline_task") or {}).get("pipeline_id")
        pipeline = pipeline_problem(str(pipeline_id)) if pipeline_problem else None
        if pipeline_id and pipeline:
            return pipeline, TERMINATED
        notebook = notebook_failure(task, notebook_problem, git_source, run_as)
        return (notebook, TERMINATED) if notebook else None

    depth = job_graph.levels(tasks)
    planned = [{"task_key": task["task_key"], "run_id": new_task_run_id(),
                "level": depth[task["task_key"]], "settings": task} for task in tasks]
    results: dict[str, str] = {}
    for entry in sorted(planned, key=lambda p: p["level"]):
        entry["result"], entry["message"], life_cycle = _task_outcome(
            entry["settings"], results, parameters, cannot_run)
        if life_cycle != TERMINATED:
            entry["life_cycle"] = life_cycle
        results[entry["task_key"]] = entry["result"]
    result, message, life_cycle = _run_outcome(tasks, planned, parameters)
    shown = {"levels": max(depth.values(), default=0) + 1, "tasks": planned,
             "result": result, "message": message}
    if life_cycle != TERMINATED:
        shown["life_cycle"] = life_cycle
    return shown


def plan_of(run: dict[str, Any]) -> dict[str, Any]:
    """The run's plan; runs stored before there were plans had one outcome, `fails`."""
    if "plan" in run:
        return run["plan"]
    fails = run.get("fails", False)
    message = f"Run failed: {_trigger_message('python_params')}." if fails else ""
    return {"levels": 1, "tasks": [], "result": "FAILED" if fails else "SUCCESS",
            "message": message}


def job_parameters(settings: dict[str, Any], given: dict[str, Any]) -> list[dict[str, str]]:
    """The run's job parameters as runs/get shows them: each parameter the job defines, with
    its default and the value of this run (the run-now value, else the default), then those
    run-now gave that the job does not define."""
    values = given.get("job_parameters") or {}
    shown = []
    for definition in settings.get("parameters") or []:
        if not isinstance(definition, dict) or not isinstance(definition.get("name"), str):
            continue
        name, default = definition["name"], definition.get("default")
        entry = {"name": name, "default": default, "value": values.get(name, default)}
        shown.append({key: value for key, value in entry.items() if value is not None})
    defined = {entry["name"] for entry in shown}
    shown.extend({"name": name, "value": value} for name, value in values.items()
                 if name not in defined)
    return shown


# views at a time

def _window(run: dict[str, Any], level: int) -> tuple[int, int]:
    start, transition = run["start_time"], run["transition_ms"]
    pending = transition // 2
    running, levels = transition - pending, plan_of(run)["levels"]
    return (start + pending + running * level // levels,
            start + pending + running * (level + 1) // levels)


def _terminal(result: str, message: str, life_cycle: str | None = None) -> dict[str, Any]:
    return {"life_cycle_state": life_cycle or TERMINATED, "result_state": result,
            "state_message": message,
            "user_cancelled_or_timedout": result in ("CANCELED", "UPSTREAM_CANCELED")}


def _task_state(run: dict[str, Any], entry: dict[str, Any], now_ms: int
                ) -> tuple[dict[str, Any], int | None]:
    """(state, end time or None while not ended)."""
    begin, finish = _window(run, entry["level"])
    ends_at = begin if entry["result"] in NEVER_RAN else finish
    canceled_at = run.get("canceled_at")
    if canceled_at is not None and canceled_at < ends_at:
        started = entry["level"] == 0 or (begin <= canceled_at and entry["result"] not in NEVER_RAN)
        if started:
            return _terminal("CANCELED", "Cancelled at user request."), canceled_at
        return _terminal("UPSTREAM_CANCELED", "An upstream task was cancelled."), canceled_at
    if now_ms >= ends_at:
        return _terminal(entry["result"], entry["message"], entry.get("life_cycle")), ends_at
    if now_ms >= begin:
        return {"life_cycle_state": "RUNNING", "state_message": "In run"}, None
    if entry["level"] == 0:
        return {"life_cycle_state": "PENDING", "state_message": "Waiting for cluster"}, None
    return {"life_cycle_state": "BLOCKED", "state_message": "Waiting for upstream tasks"}, None


def _durations(first: int, begin: int, end: int | None, now_ms: int, ran: bool
               ) -> dict[str, int]:
    until = end if end is not None else now_ms
    return {"start_time": first, "end_time": end or 0,
            "setup_duration": max(0, min(until, begin) - first),
            "execution_duration": max(0, until - begin) if ran else 0,
            "cleanup_duration": 0}


def task_views(run: dict[str, Any], now_ms: int, run_page_url: Callable[[int], str]
               ) -> list[dict[str, Any]]:
    views = []
    for entry in plan_of(run)["tasks"]:
        begin, _ = _window(run, entry["level"])
        first = run["start_time"] if entry["level"] == 0 else begin
        state, end = _task_state(run, entry, now_ms)
        ran = entry["result"] not in NEVER_RAN and state.get("result_state") != \
            "UPSTREAM_CANCELED"
        views.append({**entry["settings"], "task_key": entry["task_key"],
                      "run_id": entry["run_id"], "state": state,
                      **_durations(first, begin, end, now_ms, ran),
                      "attempt_number": 0, "run_page_url": run_page_url(entry["run_id"])})
    return views


def run_state(run: dict[str, Any], now_ms: int) -> tuple[dict[str, Any], int | None]:
    """(the run's state, its end time or None while not ended)."""
    start, transition = run["start_time"], run["transition_ms"]
    finished_at = start + transition
    canceled_at = run.get("canceled_at")
    if canceled_at is not None and canceled_at < finished_at:
        return _terminal("CANCELED", "Run cancelled at user request."), canceled_at
    if now_ms >= finished_at:
        run_plan = plan_of(run)
        return _terminal(run_plan["result"], run_plan["message"],
                         run_plan.get("life_cycle")), finished_at
    if now_ms >= start + transition // 2:
        return {"life_cycle_state": "RUNNING", "state_message": "In run"}, None
    return {"life_cycle_state": "PENDING", "state_message": "Waiting for cluster"}, None


def is_active(run: dict[str, Any], now_ms: int) -> bool:
    return run_state(run, now_ms)[0]["life_cycle_state"] in ACTIVE_STATES


def view(run: dict[str, Any], now_ms: int, run_page_url: Callable[[int], str],
         with_tasks: bool) -> dict[str, Any]:
    """The run as runs/get shows it (without paging its tasks)."""
    start = run["start_time"]
    state, end = run_state(run, now_ms)
    until = end if end is not None else now_ms
    pending = run["transition_ms"] // 2
    shown: dict[str, Any] = {
        "run_id": run["run_id"],
        "number_in_job": run["number_in_job"],
        "run_name": run["run_name"],
        "creator_user_name": run["creator_user_name"],
        "state": state,
        "start_time": start,
        "end_time": end or 0,
        "setup_duration": min(pending, until - start),
        "execution_duration": max(0, until - start - pending),
        "cleanup_duration": 0,
        "run_duration": until - start,
        "trigger": "ONE_TIME",
        "run_type": run.get("run_type", JOB_RUN),
        "format": run.get("format", "SINGLE_TASK"),
        "run_page_url": run_page_url(run["run_id"]),
    }
    if run.get("job_id") is not None:  # a one-time run (SUBMIT_RUN) has no job
        shown["job_id"] = run["job_id"]
    if "overriding_parameters" in run:
        shown["overriding_parameters"] = run["overriding_parameters"]
    parameters = run.get("job_parameters")
    if parameters is None:  # a run stored before runs kept their job parameters
        given = (run.get("overriding_parameters") or {}).get("job_parameters") or {}
        parameters = [{"name": name, "value": value} for name, value in given.items()]
    if parameters:
        shown["job_parameters"] = parameters
    for name in SHOWN_RUN_SETTINGS:
        if name in run:
            shown[name] = run[name]
    if with_tasks:
        shown["tasks"] = task_views(run, now_ms, run_page_url)
    return shown
