"""JobRun: one run of a job, started with `run-now` and waited for.

An action resource. Creating it starts a run of `job_id` with its parameters and waits (up
to `timeout_seconds`) until the run ends. The parameters are the job's (`job_parameters`,
a mapping) and those of its tasks' types that run-now takes (`python_params`,
`notebook_params`, `jar_params`, ... as the SDK's `RunParameters` has them); an empty one
is the same as none. A run that ends other than SUCCESS fails the deployment naming each
failed task with its state message (the run's message where no task failed). Outputs: the
run id, its result, each task's result by task key (`task_results`) and the run's URL.

Changing `trigger` (any value: a version, a date), `job_id` or a parameter replaces the
resource, that is, starts a new run; changing only `timeout_seconds` starts nothing.
Deleting it leaves the run in the job's history.

Every run-now carries an idempotency token derived from the deployment (`<project>/
<stack>/<resource name>`) and the inputs, so a create retried after an interruption or a
timeout waits for the run it started before instead of starting a second one. The same
inputs therefore name the same run: after a failed run, change `trigger` to run again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from providers.client.sdk_services import jobs
from providers.core.kind import DEPLOYMENT_TAG, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.lookup import LookupFailed
from providers.core.polling import Deadline, Progress
from providers.core.sdk_schema import model_of
from providers.jobs.jobs_api import JobsApi
from providers.jobs.lookups import find_job_run

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

DEFAULT_TIMEOUT_SECONDS = 3600
TERMINAL_LIFE_CYCLE_STATES = frozenset({"TERMINATED", "SKIPPED", "INTERNAL_ERROR"})
# Results of a task that did not fail, and of one that did not run because one before it
# failed or was cancelled; any other result is the task's own failure.
TASK_RESULTS_WITHOUT_FAILURE = frozenset({"SUCCESS", "EXCLUDED", "DISABLED"})
TASK_RESULTS_UPSTREAM = frozenset({"UPSTREAM_FAILED", "UPSTREAM_CANCELED"})

# The parameters run-now takes for the tasks of each type, as the SDK's RunParameters has
# them (python_params, notebook_params, jar_params, ...).
_RunParametersModel: Any = model_of(jobs.RunParameters)
TASK_PARAMETERS = tuple(_RunParametersModel.model_fields)
RUN_PARAMETERS = ("job_parameters", *TASK_PARAMETERS)
# What names one run: a change of any of these starts a new one.
RUN_KEYS = ("job_id", "trigger", *RUN_PARAMETERS)
# The keys of the first JobRun, named in every token (absent ones as null), so that a run
# keeps its token whatever keys were added since.
FIRST_RUN_KEYS = ("job_id", "python_params", "trigger")


class JobRunFailed(Exception):
    """The run ended other than SUCCESS, or did not end in time."""


class _JobRunFields(BaseModel):
    model_config = ConfigDict(extra="forbid")

    job_id: int = Field(ge=1)
    # Recorded as [] when not given, as states written before the other parameters hold it.
    python_params: list[str] = Field(default_factory=list)
    trigger: str | None = None
    timeout_seconds: int | None = Field(default=None, ge=1, le=48 * 3600)
    deployment_tag: str | None = None
    job_parameters: dict[str, str] | None = None

    @field_validator("trigger", mode="before")
    @classmethod
    def _number_as_text(cls, value: Any) -> Any:
        # `trigger: 3` in YAML is as good a trigger as "3" (and reaches here as 3.0).
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        return value


_task_parameter_fields: dict[str, Any] = {
    name: (field.annotation, None)
    for name, field in _RunParametersModel.model_fields.items()
    if name not in _JobRunFields.model_fields
}
_JobRunWithTaskParameters: Any = create_model(
    "_JobRunWithTaskParameters", __base__=_JobRunFields, **_task_parameter_fields
)


class JobRunModel(_JobRunWithTaskParameters):
    """The run's job and parameters, what names the run (`trigger`) and how long to wait."""


def idempotency_token(deployment_tag: str | None, spec: Mapping[str, Any]) -> str:
    """64 hex characters (the service's limit) naming one run of one deployment."""
    named = {"deployment": deployment_tag}
    named.update({k: spec.get(k) for k in RUN_KEYS if k in spec or k in FIRST_RUN_KEYS})
    return hashlib.sha256(json.dumps(named, sort_keys=True).encode()).hexdigest()


