"""InstancePool: a pool of idle, ready cloud instances that clusters start from
(docs/instance-pool.md).

Its arguments are the public API's create body (`instance_pools/create` of the official
SDK): name, node type, idle and capacity bounds, the idle instances' auto termination, the
preloaded runtime version, tags, and the cloud and disk settings. As the service: an edit
takes the name, the tags, `min_idle_instances`, `max_capacity`,
`idle_instance_autotermination_minutes` and the remote disk settings, and replaces them all
(what the stack declared before and no longer does is cleared; what it never declared is
sent back as the service has it); every other setting, `node_type_id` first, cannot change,
so a change of one replaces the pool (deleting the old one first where the name stays, since
names are unique). What the service fills in (elastic disk, the cloud's availability,
default tags, statistics) is never a change.

A pool's name is unique, so a create that finds a pool of its name holding the declared
settings (left by an interrupted earlier create) adopts it. Clusters name a pool by its id
(`instance_pool_id`, `driver_instance_pool_id`); in the stack config a cluster item names an
`instancePools` item instead (`instance_pool: <item name>`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from providers.client import AlreadyExists
from providers.compute.instance_pools_api import InstancePoolsApi
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import Adoption, DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider, spec_changes

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

NAME_LENGTH = (1, 100)
MAX_TAGS = 45
# What an edit takes (and replaces); every other setting replaces the pool.
EDITABLE = ("instance_pool_name", "custom_tags", "min_idle_instances", "max_capacity",
            "idle_instance_autotermination_minutes", "remote_disk_throughput",
            "total_initial_remote_disk_size")
CLOUD_ATTRIBUTES = ("aws_attributes", "azure_attributes", "gcp_attributes")


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PoolAwsAttributesModel(_Closed):
    """Where the pool's AWS instances come from."""

    availability: Literal["SPOT", "ON_DEMAND"] | None = None
    instance_profile_arn: str | None = None
    spot_bid_price_percent: int | None = Field(default=None, ge=1, le=10000)
    zone_id: str | None = None


class PoolAzureAttributesModel(_Closed):
    """Where the pool's Azure instances come from."""

    availability: Literal["SPOT_AZURE", "ON_DEMAND_AZURE"] | None = None
    spot_bid_max_price: float | None = None
    capacity_reservation_group: str | None = None


class PoolGcpAttributesModel(_Closed):
    """Where the pool's Google Cloud instances come from."""

    gcp_availability: Literal[
        "PREEMPTIBLE_GCP", "ON_DEMAND_GCP", "PREEMPTIBLE_WITH_FALLBACK_GCP"
    ] | None = None
    local_ssd_count: int | None = Field(default=None, ge=0)
    zone_id: str | None = None


class PoolDiskTypeModel(_Closed):
    azure_disk_volume_type: Literal["PREMIUM_LRS", "STANDARD_LRS"] | None = None
    ebs_volume_type: Literal["GENERAL_PURPOSE_SSD", "THROUGHPUT_OPTIMIZED_HDD"] | None = None


class PoolDiskSpecModel(_Closed):
    """The disks attached to each instance."""

    disk_count: int | None = Field(default=None, ge=0)
    disk_size: int | None = Field(default=None, ge=1)
    disk_type: PoolDiskTypeModel | None = None
    disk_iops: int | None = Field(default=None, ge=1)
    disk_throughput: int | None = Field(default=None, ge=1)


