"""Cluster: an all-purpose cluster of the workspace (docs/cluster.md).

Its spec is the service's `ClusterSpec`, the model of a job's `new_cluster`, derived from the
official SDK with the same rules (`providers.compute.rules.COMPUTE_RULES`); beside it the
provider keeps the cluster's declared `state` (RUNNING or TERMINATED: started or terminated
as needed), whether it is `pinned`, and the `libraries` installed on it.

As the service: a create starts the cluster; an edit replaces its whole spec, restarting it
when it runs (a TERMINATED cluster stays so); a change of only its size (`num_workers`,
`autoscale`) of a running cluster is a resize, without a restart. The preview says which
changes restart it. Nothing replaces a cluster: the service edits every field in place.
Deleting the resource deletes the cluster permanently.

A cluster has no natural key (names are not unique), so the resource tags it with its
deployment (`custom_tags["pulumi-deployment"]`, like jobs); a create first looks for a
cluster carrying its tag and adopts it, so an interrupted run never leaves a duplicate. The
tag is bookkeeping: it never shows as a change.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Literal

import pulumi
from pydantic import AfterValidator, Field

from providers.client.sdk_services import compute
from providers.compute.clusters_api import ClustersApi
from providers.compute.rules import COMPUTE_RULES, cluster_problems, library_problems
from providers.compute.run_states import DEFAULT_TIMEOUT_SECONDS, ClusterStateError, converge
from providers.compute.volume_files import init_script_files, library_files
from providers.core import import_ids
from providers.core.create_or_adopt import DEPLOYMENT_TAG_KEY, create_or_adopt, imported_untagged
from providers.core.kind import (
    DEPLOYMENT_TAG,
    PRINCIPALS,
    Adoption,
    DrillChange,
    NameReference,
    Reference,
    always,
    declare,
)
from providers.core.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, spec_changes
from providers.core.polling import Deadline, Progress
from providers.core.sdk_schema import ClassRules, model_of

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

# What the provider keeps beside the cluster's spec.
OWN_FIELDS = ("state", "pinned", "libraries", "timeout_seconds", "deployment_tag")
SPEC_FIELDS = tuple(f.name for f in dataclasses.fields(compute.ClusterSpec))
# A change of only these, of a running cluster, is a resize: no restart.
SIZE_FIELDS = frozenset({"num_workers", "autoscale"})
SETTLED_STATES = ("RUNNING", "TERMINATED", "ERROR")
# Where the service is on its way, the state it is heading for.
HEADING_FOR = {
    "PENDING": "RUNNING",
    "RESTARTING": "RUNNING",
    "RESIZING": "RUNNING",
    "TERMINATING": "TERMINATED",
}
GOING_AWAY = "UNINSTALL_ON_RESTART"
AUTOTERMINATION_RANGE = (10, 10000)


def _no_reserved_tag(tags: dict[str, str]) -> dict[str, str]:
    if DEPLOYMENT_TAG_KEY in tags:
        raise ValueError(
            f"the key {DEPLOYMENT_TAG_KEY!r} is reserved: the provider tags the cluster with "
            "its deployment there; use another key"
        )
    return tags


def _autotermination(minutes: int) -> int:
    low, high = AUTOTERMINATION_RANGE
    if minutes != 0 and not low <= minutes <= high:
        raise ValueError(f"must be 0 (never) or between {low} and {high} minutes, got {minutes}")
    return minutes


CLUSTER_RULES: dict[str, ClassRules] = {
    **COMPUTE_RULES,
    "ClusterSpec": ClassRules(
        fields={
            "custom_tags": Annotated[dict[str, str], AfterValidator(_no_reserved_tag)],
            "autotermination_minutes": Annotated[int, AfterValidator(_autotermination)],
        },
        required=("spark_version",),
    ),
}
_ClusterSpecModel: Any = model_of(compute.ClusterSpec, overrides=CLUSTER_RULES)
_LibraryModel: Any = model_of(compute.Library, overrides=CLUSTER_RULES)


class ClusterModel(_ClusterSpecModel):
    """An all-purpose cluster: the service's ClusterSpec, and what the provider keeps."""

    state: Literal["RUNNING", "TERMINATED"] | None = Field(
        default=None, description="held RUNNING or TERMINATED; unset: as the service leaves it"
    )
    pinned: bool | None = None
    libraries: list[_LibraryModel] | None = None
    timeout_seconds: int | None = Field(default=None, ge=1, le=24 * 3600)
    deployment_tag: str | None = None


