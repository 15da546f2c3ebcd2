"""Job: a job of the workspace at the full depth of Jobs API 2.2 (docs/job.md).

Inputs are the public service's `JobSettings` (tasks, job clusters, schedules, triggers,
notifications, parameters, Git source, run_as, ...; `providers/job_settings.py`, derived
from the official SDK). The legacy single-task shapes (the specification's nesting and the
public Jobs 2.0 shape) are still accepted and lifted to one task keyed `main`, so stacks
written for them see no change. `check` names every problem by path
(`tasks[transform].depends_on[0].task_key: no task 'ingst' ...`).

`diff` compares the normal form (`providers/job_diff.py`): tasks and job clusters keyed by
their keys, libraries as sets, server defaults left out. An update calls `jobs/update`
with the declared fields and `fields_to_remove` for what the stack declared before and no
longer does, so a setting made outside the stack that it never declared (a schedule added
in the UI) survives. `authoritative: true` makes the stack own the whole job: the update is
a `jobs/reset`, its state records every setting the service shows, and a preview after a
refresh lists each setting the reset will remove.

A job has no natural key (names are not unique), so the resource tags it with its
deployment (`<project>/<stack>/<resource name>` under `tags["pulumi-deployment"]`). A
create first looks for a job carrying its tag and adopts it, so an interrupted run never
leaves a duplicate. The tag is bookkeeping: it never shows as a change.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic
from pulumi.dynamic import CheckFailure, UpdateResult
from pydantic import create_model

from providers.client import WorkspaceClient
from providers.client.sdk_services import compute, jobs
from providers.create_or_adopt import create_or_adopt
from providers.ids import parse_int64_id
from providers.job_diff import canonical, changes, update_request
from providers.job_settings import (
    DEPLOYMENT_TAG_KEY,
    JOB_RULES,
    JobSettingsModel,
    check_settings,
)
from providers.kind import DEPLOYMENT_TAG, declare
from providers.lifecycle import (
    Spec,
    WorkspaceProvider,
    check_failures,
    contains_unknown,
    user_inputs,
)
from providers.sdk_schema import model_of

# What the provider adds to the settings; the rest of the inputs are the job's settings.
OWN_FIELDS = ("deployment_tag", "authoritative")

# The specification's `new_cluster`, which also holds four of its single task's fields.
_ClusterSpecModel: Any = model_of(compute.ClusterSpec, overrides=JOB_RULES)
_SparkPythonTaskModel: Any = model_of(jobs.SparkPythonTask, overrides=JOB_RULES)
_LibraryModel: Any = model_of(compute.Library, overrides=JOB_RULES)
NewClusterModel: Any = create_model(
    "NewClusterModel",
    __base__=_ClusterSpecModel,
    name=(str | None, None),
    timeout_seconds=(int | None, None),
    max_retries=(int | None, None),
    spark_python_task=(_SparkPythonTaskModel | None, None),
    libraries=(list[_LibraryModel] | None, None),
)


class JobModel(JobSettingsModel):
    """A job's settings, plus what the provider adds.

    The fields below `JobSettings` are the legacy single-task shape, lifted to one task
    before validation (they are fields so that programs written for it keep working)."""

    new_cluster: NewClusterModel | None = None
    existing_cluster_id: str | None = None
    spark_python_task: _SparkPythonTaskModel | None = None
    libraries: list[_LibraryModel] | None = None
    max_retries: int | None = None
    min_retry_interval_millis: int | None = None
    retry_on_timeout: bool | None = None
    authoritative: bool | None = pydantic.Field(
        default=None, description="own the whole job: updates reset it"
    )
    deployment_tag: str | None = None

    def settings(self) -> dict[str, Any]:
        """The declared settings as the service takes them (canonical nesting)."""
        return self.model_dump(mode="json", exclude_none=True, exclude=set(OWN_FIELDS))


class _OwnFieldsModel(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="ignore")
    authoritative: bool | None = None
    deployment_tag: str | None = None


class JobProvider(WorkspaceProvider):
    args_model = JobModel

    @classmethod
    def input_failures(cls, inputs: Mapping[str, Any]) -> list[CheckFailure]:
        if contains_unknown(dict(inputs)):
            # Settings made of other resources' outputs: judge what is known, field by field.
            return super().input_failures(inputs)
        own = {k: v for k, v in inputs.items() if k in OWN_FIELDS}
        failures = check_failures(_OwnFieldsModel, own)
        settings = {k: v for k, v in inputs.items() if k not in OWN_FIELDS}
        _, found = check_settings(settings)
        return failures + [CheckFailure(path or "(inputs)", reason) for path, reason in found]

    @classmethod
    def field_changes(cls, old_inputs, new_inputs):
        try:
            old = cls.args_model.model_validate(user_inputs(old_inputs)).settings()
            new = cls.args_model.model_validate(user_inputs(new_inputs)).settings()
        except pydantic.ValidationError:
            return None
        return [(c.path, c.old, c.new) for c in changes(canonical(old), canonical(new))]

    def spec(self, args: JobModel) -> Spec:
        spec = canonical(args.settings())
        if args.authoritative:
            spec["authoritative"] = True
        return spec

    def diff(self, _id, olds, news, old_inputs=None):
        result = super().diff(_id, olds, news, old_inputs=old_inputs)
        if result.changes and not contains_unknown(dict(news)):
            recorded = self._recorded_spec(olds)
            desired = self.spec(self.args_model.model_validate(_user_settings(news)))
            keys = set(result.changed_keys)
            result.field_changes = [
                str(change)
                for change in changes(_settings_of(recorded), _settings_of(desired))
                if change.path.split("[")[0].split(".")[0] in keys
            ]
        return result

    def create_object(self, client: WorkspaceClient, args: JobModel, spec: Spec):
        tag = args.deployment_tag
        body = _tagged(args.settings(), tag)
        found = self._find_tagged(client, args.name, tag)
        if found is None:
            job_id, adopted = create_or_adopt(
                lambda: client.jobs.create(body), lambda: self._find_tagged(client, args.name, tag)
            )
        else:
            job_id, adopted = found, True
        if adopted:
            # Made by an interrupted earlier create of this resource: it is ours whole.
            client.jobs.reset(job_id, body)
        # No read-back: the service stores the settings as sent (plus defaults of its own,
        # which the normal form leaves out), and the creator of a job is the caller.
        return str(job_id), spec, self._computed(client, job_id, client.connection.client_id, tag)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        job = client.jobs.get(parse_int64_id(id_, "job id"))
        settings = job.get("settings") or {}
        declared = _settings_of(self._recorded_spec(recorded))
        authoritative = bool(recorded.get("authoritative"))
        observed = canonical(settings, declared=None if authoritative or not declared else declared)
        if authoritative:
            observed["authoritative"] = True
        tag = (settings.get("tags") or {}).get(DEPLOYMENT_TAG_KEY, recorded.get("deployment_tag"))
        return observed, self._computed(client, job["job_id"], job.get("creator_user_name"), tag)

    def update(self, id_, olds, news, old_inputs=None) -> UpdateResult:
        args = self.args_model.model_validate(_user_settings(news))
        desired = self.spec(args)
        client = self._client(news)
        job_id = parse_int64_id(id_, "job id")
        tag = args.deployment_tag or olds.get("deployment_tag")
        if args.authoritative:
            client.jobs.reset(job_id, _tagged(args.settings(), tag))
        else:
            before = _tagged(self._declared_before(olds, old_inputs), tag)
            request = update_request(before, _tagged(args.settings(), tag))
            client.jobs.update(job_id, request["new_settings"], request["fields_to_remove"])
        computed = {key: olds.get(key) for key in self.computed_keys}
        computed["deployment_tag"] = tag
        # One write, no read-back: the declared fields are now as sent.
        return UpdateResult(self._outputs(news, desired, desired, computed))

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        client.jobs.delete(parse_int64_id(id_, "job id"))

    # --- helpers ------------------------------------------------------------------
    def _recorded_spec(self, outputs: Mapping[str, Any]) -> Spec:
        # A state recorded before the full-depth settings holds the single-task shape.
        recorded = super()._recorded_spec(outputs)
        spec = canonical(_settings_of(recorded)) if recorded else {}
        if recorded.get("authoritative"):
            spec["authoritative"] = True
        return spec

    def _declared_before(
        self, olds: Mapping[str, Any], old_inputs: Mapping[str, Any] | None
    ) -> dict[str, Any]:
        """What the last deployment declared: its inputs where the engine passes them (none
        for an imported job: nothing declared yet), else its recorded declared state."""
        if old_inputs is not None:
            inputs = _user_settings(old_inputs)
            return self.args_model.model_validate(inputs).settings() if inputs else {}
        return _settings_of(self._recorded_spec(olds))

    @staticmethod
    def _computed(
        client: WorkspaceClient, job_id: int, creator: str | None, tag: str | None
    ) -> dict[str, Any]:
        return {
            "job_id": int(job_id),
            "url": f"{client.connection.base_url}/#job/{job_id}",
            "creator_user_name": creator,
            "deployment_tag": tag,
        }

    @staticmethod
    def _find_tagged(client: WorkspaceClient, name: str, tag: str | None) -> int | None:
        """The oldest job named `name` that carries this deployment's tag, if any."""
        if not tag:
            return None
        ids = [
            int(job["job_id"])
            for job in client.jobs.list(name)
            if ((job.get("settings") or {}).get("tags") or {}).get(DEPLOYMENT_TAG_KEY) == tag
        ]
        return min(ids, default=None)