class InstancePoolModel(_Closed):
    """An instance pool: the public API's create body."""

    instance_pool_name: str
    node_type_id: str
    min_idle_instances: int | None = Field(default=None, ge=0)
    max_capacity: int | None = Field(default=None, ge=1)
    idle_instance_autotermination_minutes: int | None = Field(default=None, ge=0, le=10000)
    preloaded_spark_versions: list[str] | None = Field(default=None, max_length=1)
    custom_tags: dict[str, str] | None = None
    enable_elastic_disk: StrictBool | None = None
    aws_attributes: PoolAwsAttributesModel | None = None
    azure_attributes: PoolAzureAttributesModel | None = None
    gcp_attributes: PoolGcpAttributesModel | None = None
    disk_spec: PoolDiskSpecModel | None = None
    remote_disk_throughput: int | None = Field(default=None, ge=1)
    total_initial_remote_disk_size: int | None = Field(default=None, ge=1)

    @field_validator("instance_pool_name")
    @classmethod
    def _name(cls, value: str) -> str:
        low, high = NAME_LENGTH
        if not low <= len(value.strip()) <= high or len(value) > high:
            raise ValueError(f"must be {low} to {high} characters (not blank)")
        return value

    @field_validator("node_type_id")
    @classmethod
    def _node_type(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty: a node type of clusters/list-node-types")
        return value

    @field_validator("custom_tags")
    @classmethod
    def _tags(cls, value: dict[str, str]) -> dict[str, str]:
        if len(value) > MAX_TAGS:
            raise ValueError(f"holds {len(value)} tags; the service takes at most {MAX_TAGS}")
        return value


class InstancePoolProvider(WorkspaceProvider):
    args_model = InstancePoolModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(
        set(InstancePoolModel.model_fields) - set(EDITABLE)
    )

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        idle, capacity = inputs.get("min_idle_instances"), inputs.get("max_capacity")
        if idle is not None and capacity is not None and idle > capacity:
            found.append((
                "min_idle_instances",
                f"{idle} idle instances do not fit in max_capacity {capacity}: lower it or "
                "raise max_capacity",
            ))
        clouds = [key for key in CLOUD_ATTRIBUTES if inputs.get(key) is not None]
        for key in clouds[1:]:
            found.append((key, f"a pool is of one cloud: give only one of {', '.join(clouds)}"))
        return found

    @classmethod
    def field_changes(cls, recorded, new_inputs):
        return spec_changes(cls(), recorded, new_inputs)

    def must_delete_first(self, changed: list[str]) -> bool:
        # The new pool would take the old one's name, which is unique.
        return "instance_pool_name" not in changed

    def create_object(self, client: WorkspaceClient, args: InstancePoolModel, spec: Spec):
        def find() -> str | None:
            left = _named(client, args.instance_pool_name)
            return None if left is None or not _holds(left, spec) else left["instance_pool_id"]

        try:
            pool_id, _adopted = create_or_adopt(lambda: InstancePoolsApi(client).create(spec), find)
        except AlreadyExists as error:
            # Made by an interrupted earlier create: adopted if it holds the declared settings.
            adopted = find()
            if adopted is None:
                error.message += (
                    f" (instance_pool_name: another pool is named {args.instance_pool_name!r}: "
                    "choose another name, or import that pool by its id)"
                )
                error.args = (str(error),)
                raise
            pool_id = adopted
        found = InstancePoolsApi(client).get(pool_id)
        return pool_id, _observed(found), _computed(found)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = InstancePoolsApi(client).get(id_)
        if found.get("state") == "DELETED":
            return None
        return _observed(found), _computed(found)

    def update_object(self, client, id_, recorded, args: InstancePoolModel, spec: Spec):
        current = _observed(InstancePoolsApi(client).get(id_))
        dropped = set(self._recorded_spec(recorded)) - set(spec)
        body = {k: v for k, v in current.items() if k in EDITABLE and k not in dropped}
        body.update({k: v for k, v in spec.items() if k in EDITABLE})
        body["node_type_id"] = current["node_type_id"]
        InstancePoolsApi(client).edit(id_, body)
        found = InstancePoolsApi(client).get(id_)
        return _observed(found), _computed(found)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        InstancePoolsApi(client).delete(id_)


def _observed(found: Mapping[str, Any]) -> Spec:
    return {k: found[k] for k in InstancePoolModel.model_fields if found.get(k) is not None}


def _computed(found: Mapping[str, Any]) -> dict[str, Any]:
    return {"instance_pool_id": found.get("instance_pool_id"),
            "default_tags": found.get("default_tags") or {}}


def _holds(found: Mapping[str, Any], spec: Spec) -> bool:
    """Whether a pool's settings are the declared ones (those beside them are the service's)."""
    observed = _observed(found)
    return all(
        observed.get(k) == v if not isinstance(v, dict)
        else all((observed.get(k) or {}).get(n) == w for n, w in v.items())
        for k, v in spec.items()
    )


def _named(client: WorkspaceClient, name: str) -> dict[str, Any] | None:
    return next(
        (p for p in InstancePoolsApi(client).list() if p.get("instance_pool_name") == name), None
    )


KIND = declare(
    name="InstancePool",
    provider=InstancePoolProvider,
    outputs={"instance_pool_id": str, "default_tags": dict},
    config_key="instancePools",
    identity=("instance_pool_name",),
    doc="docs/instance-pool.md",
    summary="an instance pool clusters start from: bounds and tags in place, node type and "
    "cloud settings replace",
    import_id="instance pool id",
    import_id_rule=import_ids.one_segment,
    stack_output=("instance_pools", lambda resource: resource.instance_pool_id),
    inventory=lambda client: (
        (str(p["instance_pool_id"]), str(p.get("instance_pool_name", "")))
        for p in InstancePoolsApi(client).list()
    ),
    adoption=Adoption(
        leaves_out={
            # What the service fills in where a create leaves it out.
            "enable_elastic_disk": lambda observed, _: observed.get("enable_elastic_disk") is True,
            "min_idle_instances": lambda observed, _: observed.get("min_idle_instances") == 0,
        },
    ),
    drill=DrillChange(
        lambda pool: {**pool, "max_capacity": pool.get("max_capacity", 9) + 1}
    ),
)