# --- normal forms -----------------------------------------------------------------------


def _library_key(library: Any) -> str:
    return json.dumps(library, sort_keys=True)


def _library_set(libraries: list[Any]) -> list[Any]:
    unique = {_library_key(library): library for library in libraries}
    return [unique[key] for key in sorted(unique)]


def cluster_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a spec the service keeps as the cluster's spec."""
    return {k: v for k, v in spec.items() if k not in OWN_FIELDS}


def _tagged(spec: Mapping[str, Any], tag: str | None) -> dict[str, Any]:
    tagged = dict(spec)
    if tag:
        tagged["custom_tags"] = {**(spec.get("custom_tags") or {}), DEPLOYMENT_TAG_KEY: tag}
    return tagged


def _untagged(details: Mapping[str, Any]) -> dict[str, Any]:
    """The spec fields of a cluster as the service shows it, without the deployment tag."""
    spec = {k: details[k] for k in SPEC_FIELDS if details.get(k) is not None}
    tags = {k: v for k, v in (spec.get("custom_tags") or {}).items() if k != DEPLOYMENT_TAG_KEY}
    spec.pop("custom_tags", None)
    if tags:
        spec["custom_tags"] = tags
    return spec


def _settled_state(state: str | None) -> str:
    return HEADING_FOR.get(state or "", state or "UNKNOWN")


# --- waiting ---------------------------------------------------------------------------


def wait_settled(client: WorkspaceClient, cluster_id: str, timeout_seconds: float) -> dict:
    """The cluster once it is RUNNING, TERMINATED or in ERROR (an edit needs one of those)."""
    deadline = Deadline(timeout_seconds)
    progress = Progress(f"cluster {cluster_id}", deadline)
    while True:
        cluster = ClustersApi(client).get(cluster_id)
        state = cluster.get("state", "UNKNOWN")
        if state in SETTLED_STATES:
            return cluster
        if deadline.expired():
            raise ClusterStateError(
                f"cluster {cluster_id} did not settle within {timeout_seconds:g} s: it is "
                f"{state}. Run `pulumi up` again to go on waiting, or raise timeout_seconds"
            )
        progress.observe(state)
        deadline.pause()


# --- the provider -----------------------------------------------------------------------


