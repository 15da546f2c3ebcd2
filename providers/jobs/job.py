"""Job: a job of the workspace at the full depth of Jobs API 2.2 (docs/job.md).

Inputs are the public service's `JobSettings` (tasks, job clusters, schedules, triggers,
notifications, parameters, Git source, run_as, ...; `providers/jobs/job_settings.py`, derived
from the official SDK). The legacy single-task shapes (the specification's nesting and the
public Jobs 2.0 shape) are still accepted and lifted to one task keyed `main`, so stacks
written for them see no change. `check` names every problem by path
(`tasks[transform].depends_on[0].task_key: no task 'ingst' ...`).

`diff` compares the normal form (`providers/jobs/job_diff.py`): tasks and job clusters keyed by
their keys, libraries as sets, server defaults left out. An update calls `jobs/update`
with the declared fields and `fields_to_remove` for what the stack declared before and no
longer does, so a setting made outside the stack that it never declared (a schedule added
in the UI) survives. `authoritative: true` makes the stack own the whole job: the update is
a `jobs/reset`, its state records every setting the service shows, and a preview after a
refresh lists each setting the reset will remove.

A job has no natural key (names are not unique), so the resource tags it with its
deployment (`<project>/<stack>/<resource name>` under `tags["pulumi-deployment"]`). A
create first looks for a job carrying its tag and adopts it, so an interrupted run never
leaves a duplicate. One listing of the workspace's jobs answers that for every create of a
deployment (`TaggedJobs`), so N creates cost N + 1 calls where the jobs fit one page, and
about N + 5 + twice the pages where they fill up to ten. The tag is bookkeeping: it never
shows as a change, and a job imported without one is never tagged by an update.
"""

from __future__ import annotations

import itertools
import re
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pydantic
from pulumi.dynamic import CheckFailure, UpdateResult

from providers.client.listing import TOO_MANY, Cap, Listing
from providers.client.process import Store
from providers.compute.volume_files import init_script_files, library_files
from providers.core import import_ids
from providers.core.create_or_adopt import DEPLOYMENT_TAG_KEY, create_or_adopt, imported_untagged
from providers.core.ids import parse_int64_id
from providers.core.kind import (
    DEPLOYMENT_TAG,
    Adoption,
    DrillChange,
    Reference,
    declare,
    principal_names,
)
from providers.core.lifecycle import (
    ModelAt,
    Spec,
    WorkspaceProvider,
    check_failures,
    contains_unknown,
    user_inputs,
)
from providers.jobs import jobs_api as jobs_api
from providers.jobs.job_diff import OWN_FIELDS, canonical, changes, update_request
from providers.jobs.jobs_api import JobsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient
    from providers.jobs.job_model import JobModel


