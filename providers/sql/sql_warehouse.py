"""SqlWarehouse: a SQL warehouse, what `sql_task` and `dbt_task` run on
(docs/sql-warehouse.md).

Its arguments are the public API's create body (`sql/warehouses` of the official SDK): size,
scaling, auto stop, serverless, Photon, type, channel, tags, spot policy and statement
timeout; beside them the provider keeps the warehouse's declared `state` (RUNNING or
STOPPED: started or stopped as needed, and waited for, with progress, up to
`timeout_seconds`). The service's edit takes every setting of the create body, so every
change is made in place (an edit of a running warehouse that changes how its clusters are
built restarts it: the preview says so); nothing replaces a warehouse. What the service
fills in (auto stop 120, one cluster, Photon, the current channel, ...) is never a change.

A warehouse's name is unique, so a create that finds a warehouse of its name holding the
declared settings (left by an interrupted earlier create) adopts it. Its `jdbc_url` and
`odbc_params` are outputs, as the service gives them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import pulumi
from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from providers.client import AlreadyExists
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import Adoption, DrillChange, always, declare
from providers.core.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, spec_changes
from providers.core.polling import drive_to_state
from providers.sql.sql_warehouses_api import SqlWarehousesApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

DEFAULT_TIMEOUT_SECONDS = 1200
CLUSTER_SIZES = ("2X-Small", "X-Small", "Small", "Medium", "Large", "X-Large", "2X-Large",
                 "3X-Large", "4X-Large", "5X-Large")
NAME_LENGTH = 100
MAX_TAGS = 45
# What the provider keeps beside the warehouse's settings.
OWN_FIELDS = ("state", "timeout_seconds")
# A change of these, of a running warehouse, restarts it.
RESTARTING = frozenset({"cluster_size", "enable_photon", "enable_serverless_compute",
                        "warehouse_type", "channel", "spot_instance_policy"})
# Where the service is on its way, the state it is heading for.
HEADING_FOR = {"STARTING": "RUNNING", "STOPPING": "STOPPED"}
# What to do about a warehouse in a state, per desired state; states not named here: wait.
_ACTIONS: dict[str, dict[str, str]] = {
    "RUNNING": {"STOPPED": "start", "DELETING": "fail", "DELETED": "fail"},
    "STOPPED": {"STARTING": "stop", "RUNNING": "stop", "DELETING": "fail", "DELETED": "fail"},
}


class WarehouseStateError(Exception):
    """The warehouse cannot reach, or did not reach in time, the desired state."""


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WarehouseChannelModel(_Closed):
    """Which release of the SQL engine the warehouse runs."""

    name: Literal[
        "CHANNEL_NAME_CURRENT", "CHANNEL_NAME_PREVIEW", "CHANNEL_NAME_PREVIOUS",
        "CHANNEL_NAME_CUSTOM",
    ] | None = None
    dbsql_version: str | None = None


class WarehouseTagModel(_Closed):
    key: str = Field(min_length=1)
    value: str | None = None


class WarehouseTagsModel(_Closed):
    """Tags put on every cloud resource of the warehouse."""

    custom_tags: list[WarehouseTagModel] | None = None


class SqlWarehouseModel(_Closed):
    """A SQL warehouse: the public API's create body, and what the provider keeps."""

    name: str
    cluster_size: Literal[CLUSTER_SIZES]  # type: ignore[valid-type]  # a tuple of literals
    min_num_clusters: int | None = Field(default=None, ge=1, le=30)
    max_num_clusters: int | None = Field(default=None, ge=1, le=40)
    auto_stop_mins: int | None = None
    enable_serverless_compute: StrictBool | None = None
    enable_photon: StrictBool | None = None
    warehouse_type: Literal["PRO", "CLASSIC"] | None = None
    channel: WarehouseChannelModel | None = None
    tags: WarehouseTagsModel | None = None
    spot_instance_policy: Literal[
        "COST_OPTIMIZED", "RELIABILITY_OPTIMIZED", "POLICY_UNSPECIFIED"
    ] | None = None
    statement_timeout: int | None = Field(default=None, ge=0)
    state: Literal["RUNNING", "STOPPED"] | None = Field(
        default=None, description="held RUNNING or STOPPED; unset: as the service leaves it"
    )
    timeout_seconds: int | None = Field(default=None, ge=1, le=24 * 3600)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must not be empty")
        if len(value) >= NAME_LENGTH:
            raise ValueError(f"must be shorter than {NAME_LENGTH} characters")
        return value

    @field_validator("auto_stop_mins")
    @classmethod
    def _auto_stop(cls, value: int) -> int:
        if value < 0 or 0 < value < 10:
            raise ValueError(f"must be 0 (never stop) or at least 10 minutes, got {value}")
        return value

    @field_validator("tags")
    @classmethod
    def _tags(cls, value: WarehouseTagsModel) -> WarehouseTagsModel:
        keys = [tag.key for tag in value.custom_tags or []]
        if len(keys) >= MAX_TAGS:
            raise ValueError(f"custom_tags holds {len(keys)} tags; fewer than {MAX_TAGS}")
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            raise ValueError(f"custom_tags names {', '.join(map(repr, repeated))} twice")
        return value


