"""Pipeline: a Lakeflow declarative pipeline (formerly Delta Live Tables), docs/pipeline.md.

Its inputs are the body of the service's create call, derived from the official SDK
(`providers/pipelines/pipeline_model.py`): name, catalog and schema (or target and storage),
libraries, clusters, configuration, the flags, channel and edition, notifications, event
log, tags, run_as, environment, deployment, ... `check` judges them offline, each problem
named by its path (`pipeline_rules.py`).

`diff` compares the normal form (`pipeline_form.py`): clusters keyed by label, libraries as
a set, documented defaults and what the service fills in itself left out, so a pipeline
read back as made shows no change.

The service's edit replaces the whole spec. So an update reads the pipeline, keeps every
setting the stack does not declare and never declared (a notification added in the UI),
leaves out those the stack declared before and no longer does, and sends the declared ones
as declared, with the time of that read (`expected_last_modified`), so an edit made
meanwhile by someone else is not overwritten. A refresh records each declared setting
whole, so what was added inside one outside the stack (a configuration key) shows in the
preview as the change that removes it.

A pipeline's name is unique in a workspace unless `allow_duplicate_names` says otherwise,
but a name alone does not say whose the pipeline is. So the resource tags the pipeline with
its deployment (`<project>/<stack>/<resource name>` under `tags["pulumi-deployment"]`, as a
Job does). A create first looks for a pipeline of its name carrying its tag and adopts it
(edited to the declaration), so an interrupted run never leaves a duplicate nor fails on
the name it made. The tag is bookkeeping: it never shows as a change, counts against the
service's 25 tags, and a pipeline imported without one is never tagged by an update.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import pydantic
from pulumi.dynamic import UpdateResult

from providers.client import WorkspaceError
from providers.core import import_ids
from providers.core.create_or_adopt import DEPLOYMENT_TAG_KEY, create_or_adopt, imported_untagged
from providers.core.kind import (
    DEPLOYMENT_TAG,
    Adoption,
    DrillChange,
    NameReference,
    Reference,
    declare,
    principal_names,
)
from providers.core.lifecycle import (
    KeyedDiffResult,
    ModelAt,
    Spec,
    WorkspaceProvider,
    user_inputs,
)
from providers.pipelines.pipeline_form import (
    READ_ONLY,
    TOP,
    canonical,
    key_form,
    settings_of,
)
from providers.pipelines.pipelines_api import PipelinesApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient
    from providers.pipelines.pipeline_model import PipelineModel

class PipelineProvider(WorkspaceProvider):
    args_model = ModelAt("providers.pipelines.pipeline_model", "PipelineModel")

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        from providers.pipelines.pipeline_rules import problems

        return problems(cls.args_model.model_validate(inputs))

    @classmethod
    def field_changes(cls, recorded, new_inputs):
        provider = cls()
        try:
            args: Any = provider.args_model.model_validate(user_inputs(new_inputs))
            desired = provider.spec(args)
        except pydantic.ValidationError:  # not valid yet: the raw comparison
            return None
        old = provider._recorded_spec(recorded)
        keys = sorted(k for k in set(desired) | set(old) if provider._differs(k, desired, old))
        return [(key, old.get(key), desired.get(key)) for key in keys]

    def spec(self, args: PipelineModel) -> Spec:
        return canonical(args.settings())

    def _differs(self, key: str, desired: Spec, recorded: Spec) -> bool:
        # The recorded value as it compares with this declaration: what the service filled in
        # where the declaration says nothing is no change.
        held = key_form(key, recorded.get(key), desired.get(key))
        return desired.get(key) != held

    def describe_changes(
        self,
        result: KeyedDiffResult,
        recorded: Spec,
        desired: Spec,
        news: Mapping[str, Any],
        olds: Mapping[str, Any],
    ) -> None:
        lines: list[str] = []
        paths: dict[str, str] = {}
        for key in result.changed_keys:
            held = key_form(key, recorded.get(key), desired.get(key))
            wanted = desired.get(key)
            lines += field_lines(key, held, wanted)
            paths[key] = "add" if held is None else "delete" if wanted is None else "update"
        result.field_changes = lines
        result.detailed_paths = paths

    def create_object(self, client: WorkspaceClient, args: PipelineModel, spec: Spec):
        tag = args.deployment_tag
        body = _tagged(args.settings(), tag)
        left_over = _find_tagged(client, args.name, tag)
        if left_over is None:
            pipeline_id, adopted = create_or_adopt(
                lambda: PipelinesApi(client).create(body),
                lambda: _find_tagged(client, args.name, tag),
            )
        else:
            pipeline_id, adopted = left_over, True
        if adopted:
            # Made by an interrupted earlier create of this resource: it is ours whole.
            PipelinesApi(client).edit(pipeline_id, body)
        pipeline = PipelinesApi(client).get(pipeline_id)
        return pipeline_id, spec, self._computed(client, pipeline, tag)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        pipeline = PipelinesApi(client).get(id_)
        declared = self._recorded_spec(recorded)
        observed = canonical(settings_of(pipeline), declared=declared or None)
        tag = _tag_of(pipeline) or recorded.get("deployment_tag")
        return observed, self._computed(client, pipeline, tag)

    def update(self, id_, olds, news, old_inputs=None) -> UpdateResult:
        args: Any = self.args_model.model_validate(user_inputs(news))
        desired = self.spec(args)
        client = self._client(news)
        tag = None if imported_untagged(olds) else args.deployment_tag or olds.get("deployment_tag")
        pipeline = PipelinesApi(client).get(id_)
        declared_before = self._declared_keys(old_inputs)
        if declared_before is None:
            declared_before = set(self._recorded_spec(olds))
        body = edit_body(settings_of(pipeline), args.settings(), declared_before, tag)
        _edit(client, id_, body, pipeline.get("last_modified"))
        computed = self._computed(client, PipelinesApi(client).get(id_), tag)
        return UpdateResult(self._outputs(news, desired, desired, computed))

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        PipelinesApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    def _recorded_shape(self, recorded: Spec, observed: Spec) -> Spec:
        # Each declared setting whole, as read: what was added inside one outside the stack
        # is the change the next update makes.
        return {k: observed[k] for k in recorded if k in observed} if recorded else observed

    def _outputs(self, props, like, observed, computed):
        recorded = {k: observed[k] for k in like if k in observed}
        return {**recorded, **computed, "connection": props["connection"]}

    @staticmethod
    def _computed(
        client: WorkspaceClient, pipeline: Mapping[str, Any], tag: str | None
    ) -> dict[str, Any]:
        pipeline_id = pipeline["pipeline_id"]
        return {
            "pipeline_id": pipeline_id,
            "url": f"{client.connection.base_url}/#joblist/pipelines/{pipeline_id}",
            "current_state": pipeline.get("state"),
            "creator_user_name": pipeline.get("creator_user_name"),
            "deployment_tag": tag,
        }


def _edit(client: WorkspaceClient, id_: str, body: Mapping[str, Any],
          last_modified: int | None) -> None:
    """The edit, converging: a conflict on `expected_last_modified` where the pipeline holds
    what was sent is this edit itself, made by a send whose answer was lost and then sent
    again (the HTTP layer repeats a PUT); any other conflict is someone else's edit."""
    try:
        PipelinesApi(client).edit(id_, body, last_modified)
    except WorkspaceError as error:
        if error.status != 409:
            raise
        current = settings_of(PipelinesApi(client).get(id_))
        if canonical(current) != canonical(body):
            raise