def _tagged(settings: Mapping[str, Any], tag: str | None) -> dict[str, Any]:
    tagged = dict(settings)
    if tag:
        tagged["tags"] = {**(settings.get("tags") or {}), DEPLOYMENT_TAG_KEY: tag}
    return tagged


def _settings_of(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in spec.items() if k not in OWN_FIELDS}


def _user_settings(props: Mapping[str, Any]) -> dict[str, Any]:
    return user_inputs(props)


# --- the kind ------------------------------------------------------------------------

KIND = declare(
    JobProvider,
    name="Job",
    outputs={"job_id": int, "url": str, "creator_user_name": str},
    stamped=DEPLOYMENT_TAG,
    config_key="jobs",
    after=("servicePrincipals",),  # a job may run as one of the stack's principals
    doc="docs/job.md",
    summary="a job at the full depth of Jobs API 2.2, changed in place",
    import_id="job id",
    stack_output=("jobs", lambda resource: resource.job_id),
    inventory=lambda client: (
        (str(job["job_id"]), (job.get("settings") or {}).get("name") or "")
        for job in client.jobs.list()
    ),
    arg_aliases={
        # The names of the single-task shape's args before the SDK's schema.
        "AutoscaleArgs": "AutoScaleArgs",
        "DbfsStorageArgs": "DbfsStorageInfoArgs",
        "InitScriptArgs": "InitScriptInfoArgs",
        "PypiLibraryArgs": "PythonPyPiLibraryArgs",
    },
)
Job = KIND.resource
JobArgs = KIND.args


def __getattr__(name: str) -> type:
    """The generated args classes of the job's nested settings (`TaskArgs`, ...)."""
    try:
        return KIND.arg_types[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