class JobProvider(WorkspaceProvider):
    args_model = ModelAt("providers.jobs.job_model", "JobModel")

    @classmethod
    def input_failures(cls, inputs: Mapping[str, Any]) -> list[CheckFailure]:
        if contains_unknown(dict(inputs)):
            # Settings made of other resources' outputs: judge what is known, field by field.
            return super().input_failures(inputs)
        from providers.jobs.job_model import OwnFieldsModel
        from providers.jobs.job_settings import check_settings

        own = {k: v for k, v in inputs.items() if k in OWN_FIELDS}
        failures = check_failures(OwnFieldsModel, own)
        settings = {k: v for k, v in inputs.items() if k not in OWN_FIELDS}
        _, found = check_settings(settings)
        return failures + [CheckFailure(path or "(inputs)", reason) for path, reason in found]

    @classmethod
    def field_changes(cls, recorded, new_inputs):
        try:
            args: Any = cls.args_model.model_validate(user_inputs(new_inputs))
        except pydantic.ValidationError:
            return None
        new = args.settings()
        old = _settings_of(cls()._recorded_spec(recorded))
        return [(c.path, c.old, c.new) for c in changes(old, canonical(new))]

    def spec(self, args: JobModel) -> Spec:
        spec = canonical(args.settings())
        if args.authoritative:
            spec["authoritative"] = True
        return spec

    def diff(self, _id, olds, news, old_inputs=None):
        if news.get("authoritative") is True:
            old_inputs = None  # the stack owns every setting recorded, declared or not
        return super().diff(_id, olds, news, old_inputs=old_inputs)

    def describe_changes(self, result, recorded, desired, news, olds) -> None:
        keys = set(result.changed_keys)
        found = [
            change
            for change in changes(_settings_of(recorded), _settings_of(desired))
            if change.path.split("[")[0].split(".")[0] in keys
        ]
        result.field_changes = [str(change) for change in found]
        inputs = user_inputs(news)
        result.detailed_paths = {
            engine_path(change.path, inputs, olds): change.kind for change in found
        }

    def create_object(self, client: WorkspaceClient, args: JobModel, spec: Spec):
        tag = args.deployment_tag
        body = _tagged(args.settings(), tag)
        left_over = tagged_jobs().find(client, args.name, tag)
        if left_over is None:
            job_id, adopted = create_or_adopt(
                lambda: JobsApi(client).create(body), lambda: _find_by_name(client, args.name, tag)
            )
        else:
            job_id, adopted = left_over, True
        if adopted:
            # Made by an interrupted earlier create of this resource: it is ours whole.
            JobsApi(client).reset(job_id, body)
        tagged_jobs().made(client, tag, job_id)
        # No read-back: the service stores the settings as sent (plus defaults of its own,
        # which the normal form leaves out), and the creator of a job is the caller.
        return str(job_id), spec, self._computed(client, job_id, client.connection.client_id, tag)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        job_id = parse_int64_id(id_, "job id")
        # A refresh shares one listing of the workspace's jobs (tasks expanded); a job the
        # listing cuts short, does not hold, or a workspace too big to list, is read alone.
        def read_alone() -> dict[str, Any]:
            return JobsApi(client).get(job_id)

        job = listed_jobs().take(client, str(job_id), read_alone)
        if job is None or job.get("has_more"):
            job = read_alone()
        settings = job.get("settings") or {}
        declared = _settings_of(self._recorded_spec(recorded))
        authoritative = bool(recorded.get("authoritative"))
        observed = canonical(settings, declared=None if authoritative or not declared else declared)
        if authoritative:
            observed["authoritative"] = True
        tag = (settings.get("tags") or {}).get(DEPLOYMENT_TAG_KEY, recorded.get("deployment_tag"))
        return observed, self._computed(client, job["job_id"], job.get("creator_user_name"), tag)

    def _recorded_shape(self, recorded: Spec, observed: Spec) -> Spec:
        # An authoritative job: the stack owns it whole, so a read records every setting the
        # service shows, and a preview lists what the next reset removes.
        if recorded.get("authoritative"):
            return observed
        return super()._recorded_shape(recorded, observed)

    def update(self, id_, olds, news, old_inputs=None) -> UpdateResult:
        args: Any = self.args_model.model_validate(user_inputs(news))
        desired = self.spec(args)
        client = self._client(news)
        job_id = parse_int64_id(id_, "job id")
        tag = None if imported_untagged(olds) else args.deployment_tag or olds.get("deployment_tag")
        if args.authoritative:
            JobsApi(client).reset(job_id, _tagged(args.settings(), tag))
        else:
            before = _tagged(self._owned_before(olds, old_inputs, desired), tag)
            request = update_request(before, _tagged(args.settings(), tag))
            JobsApi(client).update(job_id, request["new_settings"], request["fields_to_remove"])
        computed = {key: olds.get(key) for key in self.computed_keys}
        computed["deployment_tag"] = tag
        # One write, no read-back: the declared fields are now as sent.
        return UpdateResult(self._outputs(news, desired, desired, computed))

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        job_id = parse_int64_id(id_, "job id")
        JobsApi(client).delete(job_id)
        tagged_jobs().gone(client, job_id)

    # --- helpers ------------------------------------------------------------------
    def _outputs(self, props, like, observed, computed):
        # Recorded in the order the inputs declare (read: as recorded before), so a detailed
        # diff's indexes name the same task in the state and in the inputs.
        return in_declared_order(super()._outputs(props, like, observed, computed), props)

    def _recorded_spec(self, outputs: Mapping[str, Any]) -> Spec:
        # A state recorded before the full-depth settings holds the single-task shape.
        recorded = super()._recorded_spec(outputs)
        spec = canonical(_settings_of(recorded)) if recorded else {}
        if recorded.get("authoritative"):
            spec["authoritative"] = True
        return spec

    def _owned_before(
        self, olds: Mapping[str, Any], old_inputs: Mapping[str, Any] | None, desired: Spec
    ) -> dict[str, Any]:
        """The recorded settings (the service's, as of the last refresh) the stack owns: those
        it declares now, and those the last deployment declared (its inputs, where the engine
        passes them: none for an imported job). The update sends what differs from these and
        removes what the stack no longer declares, as the preview's diff showed."""
        recorded = _settings_of(self._recorded_spec(olds))
        declared_before = self._declared_keys(old_inputs)
        owned = set(desired) | (set(recorded) if declared_before is None else declared_before)
        return {name: value for name, value in recorded.items() if name in owned}

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