class ClusterProvider(WorkspaceProvider):
    args_model = ClusterModel

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        model = cls.args_model.model_validate(inputs)
        found = list(cluster_problems(model, ()))
        for index, library in enumerate(model.libraries or []):
            found += library_problems(library, ("libraries", index))
        # The one rule about the whole cluster is its size: named by its first field.
        return [(".".join(str(p) for p in loc) or "num_workers", reason) for loc, reason in found]

    @classmethod
    def field_changes(cls, recorded, new_inputs):
        return spec_changes(cls(), recorded, new_inputs)

    def spec(self, args: ClusterModel) -> Spec:
        spec = args.model_dump(mode="json", exclude_none=True, exclude={"deployment_tag"})
        if "libraries" in spec:
            spec["libraries"] = _library_set(spec["libraries"])
        return spec

    def describe_changes(
        self,
        result: KeyedDiffResult,
        recorded: Spec,
        desired: Spec,
        news: Mapping[str, Any],
        olds: Mapping[str, Any],
    ) -> None:
        changed = result.changed_keys
        restarts = self.restarts(changed, olds.get("current_state"), desired.get("state"))
        note = " (restarts the running cluster)" if restarts else ""
        result.field_changes = [
            f"{key}: {recorded.get(key)!r} → {desired.get(key)!r}"
            + (note if key not in OWN_FIELDS else "")
            for key in changed
        ]
        result.detailed_paths = {
            key: "add" if key not in recorded else "delete" if key not in desired else "update"
            for key in changed
        }
        if restarts:
            spec_keys = ", ".join(k for k in changed if k not in OWN_FIELDS)
            pulumi.log.warn(
                f"cluster {olds.get('cluster_id')}: the change of {spec_keys} is an edit of a "
                "running cluster, which restarts it"
            )

    @staticmethod
    def restarts(changed: list[str], current_state: str | None, desired_state: str | None) -> bool:
        """Whether applying `changed` restarts the cluster: an edit of a running cluster that is
        to stay running (a change of only its size is a resize, without a restart)."""
        spec_keys = {k for k in changed if k not in OWN_FIELDS}
        if not spec_keys or spec_keys <= SIZE_FIELDS:
            return False
        return _settled_state(current_state) == "RUNNING" and desired_state != "TERMINATED"

    def create_object(self, client: WorkspaceClient, args: ClusterModel, spec: Spec):
        tag = args.deployment_tag
        body = _tagged(cluster_spec(spec), tag)
        timeout = args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        left_over = _find_tagged(client, tag)
        if left_over is None:
            cluster_id, adopted = create_or_adopt(
                lambda: ClustersApi(client).create(body), lambda: _find_tagged(client, tag)
            )
        else:
            cluster_id, adopted = left_over, True
        if adopted:
            # Made by an interrupted earlier create of this resource: made as declared.
            found = wait_settled(client, cluster_id, timeout)
            if _untagged(found) != _untagged(body):
                ClustersApi(client).edit(cluster_id, body)
            self._apply_libraries(client, cluster_id, {}, spec)
        elif args.libraries:
            ClustersApi(client).install_libraries(cluster_id, spec["libraries"])
        if args.pinned or (adopted and args.pinned is not None):
            ClustersApi(client).set_pinned(cluster_id, bool(args.pinned))
        cluster = converge(client, cluster_id, args.state or "RUNNING", timeout)
        return cluster_id, self._observed(cluster, spec), self._computed(client, cluster, tag)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        cluster = ClustersApi(client).get(id_)
        like = self._recorded_spec(recorded)
        importing = not like
        observed = self._observed(cluster, like, importing=importing)
        if importing or "libraries" in like:
            libraries = self._libraries_of(client, id_)
            if libraries or not importing:
                observed["libraries"] = libraries
        if importing or "pinned" in like:
            observed["pinned"] = ClustersApi(client).is_pinned(id_)
        tag = _tag_of(cluster) or recorded.get("deployment_tag")
        return observed, self._computed(client, cluster, tag)

    def update_object(self, client, id_, recorded, args: ClusterModel, spec: Spec):
        old = self._recorded_spec(recorded)
        tag = (
            None if imported_untagged(recorded)
            else args.deployment_tag or recorded.get("deployment_tag")
        )
        timeout = args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        changed = {k for k in set(cluster_spec(old)) | set(cluster_spec(spec))
                   if old.get(k) != spec.get(k)}
        if changed:
            cluster = wait_settled(client, id_, timeout)
            if args.state == "TERMINATED" and cluster["state"] != "TERMINATED":
                cluster = converge(client, id_, "TERMINATED", timeout)  # no restart needed
            if changed <= SIZE_FIELDS and cluster["state"] == "RUNNING":
                size = {k: spec[k] for k in SIZE_FIELDS if k in spec}
                ClustersApi(client).resize(id_, size)
            else:
                ClustersApi(client).edit(id_, self._edit_body(cluster, old, spec, tag))
        self._apply_libraries(client, id_, old, spec)
        if old.get("pinned") != spec.get("pinned") and args.pinned is not None:
            ClustersApi(client).set_pinned(id_, args.pinned)
        desired = args.state or _settled_state(wait_settled(client, id_, timeout).get("state"))
        cluster = converge(client, id_, desired, timeout)
        return self._observed(cluster, spec), self._computed(client, cluster, tag)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        ClustersApi(client).permanent_delete(id_)

    # --- helpers ------------------------------------------------------------------------

    @staticmethod
    def _edit_body(
        cluster: Mapping[str, Any], old: Spec, spec: Spec, tag: str | None
    ) -> dict[str, Any]:
        """The whole spec an edit sends: the cluster's as the service shows it, with the
        declared fields as declared and the fields the stack declared before and no longer
        does left out (an edit clears what it does not give); settings made elsewhere that
        the stack never declared stay."""
        current = _untagged(cluster)
        dropped = set(cluster_spec(old)) - set(cluster_spec(spec))
        kept = {k: v for k, v in current.items() if k not in dropped}
        return _tagged({**kept, **cluster_spec(spec)}, tag)

    def _apply_libraries(
        self, client: WorkspaceClient, cluster_id: str, old: Spec, spec: Spec
    ) -> None:
        """Installs the declared libraries the cluster lacks and uninstalls the others (an
        uninstall takes effect at the cluster's next restart)."""
        if "libraries" not in spec and "libraries" not in old:
            return
        present = {_library_key(lib): lib for lib in self._libraries_of(client, cluster_id)}
        wanted = {_library_key(lib): lib for lib in spec.get("libraries") or []}
        missing = [lib for key, lib in wanted.items() if key not in present]
        extra = [lib for key, lib in present.items() if key not in wanted]
        if missing:
            ClustersApi(client).install_libraries(cluster_id, missing)
        if extra:
            ClustersApi(client).uninstall_libraries(cluster_id, extra)

    @staticmethod
    def _libraries_of(client: WorkspaceClient, cluster_id: str) -> list[Any]:
        statuses = ClustersApi(client).library_statuses(cluster_id)
        return _library_set([s["library"] for s in statuses if s.get("status") != GOING_AWAY])

    @staticmethod
    def _observed(
        cluster: Mapping[str, Any], like: Mapping[str, Any], *, importing: bool = False
    ) -> Spec:
        observed: Spec = _untagged(cluster)
        if importing or "state" in like:
            observed["state"] = _settled_state(cluster.get("state"))
        for key in ("libraries", "pinned", "timeout_seconds"):
            if key in like:
                observed[key] = like[key]
        return observed

    @staticmethod
    def _computed(
        client: WorkspaceClient, cluster: Mapping[str, Any], tag: str | None
    ) -> dict[str, Any]:
        cluster_id = cluster["cluster_id"]
        return {
            "cluster_id": cluster_id,
            "url": f"{client.connection.base_url}/#setting/clusters/{cluster_id}/configuration",
            "current_state": cluster.get("state"),
            "creator_user_name": cluster.get("creator_user_name"),
            "deployment_tag": tag,
        }


