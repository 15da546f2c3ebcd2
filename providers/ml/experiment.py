"""Experiment: an MLflow experiment at a workspace path, with its artifact location and tags.

The arguments are the public API's create body, `tags` as a map. A new `name` renames the
experiment in place; a new `artifact_location` replaces it (the service never moves one).
The kind sets and deletes the tags it declares: the service's own (`mlflow.*`) and any set
outside the stack are left alone. The id is the experiment id.

Delete moves the experiment to the trash, as the service does. The service keeps a name
held by a deleted experiment (a plain create of it is refused, RESOURCE_ALREADY_EXISTS, until
the experiment is restored or purged), so a create whose name an experiment in the trash
holds restores that experiment and takes it over, its tags converged to the declared ones:
a stack destroyed and brought up again gets its experiment back, runs included. One of
another artifact location is not taken: the error says so. An active experiment of the name
is taken over after a create whose answer was lost, or where it holds what the create would
have made (the declared tags alone, the declared or the default artifact location): what an
interrupted run leaves; any other one fails the create with how to import it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, field_validator

from providers.client import AlreadyExists, NotFound
from providers.core.create_or_adopt import create_or_adopt
from providers.core.import_ids import numeric
from providers.core.kind import Adoption, DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.ml.experiments_api import ExperimentsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

DELETED = "deleted"
# The tags the service sets on an experiment itself (its type, its owner): never declared.
SERVICE_TAG_PREFIX = "mlflow."
# Where the service keeps an experiment's artifacts when no location is declared.
DEFAULT_ARTIFACT_ROOT = "dbfs:/databricks/mlflow-tracking"
MAX_TAG_KEY, MAX_TAG_VALUE = 250, 5000
URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:/\S*")


def workspace_path(value: str) -> str:
    """An experiment's name: an absolute workspace path (`/Users/me@x.com/churn`,
    `/Shared/churn`), without a trailing `/`."""
    path = value.rstrip("/")
    segments = path.split("/")[1:]
    if not value.startswith("/") or not segments or any(
            s in ("", ".", "..") or s != s.strip() for s in segments):
        raise ValueError(
            f"{value!r} is not an absolute workspace path: an experiment's name is the "
            "workspace path it lives at, e.g. /Shared/churn or /Users/<user>/churn")
    return path


def artifact_uri(value: str) -> str:
    """Where the experiment keeps its artifacts: a URI such as dbfs:/path, s3://bucket/path,
    abfss://container@account.dfs.core.windows.net/path, without a trailing `/`."""
    if not URI.fullmatch(value) or not value.partition(":")[2].strip("/"):
        raise ValueError(f"{value!r} is not a storage URI (e.g. dbfs:/mlflow/churn, "
                         "s3://bucket/path or abfss://container@account.dfs.core.windows.net/"
                         "path)")
    return value.rstrip("/")