# --- finding the job an interrupted create left ----------------------------------------


def _tag_of(job: Mapping[str, Any]) -> str | None:
    return ((job.get("settings") or {}).get("tags") or {}).get(DEPLOYMENT_TAG_KEY)


def _ids(jobs: Iterable[Mapping[str, Any]]) -> set[int]:
    return {int(job["job_id"]) for job in jobs}


def _find_by_name(client: WorkspaceClient, name: str, tag: str | None) -> int | None:
    """The oldest job named `name` that carries the deployment tag `tag`, if any."""
    if not tag:
        return None
    return min(
        (int(job["job_id"]) for job in JobsApi(client).list(name) if _tag_of(job) == tag),
        default=None,
    )


# Where a workspace's jobs fill more than one page, creates search by name, one call each,
# until this many have: then the jobs are listed whole (at most WALK_PAGES pages, back to
# back, twice), which answers every later create of the deployment.
SEARCHES_BEFORE_WALK = 4
WALK_PAGES = 10


@dataclass
class _Listed:
    taken_at: float
    ids_by_tag: dict[str, set[int]] = field(default_factory=dict)
    complete: bool = True  # False: the workspace has more jobs than were listed
    searches: int = 0  # creates since answered by a name search
    walked: bool = False  # listed whole (or tried to)
    made: dict[str, set[int]] = field(default_factory=dict)  # by this process since

    def add(self, jobs: Iterable[Mapping[str, Any]]) -> None:
        for job in jobs:
            tag = _tag_of(job)
            if tag:
                self.note(tag, {int(job["job_id"])})

    def note(self, tag: str, ids: Iterable[int], *, made: bool = False) -> None:
        self.ids_by_tag.setdefault(tag, set()).update(ids)
        if made:
            self.made.setdefault(tag, set()).update(ids)

    def forget(self, gone: set[int]) -> None:
        for ids in (*self.ids_by_tag.values(), *self.made.values()):
            ids -= gone