def wait_for_run(client: WorkspaceClient, run_id: int, timeout_seconds: float) -> dict[str, Any]:
    """The run (as `find_job_run` gives it) once it has ended."""
    deadline = Deadline(timeout_seconds)
    progress = Progress(f"job run {run_id}", deadline)
    while True:
        run = find_job_run(client, run_id=run_id)
        state = run["life_cycle_state"]
        progress.observe(_outcome(run) if state in TERMINAL_LIFE_CYCLE_STATES else state)
        if state in TERMINAL_LIFE_CYCLE_STATES:
            return run
        if deadline.expired():
            raise JobRunFailed(
                f"job run {run_id} of job {run['job_id']} is still {state} after "
                f"{timeout_seconds:g} s ({run.get('run_page_url')}); it goes on in the workspace. "
                "Run `pulumi up` again to wait for this same run, or raise timeout_seconds"
            )
        deadline.pause()


def _outcome(run: Mapping[str, Any]) -> str:
    """`TERMINATED FAILED`, `SKIPPED`: the life cycle and, where there is one, the result."""
    return " ".join(filter(None, (run["life_cycle_state"], run.get("result_state"))))


def failure_message(run: Mapping[str, Any]) -> str:
    """Why the run failed: each failed task with its result and the service's message, and
    the tasks that did not run for it; the run's own message where no task failed."""
    tasks = run.get("tasks") or []
    failed = [
        f"task {t['task_key']!r} {t['result_state']}: {t.get('state_message') or 'no message'}"
        for t in tasks
        if t.get("result_state")
        and t["result_state"] not in TASK_RESULTS_WITHOUT_FAILURE
        and t["result_state"] not in TASK_RESULTS_UPSTREAM
    ]
    if not failed:
        return run.get("state_message") or "no message"
    skipped = [
        f"{t['task_key']!r} {t['result_state']}"
        for t in tasks
        if t.get("result_state") in TASK_RESULTS_UPSTREAM
    ]
    return "; ".join(failed) + (f"; not run: {', '.join(skipped)}" if skipped else "")


class JobRunProvider(WorkspaceProvider):
    args_model = JobRunModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(RUN_KEYS)

    def spec(self, args: JobRunModel) -> Spec:
        return args.model_dump(mode="json", exclude_none=True, exclude={"deployment_tag"})

    def create_object(self, client: WorkspaceClient, args: JobRunModel, spec: Spec):
        token = idempotency_token(args.deployment_tag, spec)
        parameters = {name: spec[name] for name in RUN_PARAMETERS if spec.get(name)}
        started = JobsApi(client).run_now(args.job_id, idempotency_token=token, **parameters)
        run_id = int(started["run_id"])
        run = wait_for_run(client, run_id, args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS)
        if run["result_state"] != "SUCCESS":
            raise JobRunFailed(
                f"job run {run_id} of job {args.job_id} ended {_outcome(run)}: "
                f"{failure_message(run)} ({run.get('run_page_url')}). "
                "Change `trigger` to start a new run"
            )
        return str(run_id), spec, self._computed(run, args.deployment_tag)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        try:
            run = find_job_run(client, run_id=id_)
        except LookupFailed:
            return None
        spec = {k: recorded[k] for k in (*RUN_KEYS, "timeout_seconds") if k in recorded}
        return spec, self._computed(run, recorded.get("deployment_tag"))

    def update_object(self, client, id_, recorded, args: JobRunModel, spec: Spec):
        # Only timeout_seconds can change in place, and the run is over: nothing to do.
        computed = {k: recorded.get(k) for k in self.computed_keys}
        return spec, {
            **computed,
            "deployment_tag": args.deployment_tag or recorded.get("deployment_tag"),
        }

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        """Leaves the run in the job's history; a run cannot be undone."""

    @staticmethod
    def _computed(run: Mapping[str, Any], deployment_tag: str | None) -> dict[str, Any]:
        return {
            "run_id": run["run_id"],
            "number_in_job": run.get("number_in_job"),
            "result_state": run.get("result_state"),
            "state_message": run.get("state_message") or "",
            "run_page_url": run.get("run_page_url"),
            "task_results": {t["task_key"]: t.get("result_state") for t in run.get("tasks") or []},
            "deployment_tag": deployment_tag,
        }


def _job_run_output(run: Any) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "result_state": run.result_state,
        "task_results": run.task_results,
        "run_page_url": run.run_page_url,
    }


KIND = declare(
    name="JobRun",
    provider=JobRunProvider,
    outputs={
        "run_id": int,
        "result_state": str,
        "state_message": str,
        "run_page_url": str,
        "number_in_job": int,
        "task_results": dict,
    },
    stamped=DEPLOYMENT_TAG,
    config_key="jobRuns",
    references={"job": Reference(target_key="jobs", field="job_id")},
    # What its tasks run: notebooks, files, the files their libraries install.
    after=("clusterStates", "notebooks", "workspaceFiles", "volumeFiles"),
    importable=False,
    doc="docs/actions.md",
    summary="an action: one run of a job, started and waited for",
    stack_output=("job_runs", _job_run_output),
    action="runs a job and waits for its result",
)
