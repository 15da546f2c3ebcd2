"""PipelineUpdate: one update of a pipeline, started and waited for (docs/pipeline-update.md).

An action resource, like JobRun. Creating it starts an update of `pipeline_id` (all its
tables, or a `full_refresh` of them, or only the tables of `refresh_selection` and
`full_refresh_selection`; `validate_only` checks the code and materialises nothing) and
waits, up to `timeout_seconds`, reporting each state it passes (QUEUED,
WAITING_FOR_RESOURCES, INITIALIZING, SETTING_UP_TABLES, RUNNING), until it ends. One that
ends other than COMPLETED fails the deployment with the service's own error events of that
update. Outputs: the update id and its state.

Changing `trigger` (any value: a version, a date), `pipeline_id` or what the update
refreshes replaces the resource, that is, starts a new update; changing only
`timeout_seconds` starts nothing. Deleting it leaves the update in the pipeline's history.

The service takes no idempotency token for an update, and refuses to start one while
another is active. So a create that finds the pipeline busy (an update of a schedule, of a
job, or one an interrupted earlier create of this resource started) waits for that update
to end, then starts its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from providers.client import WorkspaceError
from providers.core.kind import DEPLOYMENT_TAG, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.core.polling import Deadline, Progress
from providers.pipelines.pipelines_api import PipelinesApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

DEFAULT_TIMEOUT_SECONDS = 3600
TERMINAL_STATES = frozenset({"COMPLETED", "FAILED", "CANCELED"})
# Where a pipeline's `latest_updates` show one of these, it has an active update.
ACTIVE_STATES = frozenset(
    {"CREATED", "QUEUED", "WAITING_FOR_RESOURCES", "INITIALIZING", "RESETTING",
     "SETTING_UP_TABLES", "RUNNING", "STOPPING"}
)
# What names one update: a change of any of these starts a new one.
UPDATE_KEYS = (
    "pipeline_id", "trigger", "full_refresh", "refresh_selection", "full_refresh_selection",
    "validate_only",
)
# How many of the update's error events the failure names.
ERRORS_SHOWN = 3


class PipelineUpdateFailed(Exception):
    """The update ended other than COMPLETED, or did not end in time."""


class PipelineUpdateModel(BaseModel):
    """The update's pipeline, what it refreshes, what names it (`trigger`), how long to wait."""

    model_config = ConfigDict(extra="forbid")

    pipeline_id: str = Field(min_length=1)
    full_refresh: bool | None = None
    refresh_selection: list[str] | None = None
    full_refresh_selection: list[str] | None = None
    validate_only: bool | None = None
    trigger: str | None = None
    timeout_seconds: int | None = Field(default=None, ge=1, le=48 * 3600)
    deployment_tag: str | None = None

    @field_validator("trigger", mode="before")
    @classmethod
    def _number_as_text(cls, value: Any) -> Any:
        # `trigger: 3` in YAML is as good a trigger as "3" (and reaches here as 3.0).
        if isinstance(value, float) and value.is_integer():
            return str(int(value))
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        return value

    @model_validator(mode="after")
    def _one_kind_of_refresh(self) -> PipelineUpdateModel:
        selected = [*(self.refresh_selection or []), *(self.full_refresh_selection or [])]
        if self.full_refresh and selected:
            raise ValueError(
                "full_refresh refreshes every table: give it or a selection "
                "(refresh_selection, full_refresh_selection), not both"
            )
        both = sorted(set(self.refresh_selection or []) & set(self.full_refresh_selection or []))
        if both:
            raise ValueError(
                f"{', '.join(both)}: in refresh_selection and full_refresh_selection; name each "
                "table in one of them"
            )
        return self


def wait_for_update(
    client: WorkspaceClient, pipeline_id: str, update_id: str, timeout_seconds: float
) -> dict[str, Any]:
    """The update once it has ended."""
    deadline = Deadline(timeout_seconds)
    progress = Progress(f"pipeline {pipeline_id} update {update_id}", deadline)
    while True:
        update = PipelinesApi(client).get_update(pipeline_id, update_id)
        state = update.get("state", "UNKNOWN")
        progress.observe(state)
        if state in TERMINAL_STATES:
            return update
        if deadline.expired():
            raise PipelineUpdateFailed(
                f"update {update_id} of pipeline {pipeline_id} is still {state} after "
                f"{timeout_seconds:g} s; it goes on in the workspace. Raise timeout_seconds, or "
                "stop it there"
            )
        deadline.pause()