class TaggedJobs:
    """Which job carries which deployment tag, from one listing of a workspace's jobs.

    Every create asks whether an interrupted earlier create of its resource left a tagged job.
    One listing answers that for all the creates of a deployment: the stack's lock keeps any
    other deployment of it from tagging a job meanwhile, and this process notes the jobs it
    makes and deletes. The first create lists one page. Where the workspace has more, creates
    search by name (one call each) until `SEARCHES_BEFORE_WALK` have: then the next lists up
    to `WALK_PAGES` pages, twice (`_walk` says why), and where that holds every job, later
    creates cost no lookup. So a deployment of a few jobs pays a search each, and one of many
    pays the pages twice, once. A listing older than `max_age_seconds` is not used, so a
    process that outlives one deployment lists again. One per process state
    (providers/client/process.py): a test is a deployment of its own. Thread-safe:
    concurrent creates wait for one listing.
    """

    def __init__(
        self, *, max_age_seconds: float = 120.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_age_seconds = max_age_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._listed: dict[Hashable, _Listed] = {}
        self._key_locks: dict[Hashable, threading.Lock] = {}
        # Jobs this process deleted, by workspace: a listing taken before a delete still
        # shows the job (ids are never reused, so these stay gone).
        self._gone: dict[Hashable, set[int]] = {}

    def find(self, client: WorkspaceClient, name: str, tag: str | None) -> int | None:
        """The oldest job carrying `tag` (named `name`, when the listing cannot tell)."""
        if not tag:
            return None
        key = client.connection.cache_key()
        with self._key_lock(key):
            listed = self._fresh(key)
            if listed is None:
                listed = self._keep(key, self._first_page(client))
            elif listed.searches >= SEARCHES_BEFORE_WALK and not listed.walked:
                listed = self._keep(key, self._walk(client), listed)
            with self._lock:
                if listed.complete:
                    return min(listed.ids_by_tag.get(tag, ()), default=None)
                listed.searches += 1
        return _find_by_name(client, name, tag)

    def made(self, client: WorkspaceClient, tag: str | None, job_id: int) -> None:
        with self._lock:
            listed = self._listed.get(client.connection.cache_key())
            if listed is not None and tag:
                listed.note(tag, {int(job_id)}, made=True)

    def gone(self, client: WorkspaceClient, job_id: int) -> None:
        key = client.connection.cache_key()
        with self._lock:
            self._gone.setdefault(key, set()).add(int(job_id))
            listed = self._listed.get(key)
            if listed is not None:
                listed.forget(self._gone[key])

    def _first_page(self, client: WorkspaceClient) -> _Listed:
        found, more = JobsApi(client).list_pages(1)
        listed = _Listed(self._clock(), complete=not more)
        listed.add(found)
        return listed

    def _walk(self, client: WorkspaceClient) -> _Listed:
        """Every job, where there are at most WALK_PAGES pages of them. Where the service
        pages by position (the emulator does; so does Jobs 2.0's offset), a job deleted from
        a page already read moves the next page's first job onto it, unread, and that job
        could be the left-over sought. So the walk is taken twice, and holds only where every
        job of the first is in the second: a job deleted while the first was under way is
        missing from the second."""
        started = self._clock()
        first, more = JobsApi(client).list_pages(WALK_PAGES)
        listed = _Listed(started, complete=False, walked=True)
        if more:
            return listed  # too big: creates go on searching by name
        again, _ = JobsApi(client).list_pages(WALK_PAGES)
        listed.complete = _ids(first) <= _ids(again)
        listed.add(first)
        listed.add(again)
        return listed

    def _keep(self, key: Hashable, listed: _Listed, replaced: _Listed | None = None) -> _Listed:
        with self._lock:
            # Jobs this process made while the walk was under way may be missing from it.
            for tag, ids in replaced.made.items() if replaced is not None else ():
                listed.note(tag, ids, made=True)
            # And jobs it deleted while the listing was under way may still be in it.
            listed.forget(self._gone.get(key, set()))
            self._listed[key] = listed
        return listed

    def _fresh(self, key: Hashable) -> _Listed | None:
        with self._lock:
            listed = self._listed.get(key)
            if listed is None or self._clock() - listed.taken_at > self.max_age_seconds:
                return None
            return listed

    def _key_lock(self, key: Hashable) -> threading.Lock:
        with self._lock:
            return self._key_locks.setdefault(key, threading.Lock())


tagged_jobs = Store("jobs by deployment tag", TaggedJobs)

# Pages of jobs a refresh lists to answer its reads; a bigger workspace is read job by job.
READ_LIST_PAGES = 3


def _jobs_by_id(client: WorkspaceClient, most: int) -> dict[str, dict[str, Any]] | None:
    found = list(itertools.islice(JobsApi(client).list(expand_tasks=True), most + 1))
    if len(found) > most:
        return TOO_MANY
    return {str(job["job_id"]): job for job in found}


# The jobs a refresh listed, per process state (providers/client/process.py): at first at
# most READ_LIST_PAGES pages, more where the run reads more (listing.Cap).
listed_jobs = Store(
    "jobs listed for reads",
    lambda: Listing(
        _jobs_by_id,
        cap=Cap(READ_LIST_PAGES * jobs_api.LIST_PAGE_SIZE, jobs_api.LIST_PAGE_SIZE),
    ),
)


def engine_path(path: str, inputs: Mapping[str, Any], recorded: Mapping[str, Any]) -> str:
    """A change's path (`tasks[ingest].max_retries`) as the engine's property path into the
    inputs (`tasks[0].max_retries`), where the inputs have the item; else cut at the last
    place both have. Keyed items are found by their key; map entries are quoted."""
    parts = re.findall(r"([^.\[\]]+)|\[([^\]]*)\]", path)
    found, node, other = "", inputs, recorded  # type: tuple[str, Any, Any]
    for name, key in parts:
        if name:
            if not (isinstance(node, Mapping) and name in node):
                break
            found, node = f"{found}.{name}" if found else name, node[name]
            other = other.get(name) if isinstance(other, Mapping) else None
        elif isinstance(node, Mapping):
            if key not in node:
                break
            found, node = f'{found}["{key}"]', node[key]
            other = other.get(key) if isinstance(other, Mapping) else None
        else:
            index = _index_of(node, key)
            if index is None or index != _index_of(other, key):
                break  # the old state holds the item elsewhere: name the whole list
            found, node, other = f"{found}[{index}]", node[index], other[index]  # type: ignore[index]
    return found or path.split("[")[0].split(".")[0]


def _index_of(items: Any, key: str) -> int | None:
    if not isinstance(items, list):
        return None
    for index, item in enumerate(items):
        if isinstance(item, Mapping) and key in (
            str(item.get(field)) for field in KEY_FIELDS if field in item
        ):
            return index
    return None


def in_declared_order(spec: Mapping[str, Any], inputs: Mapping[str, Any]) -> dict[str, Any]:
    """`spec` (normal form: keyed lists by key) with each keyed list of the top level in the
    order the inputs declare it, so the state's items and the inputs' share their indexes
    (the engine shows a detailed diff by index)."""
    ordered = dict(spec)
    for name, items in spec.items():
        declared = inputs.get(name)
        if not (isinstance(items, list) and isinstance(declared, list)):
            continue
        position = {_key_of(item): index for index, item in enumerate(declared)}
        if None in position or len(position) != len(declared):
            continue
        ordered[name] = sorted(items, key=lambda item: position.get(_key_of(item), len(position)))
    return ordered


def _key_of(item: Any) -> str | None:
    if isinstance(item, Mapping):
        for field in KEY_FIELDS:
            if field in item:
                return str(item[field])
    return None


# The fields that name an item of a keyed list (tasks, job clusters, environments, ...).
KEY_FIELDS = ("task_key", "job_cluster_key", "environment_key", "environment_variables_key")


def _tagged(settings: Mapping[str, Any], tag: str | None) -> dict[str, Any]:
    tagged = dict(settings)
    if tag:
        tagged["tags"] = {**(settings.get("tags") or {}), DEPLOYMENT_TAG_KEY: tag}
    return tagged


def _settings_of(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in spec.items() if k not in OWN_FIELDS}


# --- the kind ------------------------------------------------------------------------


def _service_filled_run_as(observed: Any, computed: Any) -> bool:
    """A job's run_as that names its creator: what the service fills in where none is set."""
    run_as = observed.get("run_as") or {}
    return list(run_as.values()) == [computed.get("creator_user_name")]


# The compute the job names by its item in the stack (`instance_pool: etl-pool`), as a
# Cluster item does at its top level: a cluster spec's pools and policy, a task's cluster,
# and the warehouse of a SQL or dbt task.
_CLUSTER_SPECS = ("new_cluster", "job_clusters[].new_cluster", "tasks[].new_cluster")
_COMPUTE_BY_ITEM: dict[str, Reference] = {
    **{
        f"{spec}.{key}": Reference(target_key=target, field=f"{key}_id")
        for spec in _CLUSTER_SPECS
        for key, target in (
            ("instance_pool", "instancePools"),
            ("driver_instance_pool", "instancePools"),
            ("policy", "clusterPolicies"),
        )
    },
    "existing_cluster": Reference(target_key="clusters", field="existing_cluster_id"),
    "tasks[].existing_cluster": Reference(target_key="clusters", field="existing_cluster_id"),
    "tasks[].sql_task.warehouse": Reference(target_key="sqlWarehouses", field="warehouse_id"),
    "tasks[].dbt_task.warehouse": Reference(target_key="sqlWarehouses", field="warehouse_id"),
    "tasks[].pipeline_task.pipeline_id": Reference(
        target_key="pipelines", field="pipeline_id", in_place=True
    ),
    "tasks[].sql_task.query.query_id": Reference(
        target_key="queries", field="query_id", in_place=True
    ),
    "tasks[].sql_task.alert.alert_id": Reference(
        target_key="alerts", field="alert_id", in_place=True
    ),
    "tasks[].dashboard_task.dashboard_id": Reference(
        target_key="dashboards", field="dashboard_id", in_place=True
    ),
    # A webhook notification names a destination by its id, or a notificationDestinations
    # item (in place).
    **{
        f"{holder}webhook_notifications.{event}[].id": Reference(
            target_key="notificationDestinations", field="id", in_place=True
        )
        for holder in ("", "tasks[].")
        for event in ("on_start", "on_success", "on_failure",
                      "on_duration_warning_threshold_exceeded", "on_streaming_backlog_exceeded")
    },
    **library_files("libraries"),
    **library_files("tasks[].libraries"),
    **{key: r for spec in _CLUSTER_SPECS for key, r in init_script_files(spec).items()},
}


def _drill_change(job: dict[str, Any]) -> dict[str, Any]:
    """One more concurrent run and a tag: an update in place."""
    job["max_concurrent_runs"] = job.get("max_concurrent_runs", 1) + 1
    job["tags"] = {**job.get("tags", {}), "drill": "updated"}
    return job


KIND = declare(
    name="Job",
    provider=JobProvider,
    outputs={"job_id": int, "url": str, "creator_user_name": str},
    stamped=DEPLOYMENT_TAG,
    config_key="jobs",
    names=principal_names("run_as"),
    # A job may run as one of the stack's principals, which needs the user role its rule set
    # grants.
    after=("servicePrincipals", "accessControlRuleSets"),
    references=_COMPUTE_BY_ITEM,
    doc="docs/job.md",
    summary="a job at the full depth of Jobs API 2.2, changed in place",
    import_id="job id",
    import_id_rule=import_ids.numeric,
    stack_output=("jobs", lambda resource: resource.job_id),
    inventory=lambda client: (
        (str(job["job_id"]), (job.get("settings") or {}).get("name") or "")
        for job in JobsApi(client).list()
    ),
    adoption=Adoption(leaves_out={"run_as": _service_filled_run_as}),
    arg_aliases={
        # The names of the single-task shape's args before the SDK's schema.
        "AutoscaleArgs": "AutoScaleArgs",
        "DbfsStorageArgs": "DbfsStorageInfoArgs",
        "InitScriptArgs": "InitScriptInfoArgs",
        "PypiLibraryArgs": "PythonPyPiLibraryArgs",
    },
    drill=DrillChange(_drill_change),
)