def settings_of(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a spec the service keeps as the warehouse's settings."""
    return {k: v for k, v in spec.items() if k not in OWN_FIELDS}


def _normal(found: Mapping[str, Any]) -> Spec:
    """A warehouse's settings in one form: the model's fields, tags in key order."""
    spec = {k: found[k] for k in SqlWarehouseModel.model_fields
            if k not in OWN_FIELDS and found.get(k) is not None}
    tags = (spec.get("tags") or {}).get("custom_tags")
    if "tags" in spec:
        spec["tags"] = {"custom_tags": sorted(tags or [], key=lambda t: t.get("key", ""))}
    return spec


def _settled_state(state: str | None) -> str:
    return HEADING_FOR.get(state or "", state or "UNKNOWN")


def converge(
    client: WorkspaceClient, warehouse_id: str, desired: str, timeout_seconds: float
) -> dict[str, Any]:
    """Start or stop the warehouse until it is `desired`; the warehouse as last read."""

    def act(action: str) -> None:
        if action == "start":
            SqlWarehousesApi(client).start(warehouse_id)
        else:
            SqlWarehousesApi(client).stop(warehouse_id)

    def stuck(warehouse: dict[str, Any], why: str) -> WarehouseStateError:
        named = f"SQL warehouse {warehouse_id} ({warehouse.get('name')})"
        state = warehouse.get("state", "UNKNOWN")
        if why == "cannot":
            return WarehouseStateError(f"{named} is {state}; it cannot become {desired}")
        return WarehouseStateError(
            f"{named} did not become {desired} within {timeout_seconds:g} s: it is {state}. "
            "Run `pulumi up` again to go on waiting, or raise timeout_seconds"
        )

    return drive_to_state(f"SQL warehouse {warehouse_id}", desired, timeout_seconds,
                          lambda: SqlWarehousesApi(client).get(warehouse_id), act, _ACTIONS, stuck)


class SqlWarehouseProvider(WorkspaceProvider):
    args_model = SqlWarehouseModel
    replace_keys: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        low, high = inputs.get("min_num_clusters"), inputs.get("max_num_clusters")
        if low is not None and high is not None and low > high:
            found.append(("min_num_clusters",
                          f"{low} is more than max_num_clusters {high}: lower it or raise "
                          "max_num_clusters"))
        if inputs.get("enable_serverless_compute") and inputs.get("warehouse_type") != "PRO":
            found.append(("warehouse_type",
                          "serverless compute needs a PRO warehouse: set warehouse_type: PRO "
                          "(the service's default is CLASSIC)"))
        channel = inputs.get("channel") or {}
        if channel.get("name") == "CHANNEL_NAME_CUSTOM" and not channel.get("dbsql_version"):
            found.append(("channel.dbsql_version",
                          "required with CHANNEL_NAME_CUSTOM: the SQL engine version to run"))
        elif channel.get("dbsql_version") and channel.get("name") != "CHANNEL_NAME_CUSTOM":
            found.append(("channel.name",
                          "a dbsql_version is taken only with name: CHANNEL_NAME_CUSTOM"))
        return found

    @classmethod
    def field_changes(cls, recorded, new_inputs):
        return spec_changes(cls(), recorded, new_inputs)

    def spec(self, args: SqlWarehouseModel) -> Spec:
        spec = args.model_dump(mode="json", exclude_none=True)
        if "tags" in spec:
            spec["tags"] = _normal({"tags": spec["tags"]})["tags"]
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
        restarts = (
            bool(RESTARTING & set(changed))
            and _settled_state(olds.get("current_state")) == "RUNNING"
            and desired.get("state") != "STOPPED"
        )
        note = " (restarts the running warehouse)"
        result.field_changes = [
            f"{key}: {recorded.get(key)!r} → {desired.get(key)!r}"
            + (note if restarts and key in RESTARTING else "")
            for key in changed
        ]
        result.detailed_paths = {
            key: "add" if key not in recorded else "delete" if key not in desired else "update"
            for key in changed
        }
        if restarts:
            keys = ", ".join(k for k in changed if k in RESTARTING)
            pulumi.log.warn(f"SQL warehouse {olds.get('name')}: the change of {keys} restarts "
                            "the running warehouse")

    def create_object(self, client: WorkspaceClient, args: SqlWarehouseModel, spec: Spec):
        body = settings_of(spec)
        timeout = args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS

        def find() -> str | None:
            left = _named(client, args.name)
            return None if left is None or not _holds(left, body) else str(left["id"])

        try:
            warehouse_id, _adopted = create_or_adopt(
                lambda: SqlWarehousesApi(client).create(body), find)
        except AlreadyExists as error:
            # Made by an interrupted earlier create: adopted if it holds the declared settings.
            found_id = find()
            if found_id is None:
                error.message += (
                    f" (name: another SQL warehouse is named {args.name!r}: choose another "
                    "name, or import that warehouse by its id)"
                )
                error.args = (str(error),)
                raise
            warehouse_id = found_id
        warehouse = converge(client, warehouse_id, args.state or "RUNNING", timeout)
        return warehouse_id, self._observed(warehouse, spec), _computed(warehouse)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        warehouse = SqlWarehousesApi(client).get(id_)
        if warehouse.get("state") in ("DELETING", "DELETED"):
            return None
        like = self._recorded_spec(recorded)
        return self._observed(warehouse, like, importing=not like), _computed(warehouse)

    def update_object(self, client, id_, recorded, args: SqlWarehouseModel, spec: Spec):
        old = settings_of(self._recorded_spec(recorded))
        new = settings_of(spec)
        changed = {k: v for k, v in new.items() if old.get(k) != v}
        timeout = args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        if changed:
            if args.state == "STOPPED":
                converge(client, id_, "STOPPED", timeout)  # no restart needed
            SqlWarehousesApi(client).edit(id_, changed)
        desired = args.state or _settled_state(SqlWarehousesApi(client).get(id_).get("state"))
        warehouse = converge(client, id_, desired, timeout)
        return self._observed(warehouse, spec), _computed(warehouse)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        SqlWarehousesApi(client).delete(id_)

    @staticmethod
    def _observed(
        warehouse: Mapping[str, Any], like: Mapping[str, Any], *, importing: bool = False
    ) -> Spec:
        observed = _normal(warehouse)
        if importing or "state" in like:
            observed["state"] = _settled_state(warehouse.get("state"))
        if "timeout_seconds" in like:
            observed["timeout_seconds"] = like["timeout_seconds"]
        return observed


def _computed(warehouse: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "jdbc_url": warehouse.get("jdbc_url"),
        "odbc_params": warehouse.get("odbc_params") or {},
        "current_state": warehouse.get("state"),
        "creator_name": warehouse.get("creator_name"),
    }


def _holds(found: Mapping[str, Any], settings: Mapping[str, Any]) -> bool:
    """Whether a warehouse's settings are the declared ones (those beside them are the
    service's)."""
    observed = _normal(found)
    return all(
        observed.get(k) == v if not isinstance(v, dict)
        else all((observed.get(k) or {}).get(n) == w for n, w in v.items())
        for k, v in settings.items()
    )


def _named(client: WorkspaceClient, name: str) -> dict[str, Any] | None:
    return next((w for w in SqlWarehousesApi(client).list() if w.get("name") == name), None)


KIND = declare(
    name="SqlWarehouse",
    provider=SqlWarehouseProvider,
    outputs={"jdbc_url": str, "odbc_params": dict, "current_state": str, "creator_name": str},
    config_key="sqlWarehouses",
    identity=("name",),
    doc="docs/sql-warehouse.md",
    summary="a SQL warehouse: size, scaling, auto stop, serverless, tags, held running or "
    "stopped; changed in place",
    import_id="warehouse id",
    import_id_rule=import_ids.one_segment,
    stack_output=("sql_warehouses", lambda resource: resource.id),
    inventory=lambda client: (
        (str(w["id"]), str(w.get("name", ""))) for w in SqlWarehousesApi(client).list()
    ),
    adoption=Adoption(
        leaves_out={
            # Where it is now, not a setting: declared, the stack would start or stop it.
            "state": always,
        },
    ),
    drill=DrillChange(
        lambda warehouse: {
            **warehouse, "auto_stop_mins": warehouse.get("auto_stop_mins", 10) + 10
        }
    ),
)