def edit_body(
    current: Mapping[str, Any],
    declared: Mapping[str, Any],
    declared_before: set[str],
    tag: str | None,
) -> dict[str, Any]:
    """The whole spec an edit sends: the pipeline's settings as the service has them, but
    those the stack declared before and no longer does (the diff named them), and the
    declared settings as declared; settings made outside the stack that it never declared
    stay, the run_as and parameters `get` answers beside the spec too (an edit replaces
    them as well)."""
    dropped = declared_before - set(declared)
    kept = {
        name: value
        for name, value in current.items()
        if name not in dropped
        and name not in READ_ONLY.get(TOP, ())
    }
    tags = {k: v for k, v in (kept.get("tags") or {}).items() if k != DEPLOYMENT_TAG_KEY}
    body = {**kept, "tags": tags, **declared}
    return _tagged(body, tag)


def _tagged(settings: Mapping[str, Any], tag: str | None) -> dict[str, Any]:
    tagged = dict(settings)
    tags = dict(settings.get("tags") or {})
    if tag:
        tags[DEPLOYMENT_TAG_KEY] = tag
    if tags:
        tagged["tags"] = tags
    else:
        tagged.pop("tags", None)
    return tagged


def _tag_of(pipeline: Mapping[str, Any]) -> str | None:
    return ((pipeline.get("spec") or {}).get("tags") or {}).get(DEPLOYMENT_TAG_KEY)