class ExperimentModel(BaseModel):
    """An MLflow experiment."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, AfterValidator(workspace_path)]
    artifact_location: Annotated[str, AfterValidator(artifact_uri)] | None = None
    tags: dict[str, str] | None = None

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        for key, text in (value or {}).items():
            if not key or len(key) > MAX_TAG_KEY:
                raise ValueError(f"tag key {key!r} must have 1 to {MAX_TAG_KEY} characters")
            if key.startswith(SERVICE_TAG_PREFIX):
                raise ValueError(f"tag {key!r}: the service sets the {SERVICE_TAG_PREFIX}* "
                                 "tags itself; give the tag another name")
            if len(text) > MAX_TAG_VALUE:
                raise ValueError(f"tag {key!r} has {len(text)} characters; a value has at "
                                 f"most {MAX_TAG_VALUE}")
        return dict(sorted(value.items())) if value else None


class ExperimentProvider(WorkspaceProvider):
    args_model = ExperimentModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"artifact_location"})

    def create_object(self, client: WorkspaceClient, args: ExperimentModel, spec: Spec):
        area = ExperimentsApi(client)
        body: dict[str, Any] = {"name": spec["name"]}
        if "artifact_location" in spec:
            body["artifact_location"] = spec["artifact_location"]
        if spec.get("tags"):
            body["tags"] = [{"key": k, "value": v} for k, v in spec["tags"].items()]
        try:
            made, _adopted = create_or_adopt(
                lambda: {"experiment_id": area.create(body)},
                lambda: self._active(client, spec["name"]))
            experiment_id = str(made["experiment_id"])
        except AlreadyExists as error:
            experiment_id = self._restored(client, spec, error)
        found = self._converged(client, experiment_id, spec, {})
        return experiment_id, self._spec_of(found, spec), self._computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = ExperimentsApi(client).get(id_)
        if found.get("lifecycle_stage") == DELETED:
            return None  # in the trash: gone, as far as the stack is concerned
        return self._spec_of(found, self._recorded_spec(recorded)), self._computed(found)

    def update_object(self, client, id_, recorded, args, spec):
        found = self._converged(client, id_, spec, self._recorded_spec(recorded))
        return self._spec_of(found, spec), self._computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        area = ExperimentsApi(client)
        if area.get(id_).get("lifecycle_stage") != DELETED:
            area.delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _active(client: WorkspaceClient, name: str) -> dict[str, Any] | None:
        """The active experiment of that name: what a create whose answer was lost made."""
        try:
            found = ExperimentsApi(client).get_by_name(name)
        except NotFound:
            return None
        return None if found.get("lifecycle_stage") == DELETED else found

    @staticmethod
    def _restored(client: WorkspaceClient, spec: Spec, error: AlreadyExists) -> str:
        """The id of the experiment in the trash that holds the name, restored; else the
        service's refusal, saying what to do."""
        name = spec["name"]
        area = ExperimentsApi(client)
        try:
            held = area.get_by_name(name)
        except NotFound:
            raise error from None
        experiment_id = str(held["experiment_id"])
        if held.get("lifecycle_stage") != DELETED and _as_made(held, spec):
            return experiment_id
        if held.get("lifecycle_stage") != DELETED:
            error.message += (
                f" (an experiment {name!r}, id {experiment_id}, exists that this stack did not "
                f"make: to manage it, import it: `import: '{experiment_id}'` on its item, or "
                "ResourceOptions(import_=...))")
        elif "artifact_location" in spec and \
                held.get("artifact_location") != spec["artifact_location"]:
            error.message += (
                f" (the deleted experiment {experiment_id} in the trash holds the name, with "
                f"artifact location {held.get('artifact_location')!r}, not the declared "
                f"{spec['artifact_location']!r}: the service keeps a deleted experiment's name "
                "until it is purged from the trash; declare another name, or its location)")
        else:
            area.restore(experiment_id)
            return experiment_id
        error.args = (str(error),)
        raise error

    @staticmethod
    def _converged(client: WorkspaceClient, experiment_id: str, spec: Spec,
                   recorded: Mapping[str, Any]) -> dict[str, Any]:
        """Renames the experiment and sets and deletes its declared tags where it differs
        from the spec; the experiment as then shown."""
        area = ExperimentsApi(client)
        found = area.get(experiment_id)
        changed = False
        if found.get("name") != spec["name"]:
            area.rename(experiment_id, spec["name"])
            changed = True
        held = _tags_of(found)
        wanted: dict[str, str] = spec.get("tags") or {}
        for key, value in wanted.items():
            if held.get(key) != value:
                area.set_tag(experiment_id, key, value)
                changed = True
        for key in recorded.get("tags") or {}:
            if key not in wanted and key in held:
                area.delete_tag(experiment_id, key)
                changed = True
        return area.get(experiment_id) if changed else found

    @staticmethod
    def _spec_of(found: Mapping[str, Any], declared: Mapping[str, Any]) -> Spec:
        spec: Spec = {"name": str(found.get("name", ""))}
        if found.get("artifact_location"):
            spec["artifact_location"] = str(found["artifact_location"]).rstrip("/")
        tags = {k: v for k, v in _tags_of(found).items()
                if not k.startswith(SERVICE_TAG_PREFIX)}
        if declared.get("tags") is not None:
            # The tags the stack declares; one set outside it is not its business.
            tags = {k: v for k, v in tags.items() if k in declared["tags"]}
        if tags:
            spec["tags"] = dict(sorted(tags.items()))
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
        return {"experiment_id": str(found.get("experiment_id", "")),
                "lifecycle_stage": found.get("lifecycle_stage")}


def _tags_of(found: Mapping[str, Any]) -> dict[str, str]:
    return {str(t.get("key")): str(t.get("value", "")) for t in found.get("tags") or []}


def _as_made(found: Mapping[str, Any], spec: Spec) -> bool:
    """Whether the experiment holds what a create of `spec` makes: the declared tags and no
    other of its own, and the declared artifact location or else the service's default."""
    tags = {k: v for k, v in _tags_of(found).items() if not k.startswith(SERVICE_TAG_PREFIX)}
    location = spec.get("artifact_location") or \
        f"{DEFAULT_ARTIFACT_ROOT}/{found.get('experiment_id')}"
    return tags == (spec.get("tags") or {}) and found.get("artifact_location") == location


def _default_location(observed: Mapping[str, Any], computed: Mapping[str, Any]) -> bool:
    """Whether the artifact location is the one the service chose (no item declares it)."""
    return observed.get("artifact_location") == \
        f"{DEFAULT_ARTIFACT_ROOT}/{computed.get('experiment_id')}"


def _inventory(client: Any) -> Any:
    """Every active experiment but the notebooks' own (the service makes one per notebook
    that logs runs), as (id, name)."""
    for found in ExperimentsApi(client).list():
        if _tags_of(found).get("mlflow.experimentType") == "NOTEBOOK":
            continue
        yield str(found["experiment_id"]), str(found.get("name"))


def _drill_change(item: dict[str, Any]) -> dict[str, Any]:
    return {**item, "tags": {**(item.get("tags") or {}), "drill": "updated"}}


KIND = declare(
    name="Experiment",
    provider=ExperimentProvider,
    outputs={"experiment_id": str, "lifecycle_stage": str},
    config_key="experiments",
    # Its name is a path in a folder the stack may make.
    after=("directories",),
    doc="docs/experiment.md",
    summary="an MLflow experiment at a workspace path: rename and tags in place; delete to "
    "the trash, and a create of its name again restores it",
    import_id="experiment id",
    import_id_rule=numeric,
    stack_output=("experiments", lambda resource: resource.id),
    inventory=_inventory,
    adoption=Adoption(leaves_out={"artifact_location": _default_location}),
    drill=DrillChange(_drill_change),
)
