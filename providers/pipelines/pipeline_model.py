"""A pipeline's input model: the body of the service's create call (the official SDK's
`PipelinesAPI.create`), derived field by field from the SDK, and what the provider adds (its
deployment tag).

The SDK has no dataclass for that body (its create takes keyword arguments), so one is made
from the create method's own signature and type hints: every argument but `dry_run` (a trial
that makes nothing) and `id` (the service's). Everything the arguments nest (a cluster, a
library, notifications, an ingestion definition, ...) is the SDK's dataclass, derived by
`providers.core.sdk_schema.model_of`, so a field the service adds arrives with the SDK.

Our rules on single fields attach here (`PIPELINE_RULES`: the channel and the edition, the
tags); the rules across fields are `pipeline_rules.problems`.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator

from providers.client.sdk_services import service
from providers.core.create_or_adopt import DEPLOYMENT_TAG_KEY
from providers.core.sdk_schema import ClassRules, model_of

pipelines = service("pipelines")

# The create call's arguments that are no setting of the pipeline.
NOT_SETTINGS = ("dry_run", "id")
# What the service documents of these plain-text settings.
CHANNELS = ("CURRENT", "PREVIEW")
EDITIONS = ("CORE", "PRO", "ADVANCED")
MAX_TAGS = 25


def _create_body_class() -> type:
    """A dataclass of the create call's body, from `PipelinesAPI.create`'s signature."""
    create = pipelines.PipelinesAPI.create
    hints = typing.get_type_hints(create)
    fields = [
        (name, hints[name], dataclasses.field(default=None))
        for name in inspect.signature(create).parameters
        if name not in ("self", *NOT_SETTINGS)
    ]
    body = dataclasses.make_dataclass("CreatePipeline", fields)
    body.__module__ = pipelines.__name__
    body.__doc__ = "The settings of a pipeline, as its create call takes them."
    return body


def _one_of(allowed: tuple[str, ...], what: str) -> Any:
    def upper(value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    def known(value: str) -> str:
        if value not in allowed:
            raise ValueError(
                f"unknown {what} {value!r}: give one of {', '.join(allowed)}"
            )
        return value

    return Annotated[str, BeforeValidator(upper), AfterValidator(known)]


def _tags(tags: dict[str, str]) -> dict[str, str]:
    if DEPLOYMENT_TAG_KEY in tags:
        raise ValueError(
            f"the key {DEPLOYMENT_TAG_KEY!r} is reserved: the provider tags the pipeline with "
            "its deployment there; use another key"
        )
    if len(tags) > MAX_TAGS - 1:
        raise ValueError(
            f"at most {MAX_TAGS - 1} tags (the service takes {MAX_TAGS}, one of them the "
            f"provider's deployment tag), got {len(tags)}"
        )
    return tags


PIPELINE_RULES: dict[str, ClassRules] = {
    "CreatePipeline": ClassRules(
        fields={
            "channel": _one_of(CHANNELS, "channel"),
            "edition": _one_of(EDITIONS, "edition"),
            "tags": Annotated[dict[str, str], AfterValidator(_tags)],
        },
        required=("name",),
    ),
}

CreatePipeline = _create_body_class()
_CreatePipelineModel: Any = model_of(CreatePipeline, overrides=PIPELINE_RULES)


class PipelineModel(_CreatePipelineModel):
    """A pipeline: the body of the service's create call, and the provider's deployment tag."""

    deployment_tag: str | None = None

    def settings(self) -> dict[str, Any]:
        """The declared settings as the service takes them."""
        return self.model_dump(mode="json", exclude_none=True, exclude={"deployment_tag"})


# The settings a pipeline's `spec` holds (`get` answers the others beside it: run_as, ...).
SPEC_FIELDS = tuple(f.name for f in dataclasses.fields(pipelines.PipelineSpec))
