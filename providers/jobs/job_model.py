"""A job's input model: the settings of Jobs API 2.2 (`providers/jobs/job_settings.py`, derived
from the official SDK), the legacy single-task fields, and what the provider adds.

Apart from `providers/jobs/job.py` because building it loads the SDK's schemas and derives some
hundred pydantic models: only the requests that judge inputs (check, diff, create, update)
need it, so a refresh or a destroy of jobs never builds it (`JobProvider.args_model`).
"""

from __future__ import annotations

from typing import Any

import pydantic
from pydantic import create_model

from providers.client.sdk_services import compute, jobs
from providers.core.sdk_schema import model_of
from providers.jobs.job_diff import OWN_FIELDS
from providers.jobs.job_settings import JOB_RULES, JobSettingsModel

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


# The provider's own fields of the model, judged apart from the job's settings.
OwnFieldsModel: Any = pydantic.create_model(
    "_OwnFieldsModel",
    **{name: (JobModel.model_fields[name].annotation, None) for name in OWN_FIELDS},  # type: ignore[call-overload]  # field types known at run time
)