def active_update(client: WorkspaceClient, pipeline_id: str) -> str | None:
    """The id of the pipeline's active update, if it has one."""
    pipeline = PipelinesApi(client).get(pipeline_id)
    for update in pipeline.get("latest_updates") or []:
        if update.get("state") in ACTIVE_STATES:
            return str(update["update_id"])
    return None


def error_messages(client: WorkspaceClient, pipeline_id: str, update_id: str) -> list[str]:
    """The messages of the update's error events, oldest first (at most `ERRORS_SHOWN`)."""
    found: list[str] = []
    for event in PipelinesApi(client).events(pipeline_id, "level='ERROR'"):
        if (event.get("origin") or {}).get("update_id") != update_id:
            continue
        exceptions = (event.get("error") or {}).get("exceptions") or []
        details = "; ".join(e["message"].rstrip(".") for e in exceptions if e.get("message"))
        message = event.get("message") or ""
        found.append(f"{message} ({details})" if details and details != message else message)
    return list(reversed(found))[:ERRORS_SHOWN]


class PipelineUpdateProvider(WorkspaceProvider):
    args_model = PipelineUpdateModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(UPDATE_KEYS)

    def spec(self, args: PipelineUpdateModel) -> Spec:
        return args.model_dump(mode="json", exclude_none=True, exclude={"deployment_tag"})

    def create_object(self, client: WorkspaceClient, args: PipelineUpdateModel, spec: Spec):
        timeout = args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        busy = active_update(client, args.pipeline_id)
        if busy is not None:
            # Only one update runs at a time: the service would refuse ours.
            wait_for_update(client, args.pipeline_id, busy, timeout)
        update_id = self._start(client, args, timeout)
        update = wait_for_update(client, args.pipeline_id, update_id, timeout)
        if update.get("state") != "COMPLETED":
            messages = error_messages(client, args.pipeline_id, update_id)
            raise PipelineUpdateFailed(
                f"update {update_id} of pipeline {args.pipeline_id} ended {update.get('state')}: "
                f"{' | '.join(messages) or 'the service gave no error event'}. "
                "Change `trigger` to start a new update"
            )
        return update_id, spec, self._computed(update, args.deployment_tag)

    @staticmethod
    def _start(client: WorkspaceClient, args: PipelineUpdateModel, timeout: float) -> str:
        def start() -> str:
            return PipelinesApi(client).start_update(
                args.pipeline_id,
                full_refresh=args.full_refresh,
                refresh_selection=args.refresh_selection,
                full_refresh_selection=args.full_refresh_selection,
                validate_only=args.validate_only,
            )

        try:
            return start()
        except WorkspaceError as error:
            # Another update began between the look and the start: wait for it, once.
            busy = active_update(client, args.pipeline_id) if error.status == 409 else None
            if busy is None:
                raise
            wait_for_update(client, args.pipeline_id, busy, timeout)
            return start()

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        pipeline_id = recorded.get("pipeline_id")
        if not pipeline_id:
            return None
        update = PipelinesApi(client).get_update(str(pipeline_id), id_)
        if not update:
            return None
        spec = {k: recorded[k] for k in (*UPDATE_KEYS, "timeout_seconds") if k in recorded}
        return spec, self._computed(update, recorded.get("deployment_tag"))

    def update_object(self, client, id_, recorded, args: PipelineUpdateModel, spec: Spec):
        # Only timeout_seconds can change in place, and the update is over: nothing to do.
        computed = {k: recorded.get(k) for k in self.computed_keys}
        return spec, {
            **computed,
            "deployment_tag": args.deployment_tag or recorded.get("deployment_tag"),
        }

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        """Leaves the update in the pipeline's history; an update cannot be undone."""

    @staticmethod
    def _computed(update: Mapping[str, Any], deployment_tag: str | None) -> dict[str, Any]:
        return {
            "update_id": str(update["update_id"]),
            "state": update.get("state"),
            "deployment_tag": deployment_tag,
        }


KIND = declare(
    name="PipelineUpdate",
    provider=PipelineUpdateProvider,
    outputs={"update_id": str, "state": str},
    stamped=DEPLOYMENT_TAG,
    config_key="pipelineUpdates",
    references={"pipeline": Reference(target_key="pipelines", field="pipeline_id")},
    after=("notebooks", "workspaceFiles", "directories"),  # what its libraries run
    importable=False,
    doc="docs/pipeline-update.md",
    summary="an action: one update of a pipeline, started and waited for",
    stack_output=("pipeline_updates", lambda resource: resource.update_id),
    action="updates a pipeline and waits for its result",
)