def _tag_of(cluster: Mapping[str, Any]) -> str | None:
    return (cluster.get("custom_tags") or {}).get(DEPLOYMENT_TAG_KEY)


def _find_tagged(client: WorkspaceClient, tag: str | None) -> str | None:
    """The cluster an interrupted create of this resource made, if any."""
    if not tag:
        return None
    found = [c["cluster_id"] for c in ClustersApi(client).list() if _tag_of(c) == tag]
    return min(found, default=None)


KIND = declare(
    name="Cluster",
    provider=ClusterProvider,
    outputs={"cluster_id": str, "url": str, "current_state": str, "creator_user_name": str},
    stamped=DEPLOYMENT_TAG,
    config_key="clusters",
    names={
        "single_user_name": NameReference("single_user_name", PRINCIPALS),
    },
    references={
        "policy": Reference(target_key="clusterPolicies", field="policy_id"),
        "instance_pool": Reference(target_key="instancePools", field="instance_pool_id"),
        "driver_instance_pool": Reference(
            target_key="instancePools", field="driver_instance_pool_id"
        ),
        **library_files("libraries"),
        **init_script_files(),
    },
    doc="docs/cluster.md",
    summary="an all-purpose cluster: spec, running or terminated, pin, libraries",
    import_id="cluster id",
    import_id_rule=import_ids.one_segment,
    stack_output=("clusters", lambda resource: resource.cluster_id),
    # Job clusters come and go with their runs; no stack could manage them.
    inventory=lambda client: (
        (str(c["cluster_id"]), str(c.get("cluster_name", "")))
        for c in ClustersApi(client).list()
        if c.get("cluster_source") != "JOB"
    ),
    adoption=Adoption(
        leaves_out={
            # Where it is now, not a setting: declared, the stack would start or stop it.
            "state": always,
            "pinned": lambda observed, _: observed.get("pinned") is False,
            "enable_elastic_disk": lambda observed, _: (
                observed.get("enable_elastic_disk") is True
            ),
            "driver_node_type_id": lambda observed, _: (
                observed.get("driver_node_type_id") == observed.get("node_type_id")
            ),
        },
    ),
    drill=DrillChange(
        lambda cluster: {
            **cluster,
            "autotermination_minutes": cluster.get("autotermination_minutes", 20) + 10,
        }
    ),
)
