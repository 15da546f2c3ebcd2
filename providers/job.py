"""Job: a single-task job of the workspace (a Python file on a new or existing cluster).

Inputs are accepted in either nesting of docs/api.md#wire-forms: the specification's (seed:
`timeout_seconds`, `max_retries`, `spark_python_task` and `libraries` inside `new_cluster`,
`spark_env_vars` inside `new_cluster.cluster_log_conf`) or the public service's. Both
normalise to the public nesting, so switching nesting is no change; the body goes out in
the connection's wire form. Every field is changed in place (`jobs/reset`): nothing of a
job forces a replacement.

A job has no natural key (names are not unique), so the resource tags it with its
deployment (`<project>/<stack>/<resource name>` under `settings.tags["pulumi-deployment"]`).
A create first looks for a job carrying its tag and adopts it, so an interrupted run never
leaves a duplicate. The tag is bookkeeping: it never shows as a change.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from providers.client import (
    InvalidParameter,
    NotFound,
    WorkspaceClient,
    normalise_job_settings,
)
from providers.client.wire import JOB_FIELDS_IN_SEED_CLUSTER
from providers.create_or_adopt import create_or_adopt
from providers.kind import DEPLOYMENT_TAG, declare
from providers.lifecycle import Spec, WorkspaceProvider

DEPLOYMENT_TAG_KEY = "pulumi-deployment"

# PEP 508 distribution name, optional extras, and one exact (wildcard-free) version.
PYPI_PIN = re.compile(
    r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?"
    r"(?:\[[A-Za-z0-9._-]+(?:,[A-Za-z0-9._-]+)*\])?"
    r"==[A-Za-z0-9][A-Za-z0-9.+!_-]*$"
)


# --- the input models (check) ----------------------------------------------------------


def _path_with_prefix(prefix: str, example: str) -> Callable[[str], str]:
    def validate(value: str) -> str:
        if not value.startswith(prefix) or len(value) == len(prefix):
            raise ValueError(f"must be a path under {prefix!r}, such as {example!r}")
        return value

    return validate


DbfsPath = Annotated[str, AfterValidator(_path_with_prefix("dbfs:/", "dbfs:/scripts/x.py"))]
DbfsMountPath = Annotated[
    str, AfterValidator(_path_with_prefix("dbfs:/mnt/", "dbfs:/mnt/logs/cluster"))
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DbfsStorageModel(_Model):
    destination: DbfsPath


class LogStorageModel(_Model):
    destination: DbfsMountPath


class InitScriptModel(_Model):
    dbfs: DbfsStorageModel


class ClusterLogConfModel(_Model):
    dbfs: LogStorageModel | None = None
    spark_env_vars: dict[str, str] | None = Field(
        default=None, description="seed nesting of new_cluster.spark_env_vars"
    )


class AutoscaleModel(_Model):
    # max_workers first, so that the min_workers rule can see it.
    max_workers: int = Field(ge=1)
    min_workers: int = Field(ge=0)

    @field_validator("min_workers")
    @classmethod
    def _not_above_max(cls, value: int, info: ValidationInfo) -> int:
        high = info.data.get("max_workers")
        if high is not None and value > high:
            raise ValueError(f"must not exceed max_workers ({high})")
        return value


class SparkPythonTaskModel(_Model):
    python_file: DbfsPath
    parameters: list[str] | None = None


class PypiLibraryModel(_Model):
    package: str
    repo: str | None = None

    @field_validator("package")
    @classmethod
    def _pinned(cls, value: str) -> str:
        if not PYPI_PIN.match(value):
            raise ValueError(
                "must pin one exact version as name==version (e.g. 'requests==2.32.3')"
            )
        return value


class LibraryModel(_Model):
    pypi: PypiLibraryModel


class NewClusterModel(_Model):
    name: str | None = None
    spark_version: str
    node_type_id: str
    num_workers: int | None = Field(default=None, ge=0)
    autoscale: AutoscaleModel | None = None
    init_scripts: list[InitScriptModel] | None = None
    cluster_log_conf: ClusterLogConfModel | None = None
    spark_env_vars: dict[str, str] | None = None
    spark_conf: dict[str, str] | None = None
    # The specification's nesting of four job-level fields.
    timeout_seconds: int | None = Field(default=None, ge=0)
    max_retries: int | None = Field(default=None, ge=-1)
    spark_python_task: SparkPythonTaskModel | None = None
    libraries: list[LibraryModel] | None = None

    @model_validator(mode="after")
    def _one_size(self) -> NewClusterModel:
        if (self.autoscale is None) == (self.num_workers is None):
            raise ValueError("give exactly one of num_workers and autoscale")
        return self

    @field_validator("spark_env_vars")
    @classmethod
    def _env_given_once(cls, value: dict[str, str] | None, info: ValidationInfo):
        log_conf = info.data.get("cluster_log_conf")
        seed_value = log_conf.spark_env_vars if log_conf else None
        if value is not None and seed_value is not None and value != seed_value:
            raise ValueError(
                "also given as cluster_log_conf.spark_env_vars (seed nesting) with other "
                "values; give it once"
            )
        return value


class JobModel(_Model):
    """A job's settings in either nesting, plus the hidden deployment tag."""

    name: str
    existing_cluster_id: str | None = None
    libraries: list[LibraryModel] | None = None
    timeout_seconds: int | None = Field(default=None, ge=0)
    max_retries: int | None = Field(default=None, ge=-1)
    max_concurrent_runs: int | None = Field(default=None, ge=0)
    spark_python_task: SparkPythonTaskModel | None = None
    tags: dict[str, str] | None = None
    deployment_tag: str | None = None
    new_cluster: NewClusterModel | None = None

    @field_validator("name")
    @classmethod
    def _name_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        return value

    @field_validator("tags")
    @classmethod
    def _tag_key_reserved(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        if value and DEPLOYMENT_TAG_KEY in value:
            raise ValueError(f"the key {DEPLOYMENT_TAG_KEY!r} is reserved for the provider")
        return value

    @field_validator("new_cluster")
    @classmethod
    def _one_cluster_each_field_once(cls, value: NewClusterModel | None, info: ValidationInfo):
        if value is None:
            return value
        if info.data.get("existing_cluster_id") is not None:
            raise ValueError("give either new_cluster or existing_cluster_id, not both")
        for name in JOB_FIELDS_IN_SEED_CLUSTER:
            inner, outer = getattr(value, name), info.data.get(name)
            if inner is not None and outer is not None and inner != outer:
                raise ValueError(
                    f"{name} is given both here (seed nesting) and at job level, with "
                    "different values; give it once"
                )
        return value


# --- normal form -----------------------------------------------------------------------


def canonical_settings(settings: Mapping[str, Any]) -> Spec:
    """Job settings (either nesting, as declared or as the service echoes them) in the one
    form `diff` compares: public nesting, libraries sorted, the deployment tag left out."""
    public = normalise_job_settings(dict(settings))
    tags = {k: v for k, v in (public.pop("tags", None) or {}).items() if k != DEPLOYMENT_TAG_KEY}
    if tags:
        public["tags"] = tags
    if "libraries" in public:
        # Libraries are a set to the service; init scripts run in order and are kept so.
        public["libraries"] = sorted(public["libraries"], key=_sort_key)
    return public


def _sort_key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def is_gone(error: Exception) -> bool:
    # The public service answers a deleted job id with INVALID_PARAMETER_VALUE.
    return isinstance(error, NotFound) or (
        isinstance(error, InvalidParameter) and "does not exist" in error.message
    )


def parse_job_id(id_: str) -> int:
    if not str(id_).isdigit():
        raise ValueError(f"a job id is a number, got {id_!r}")
    return int(id_)


# --- the provider ----------------------------------------------------------------------


class JobProvider(WorkspaceProvider):
    args_model = JobModel
    computed_keys: ClassVar[frozenset[str]] = frozenset(
        {"job_id", "url", "creator_user_name", "deployment_tag"}
    )

    def spec(self, args: JobModel) -> Spec:
        return canonical_settings(
            args.model_dump(mode="json", exclude_none=True, exclude={"deployment_tag"})
        )

    def create_object(self, client: WorkspaceClient, args: JobModel, spec: Spec):
        tag = args.deployment_tag
        job_id = self._find_tagged(client, args.name, tag)
        if job_id is not None:
            self._reset(client, job_id, spec, tag)
            return str(job_id), *self._observe(client, job_id, tag)
        body = self._wire_settings(client, spec, tag)
        job_id, adopted = self._create(client, args.name, body, tag)
        if adopted:
            return str(job_id), *self._observe(client, job_id, tag)
        # No read-back: the service stores the settings as sent (plus defaults of its own,
        # which the recorded state leaves out), and the creator of a job is the caller, the
        # connection's application.
        return (
            str(job_id),
            canonical_settings(body),
            self._computed(client, job_id, client.connection.client_id, tag),
        )

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        try:
            return self._observe(client, parse_job_id(id_), recorded.get("deployment_tag"))
        except (NotFound, InvalidParameter) as error:
            if is_gone(error):
                return None
            raise

    def update_object(self, client: WorkspaceClient, id_, recorded, args: JobModel, spec: Spec):
        tag = args.deployment_tag or recorded.get("deployment_tag")
        job_id = parse_job_id(id_)
        self._reset(client, job_id, spec, tag)
        return self._observe(client, job_id, tag)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        try:
            client.post("/api/2.0/jobs/delete", {"job_id": parse_job_id(id_)}, idempotent=True)
        except (NotFound, InvalidParameter) as error:
            if not is_gone(error):
                raise

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _wire_settings(client: WorkspaceClient, spec: Spec, tag: str | None) -> dict:
        settings = dict(spec)
        if tag:
            settings["tags"] = {**spec.get("tags", {}), DEPLOYMENT_TAG_KEY: tag}
        return client.wire.job_settings_to_wire(settings)

    def _create(
        self, client: WorkspaceClient, name: str, body: dict, tag: str | None
    ) -> tuple[int, bool]:
        """jobs/create -> (job id, False); after a failure that may have created the job
        anyway, (that job, found by its deployment tag, True), else another create."""
        return create_or_adopt(
            lambda: int(client.post("/api/2.0/jobs/create", body)["job_id"]),
            lambda: self._find_tagged(client, name, tag),
        )

    def _reset(self, client: WorkspaceClient, job_id: int, spec: Spec, tag: str | None) -> None:
        body = {"job_id": job_id, "new_settings": self._wire_settings(client, spec, tag)}
        client.post("/api/2.0/jobs/reset", body, idempotent=True)

    @staticmethod
    def _observe(client: WorkspaceClient, job_id: int, tag: str | None) -> tuple[Spec, dict]:
        job = client.get("/api/2.0/jobs/get", {"job_id": job_id})
        settings = job.get("settings") or {}
        computed = JobProvider._computed(
            client,
            job_id,
            job.get("creator_user_name"),
            (settings.get("tags") or {}).get(DEPLOYMENT_TAG_KEY, tag),
        )
        return canonical_settings(settings), computed

    @staticmethod
    def _computed(
        client: WorkspaceClient, job_id: int, creator: str | None, tag: str | None
    ) -> dict[str, Any]:
        return {
            "job_id": job_id,
            "url": f"{client.connection.base_url}/#job/{job_id}",
            "creator_user_name": creator,
            "deployment_tag": tag,
        }

    @classmethod
    def _find_tagged(cls, client: WorkspaceClient, name: str, tag: str | None) -> int | None:
        """The oldest job named `name` that carries this deployment's tag, if any."""
        if not tag:
            return None
        ids = [
            int(job["job_id"])
            for job in client.jobs.list(name)
            if ((job.get("settings") or {}).get("tags") or {}).get(DEPLOYMENT_TAG_KEY) == tag
        ]
        return min(ids, default=None)


# --- the kind ------------------------------------------------------------------------

KIND = declare(
    JobProvider,
    name="Job",
    outputs={"job_id": int, "url": str, "creator_user_name": str},
    stamped=DEPLOYMENT_TAG,
    config_key="jobs",
    doc="docs/job.md",
    summary="a job: its settings, changed in place",
    import_id="job id",
    stack_output=("jobs", lambda resource: resource.job_id),
    inventory=lambda client: (
        (str(job["job_id"]), (job.get("settings") or {}).get("name") or "")
        for job in client.jobs.list()
    ),
)
Job = KIND.resource
JobArgs = KIND.args


def __getattr__(name: str) -> type:
    """The generated args classes of the job's nested settings (`NewClusterArgs`, ...)."""
    try:
        return KIND.arg_types[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