def _find_tagged(client: WorkspaceClient, name: str, tag: str | None) -> str | None:
    """The pipeline named `name` an interrupted create of this resource made, if any: the
    oldest one of that name that carries its deployment tag."""
    if not tag:
        return None
    api = PipelinesApi(client)
    found = [p["pipeline_id"] for p in api.named(name) if _tag_of(api.get(p["pipeline_id"])) == tag]
    return min(found, default=None)


def field_lines(path: str, before: Any, after: Any) -> list[str]:
    """`path: before → after` per changed leaf (a map's keys, an object's fields): a setting
    that goes reads `→ (removed)`, one that comes `(absent) →`."""
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        lines: list[str] = []
        for key in sorted(set(before) | set(after)):
            if before.get(key) != after.get(key):
                lines += field_lines(f"{path}.{key}", before.get(key), after.get(key))
        return lines
    shown_before = "(absent)" if before is None else repr(before)
    shown_after = "(removed)" if after is None else repr(after)
    return [f"{path}: {shown_before} → {shown_after}"]


def _service_filled_run_as(observed: Any, computed: Any) -> bool:
    """A run_as that names the pipeline's creator: what the service fills in where none is set."""
    run_as = observed.get("run_as") or {}
    return list(run_as.values()) == [computed.get("creator_user_name")]


def _service_filled_storage(observed: Any, computed: Any) -> bool:
    """The Hive metastore location the service gives a pipeline that names none."""
    return observed.get("storage") == f"dbfs:/pipelines/{computed.get('pipeline_id')}"


def _drill_change(pipeline: dict[str, Any]) -> dict[str, Any]:
    configuration = dict(pipeline.get("configuration") or {})
    configuration["drill.round"] = str(int(configuration.get("drill.round", "0")) + 1)
    return {**pipeline, "configuration": configuration}


def _schema_of(full_name: str) -> str:
    """The schema's own name in its `catalog.schema` full name."""
    return full_name.split(".", 1)[-1]


KIND = declare(
    name="Pipeline",
    provider=PipelineProvider,
    outputs={"pipeline_id": str, "url": str, "current_state": str, "creator_user_name": str},
    stamped=DEPLOYMENT_TAG,
    config_key="pipelines",
    names={
        **principal_names("run_as"),
        "catalog": NameReference("catalog", ("catalogs",)),
        "schema": NameReference("schema", ("schemas",), within=("catalog",)),
        "event_log.catalog": NameReference("catalog", ("catalogs",)),
        "event_log.schema": NameReference("schema", ("schemas",), within=("catalog",)),
    },
    # Unique in a workspace (unless allow_duplicate_names): two items may not share one.
    identity=("name",),
    # The notebooks, files and folders its libraries name, and the catalog and schema it
    # publishes to: made before it (a glob's folder too).
    after=("directories", "notebooks", "workspaceFiles", "catalogs", "schemas"),
    # In a stack's config each may name the item instead (in place: any other value is the
    # service's own); a Schema item's id is `catalog.schema`, the pipeline takes the schema.
    references={
        "catalog": Reference(target_key="catalogs", field="catalog", in_place=True),
        "schema": Reference(
            target_key="schemas", field="schema", in_place=True, from_id=_schema_of
        ),
        "libraries[].notebook.path": Reference(
            target_key="notebooks", field="path", in_place=True
        ),
        "libraries[].file.path": Reference(
            target_key="workspaceFiles", field="path", in_place=True
        ),
    },
    doc="docs/pipeline.md",
    summary="a Lakeflow declarative pipeline (Delta Live Tables), edited in place",
    import_id="pipeline id",
    import_id_rule=import_ids.one_segment,
    stack_output=("pipelines", lambda resource: resource.pipeline_id),
    inventory=lambda client: (
        (str(p["pipeline_id"]), str(p.get("name") or "")) for p in PipelinesApi(client).list()
    ),
    adoption=Adoption(
        leaves_out={"run_as": _service_filled_run_as, "storage": _service_filled_storage},
    ),
    drill=DrillChange(_drill_change),
)
