"""ServingEndpoint: a model serving endpoint (docs/serving-endpoint.md).

Its arguments are the public API's create body (`serving-endpoints` of the official SDK):
`name`, `config` (served entities: a Unity Catalog model and version, by reference to a
RegisteredModel item of the stack or by its full name, or an external model; workload size
and type, scale to zero, environment variables; traffic routes), `ai_gateway`, `tags` and
`route_optimized`; beside them the provider keeps `timeout_seconds`, how long a create or a
config update is waited for.

A create waits for the endpoint to be READY, reporting progress. A change of `config` is ONE
config update (PUT .../config) that waits for `config_update` to leave IN_PROGRESS; the
service refuses an update while another is in progress, so the kind first waits for one
already running. The AI gateway and the tags change by calls of their own, at once. A new
`name` or `route_optimized` replaces the endpoint (the service changes neither).

Environment variables name secrets (`{{secrets/scope/key}}`), never values: a plain value is
refused before any call, and nothing secret is in the state. The normal form names every
served entity (the service's default name where none is given) and fills in the one route
of a single entity, so what the service fills in is never a change.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from providers.client import AlreadyExists
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import PRINCIPALS, DrillChange, NameReference, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider, spec_changes
from providers.core.polling import Deadline, Progress
from providers.serving.serving_endpoints_api import ServingEndpointsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

DEFAULT_TIMEOUT_SECONDS = 1800
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,62}")
SECRET_REFERENCE = re.compile(r"\{\{secrets/[^/{}\s]+/[^/{}\s]+\}\}")
# What the provider keeps beside the endpoint's settings.
OWN_FIELDS = ("timeout_seconds",)
UPDATE_FAILED = ("UPDATE_FAILED", "UPDATE_CANCELED")


class ServingStateError(Exception):
    """The endpoint did not become ready, or its config update failed or took too long."""


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExternalModelModel(_Closed):
    """A model served by another provider (`openai_config`, `anthropic_config`, ...: the
    provider's settings, keys by secret reference)."""

    model_config = ConfigDict(extra="allow")

    provider: str = Field(min_length=1)
    name: str = Field(min_length=1)
    task: str = Field(min_length=1)


class ServedEntityModel(_Closed):
    """What the endpoint serves: a Unity Catalog model's version, or an external model."""

    name: str | None = None
    entity_name: str | None = None
    entity_version: str | None = None
    external_model: ExternalModelModel | None = None
    workload_size: Literal["Small", "Medium", "Large"] | None = None
    workload_type: Literal["CPU", "GPU_SMALL", "GPU_MEDIUM", "GPU_LARGE",
                           "MULTIGPU_MEDIUM"] | None = None
    scale_to_zero_enabled: StrictBool | None = None
    min_provisioned_throughput: int | None = Field(default=None, ge=0)
    max_provisioned_throughput: int | None = Field(default=None, ge=0)
    instance_profile_arn: str | None = None
    environment_vars: dict[str, str] | None = None

    @field_validator("entity_version", mode="before")
    @classmethod
    def _version(cls, value: Any) -> Any:
        # A version is a number to most people; the service's field is a string.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("environment_vars")
    @classmethod
    def _secret_references(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        plain = sorted(k for k, v in (value or {}).items() if not SECRET_REFERENCE.fullmatch(v))
        if plain:
            raise ValueError(
                f"{', '.join(plain)}: a value must be a secret reference "
                "{{secrets/<scope>/<key>}}, never the value itself (put the value in a "
                "Secret item and name it here)")
        return value


class RouteModel(_Closed):
    served_entity_name: str = Field(min_length=1)
    traffic_percentage: int = Field(ge=0, le=100)


class TrafficConfigModel(_Closed):
    routes: list[RouteModel]


class EndpointConfigModel(_Closed):
    """The endpoint's served entities and how traffic is split between them."""

    served_entities: list[ServedEntityModel] = Field(min_length=1)
    traffic_config: TrafficConfigModel | None = None


class RateLimitModel(_Closed):
    renewal_period: Literal["minute"]
    calls: int | None = Field(default=None, ge=0)
    tokens: int | None = Field(default=None, ge=0)
    key: Literal["user", "endpoint", "user_group", "service_principal"] | None = None
    principal: str | None = None


class UsageTrackingModel(_Closed):
    enabled: StrictBool


class InferenceTableModel(_Closed):
    enabled: StrictBool | None = None
    catalog_name: str | None = None
    schema_name: str | None = None
    table_name_prefix: str | None = None


class PiiBehaviorModel(_Closed):
    behavior: Literal["NONE", "BLOCK", "MASK"]


class GuardrailParametersModel(_Closed):
    safety: StrictBool | None = None
    pii: PiiBehaviorModel | None = None
    invalid_keywords: list[str] | None = None
    valid_topics: list[str] | None = None


class GuardrailsModel(_Closed):
    input: GuardrailParametersModel | None = None
    output: GuardrailParametersModel | None = None


class AiGatewayModel(_Closed):
    """The AI gateway: usage tracking, rate limits, inference tables, guardrails."""

    usage_tracking_config: UsageTrackingModel | None = None
    rate_limits: list[RateLimitModel] | None = None
    inference_table_config: InferenceTableModel | None = None
    guardrails: GuardrailsModel | None = None


class EndpointTagModel(_Closed):
    key: str = Field(min_length=1)
    value: str | None = None


class ServingEndpointModel(_Closed):
    """A model serving endpoint: the public API's create body, and what the provider keeps."""

    name: str
    config: EndpointConfigModel
    ai_gateway: AiGatewayModel | None = None
    tags: list[EndpointTagModel] | None = None
    route_optimized: StrictBool | None = None
    timeout_seconds: int | None = Field(default=None, ge=1, le=24 * 3600)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME.fullmatch(value):
            raise ValueError("up to 63 letters, digits, '-' and '_', starting with a letter "
                             f"or digit, got {value!r}")
        return value


def served_name(entity: Mapping[str, Any]) -> str:
    """The name the service gives a served entity that has none: what it serves (dots as
    dashes), its version after a dash."""
    if entity.get("external_model"):
        return str(entity["external_model"]["name"]).replace(".", "-")
    base = str(entity.get("entity_name", "")).replace(".", "-")
    version = entity.get("entity_version")
    return f"{base}-{version}" if version else base


def _entity_rules(index: int, entity: Mapping[str, Any]) -> list[tuple[str, str]]:
    where = f"config.served_entities[{index}]"
    found: list[tuple[str, str]] = []
    if entity.get("external_model") is not None:
        for key in ("entity_name", "entity_version"):
            if entity.get(key) is not None:
                found.append((f"{where}.{key}", "not taken with an external_model: serve "
                              "one or the other"))
        plain = sorted(f"{k}.{n}" for k, v in entity["external_model"].items()
                       if isinstance(v, Mapping) for n in v if n.endswith("_plaintext"))
        for key in plain:
            found.append((f"{where}.external_model.{key}",
                          "a key in plain text would be in the state: name a secret "
                          "({{secrets/<scope>/<key>}}) in the field without _plaintext"))
        return found
    if not entity.get("entity_name"):
        found.append((f"{where}.entity_name", "required: a Unity Catalog model's full name "
                      "(catalog.schema.model, or a registeredModels item), or give an "
                      "external_model"))
        return found
    if not entity.get("entity_version"):
        found.append((f"{where}.entity_version", "required: the model version to serve"))
    elif entity.get("scale_to_zero_enabled") is None:
        found.append((f"{where}.scale_to_zero_enabled",
                      "required for a model version (the service refuses it undefined): "
                      "true or false"))
    return found


def _normal_entity(entity: Mapping[str, Any]) -> dict[str, Any]:
    """A served entity in one form: the model's fields the service holds, named."""
    fields = ServedEntityModel.model_fields
    normal = {k: v for k, v in entity.items() if k in fields and v not in (None, {})}
    if "entity_version" in normal:
        normal["entity_version"] = str(normal["entity_version"])
    normal["name"] = normal.get("name") or served_name(normal)
    return normal


def normal_config(config: Mapping[str, Any]) -> dict[str, Any]:
    """The config in one form: each served entity named, the traffic of a single entity
    routed to it, routes in order of the entity they name."""
    entities = [_normal_entity(e) for e in config.get("served_entities") or []]
    routes = [{"served_entity_name": r.get("served_entity_name") or r.get("served_model_name"),
               "traffic_percentage": r.get("traffic_percentage")}
              for r in (config.get("traffic_config") or {}).get("routes") or []]
    if not routes and len(entities) == 1:
        routes = [{"served_entity_name": entities[0]["name"], "traffic_percentage": 100}]
    normal: dict[str, Any] = {"served_entities": sorted(entities, key=lambda e: e["name"])}
    if routes:
        normal["traffic_config"] = {
            "routes": sorted(routes, key=lambda r: str(r["served_entity_name"]))}
    return normal


def _normal_gateway(gateway: Mapping[str, Any]) -> dict[str, Any]:
    fields = AiGatewayModel.model_fields
    normal = {k: v for k, v in gateway.items() if k in fields and v not in (None, [], {})}
    if "rate_limits" in normal:
        limit_fields = RateLimitModel.model_fields
        normal["rate_limits"] = [{k: v for k, v in limit.items()
                                  if k in limit_fields and v is not None}
                                 for limit in normal["rate_limits"]]
    return normal


def _normal_tags(tags: list[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    return sorted(({k: v for k, v in t.items() if k in ("key", "value") and v is not None}
                   for t in tags or []), key=lambda t: t["key"])


def _ready(endpoint: Mapping[str, Any]) -> str:
    state = endpoint.get("state") or {}
    return f"{state.get('ready', 'UNKNOWN')}, config update {state.get('config_update', '?')}"


def wait_until_updated(client: WorkspaceClient, name: str, timeout_seconds: float,
                       ready: bool = False) -> dict[str, Any]:
    """Read the endpoint until no config update is in progress (and, with `ready`, until it
    is READY), reporting progress; the endpoint as last read."""
    deadline = Deadline(timeout_seconds)
    progress = Progress(f"serving endpoint {name}", deadline)
    while True:
        endpoint = ServingEndpointsApi(client).get(name)
        state = endpoint.get("state") or {}
        update = state.get("config_update")
        if update in UPDATE_FAILED:
            raise ServingStateError(
                f"serving endpoint {name}: its config update ended {update}; see the "
                "endpoint's events in the workspace, fix the config and run `pulumi up` again")
        if update != "IN_PROGRESS" and (not ready or state.get("ready") == "READY"):
            if deadline.elapsed() > 0.5:
                progress.observe(_ready(endpoint))
            return endpoint
        if deadline.expired():
            raise ServingStateError(
                f"serving endpoint {name} is still {_ready(endpoint)} after "
                f"{timeout_seconds:g} s. Run `pulumi up` again to go on waiting, or raise "
                "timeout_seconds")
        progress.observe(_ready(endpoint))
        deadline.pause()


class ServingEndpointProvider(WorkspaceProvider):
    args_model = ServingEndpointModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"name", "route_optimized"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        config = inputs.get("config") or {}
        entities = config.get("served_entities") or []
        found: list[tuple[str, str]] = []
        for index, entity in enumerate(entities):
            found += _entity_rules(index, entity)
        if found:
            return found
        names = [e.get("name") or served_name(e) for e in entities]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            found.append(("config.served_entities", f"{', '.join(repeated)} served twice: "
                          "give each served entity a name of its own"))
        routes = (config.get("traffic_config") or {}).get("routes") or []
        for index, route in enumerate(routes):
            if route["served_entity_name"] not in names:
                found.append((f"config.traffic_config.routes[{index}].served_entity_name",
                              f"{route['served_entity_name']!r} is no served entity of the "
                              f"config (they are: {', '.join(names)})"))
        total = sum(r["traffic_percentage"] for r in routes)
        if routes and total != 100:
            found.append(("config.traffic_config.routes",
                          f"the traffic percentages add up to {total}, not 100"))
        if not routes and len(entities) > 1:
            found.append(("config.traffic_config", "required where more than one entity is "
                          "served: a route per served entity, adding up to 100"))
        gateway = inputs.get("ai_gateway") or {}
        for index, limit in enumerate(gateway.get("rate_limits") or []):
            if limit.get("calls") is None and limit.get("tokens") is None:
                found.append((f"ai_gateway.rate_limits[{index}]", "give calls or tokens: "
                              "how many per renewal_period"))
        tables = gateway.get("inference_table_config") or {}
        if tables.get("enabled"):
            for key in ("catalog_name", "schema_name"):
                if not tables.get(key):
                    found.append((f"ai_gateway.inference_table_config.{key}",
                                  "required where inference tables are enabled"))
        keys = [t["key"] for t in inputs.get("tags") or []]
        repeated = sorted({k for k in keys if keys.count(k) > 1})
        if repeated:
            found.append(("tags", f"names {', '.join(map(repr, repeated))} twice"))
        return found

    @classmethod
    def field_changes(cls, recorded, new_inputs):
        return spec_changes(cls(), recorded, new_inputs)

    def spec(self, args: ServingEndpointModel) -> Spec:
        spec = args.model_dump(mode="json", exclude_none=True)
        spec["config"] = normal_config(spec["config"])
        if "ai_gateway" in spec:
            spec["ai_gateway"] = _normal_gateway(spec["ai_gateway"])
        if "tags" in spec:
            spec["tags"] = _normal_tags(spec["tags"])
        return spec

    def create_object(self, client: WorkspaceClient, args: ServingEndpointModel, spec: Spec):
        body = {k: v for k, v in spec.items() if k not in OWN_FIELDS}
        timeout = args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS

        def find() -> dict[str, Any] | None:
            # Made by an interrupted earlier create of this resource: it serves the config.
            left = next((e for e in ServingEndpointsApi(client).list()
                         if e.get("name") == args.name), None)
            if left is None:
                return None
            found = ServingEndpointsApi(client).get(args.name)
            return found if _config_of(found) == spec["config"] else None

        try:
            create_or_adopt(lambda: ServingEndpointsApi(client).create(body), find)
        except AlreadyExists as error:
            if find() is None:
                error.message += (
                    f" (name: another serving endpoint is named {args.name!r}, serving "
                    "another config: choose another name, or import that endpoint by its "
                    "name)")
                error.args = (str(error),)
                raise
        endpoint = wait_until_updated(client, args.name, timeout, ready=True)
        return args.name, self._observed(endpoint, spec), _computed(endpoint)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        endpoint = ServingEndpointsApi(client).get(id_)
        like = self._recorded_spec(recorded)
        return self._observed(endpoint, like), _computed(endpoint)

    def update_object(self, client, id_, recorded, args: ServingEndpointModel, spec: Spec):
        old = self._recorded_spec(recorded)
        timeout = args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        area = ServingEndpointsApi(client)
        if spec["config"] != old.get("config"):
            # The service refuses a config update while another is in progress.
            wait_until_updated(client, id_, timeout)
            area.update_config(id_, spec["config"])
            wait_until_updated(client, id_, timeout)
        if spec.get("ai_gateway") != old.get("ai_gateway"):
            area.put_ai_gateway(id_, spec.get("ai_gateway") or {})
        if spec.get("tags") != old.get("tags"):
            wanted = {t["key"]: t for t in spec.get("tags") or []}
            held = {t["key"]: t for t in old.get("tags") or []}
            area.patch_tags(id_, [t for k, t in wanted.items() if held.get(k) != t],
                            sorted(set(held) - set(wanted)))
        endpoint = area.get(id_)
        return self._observed(endpoint, spec), _computed(endpoint)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        ServingEndpointsApi(client).delete(id_)

    @staticmethod
    def _observed(endpoint: Mapping[str, Any], like: Mapping[str, Any]) -> Spec:
        observed: Spec = {"name": endpoint.get("name"), "config": _config_of(endpoint, like)}
        gateway = _normal_gateway(endpoint.get("ai_gateway") or {})
        if gateway or "ai_gateway" in like:
            observed["ai_gateway"] = gateway
        tags = _normal_tags(endpoint.get("tags"))
        if tags or "tags" in like:
            observed["tags"] = tags
        if endpoint.get("route_optimized") or "route_optimized" in like:
            observed["route_optimized"] = bool(endpoint.get("route_optimized"))
        if "timeout_seconds" in like:
            observed["timeout_seconds"] = like["timeout_seconds"]
        return observed


def _config_of(endpoint: Mapping[str, Any], like: Mapping[str, Any] | None = None) -> Spec:
    """The config the endpoint serves or is being updated to, in normal form; of each served
    entity only what the declared one of that name holds, where one is declared (the rest is
    the service's)."""
    config = normal_config(endpoint.get("pending_config") or endpoint.get("config") or {})
    declared = {e["name"]: e for e in ((like or {}).get("config") or {}).get(
        "served_entities") or []}
    config["served_entities"] = [
        {k: v for k, v in entity.items() if k in declared[entity["name"]]}
        if entity["name"] in declared else entity
        for entity in config["served_entities"]]
    return config


def _computed(endpoint: Mapping[str, Any]) -> dict[str, Any]:
    state = endpoint.get("state") or {}
    config = endpoint.get("config") or {}
    return {
        "endpoint_id": endpoint.get("id"),
        "creator": endpoint.get("creator"),
        "ready": state.get("ready"),
        "config_version": config.get("config_version"),
    }


def _drill_change(item: dict[str, Any]) -> dict[str, Any]:
    tags = [t for t in item.get("tags") or [] if t.get("key") != "drill"]
    return {**item, "tags": [*tags, {"key": "drill", "value": "updated"}]}


KIND = declare(
    name="ServingEndpoint",
    provider=ServingEndpointProvider,
    outputs={"endpoint_id": str, "creator": str, "ready": str, "config_version": int},
    config_key="servingEndpoints",
    names={
        "ai_gateway.rate_limits[].principal": NameReference("principal", PRINCIPALS),
        "ai_gateway.inference_table_config.catalog_name": NameReference(
            "catalog_name", ("catalogs",)),
        "ai_gateway.inference_table_config.schema_name": NameReference(
            "schema_name", ("schemas",), within=("catalog_name",)),
    },
    identity=("name",),
    references={
        # A served entity names a RegisteredModel item of the stack, or a model by its full
        # name as the service gives it.
        "config.served_entities[].entity_name": Reference(
            target_key="registeredModels", field="entity_name", folds_case=True,
            in_place=True),
    },
    doc="docs/serving-endpoint.md",
    summary="a model serving endpoint: served entities, traffic, AI gateway, tags; a config "
    "change is one config update, waited for",
    import_id="endpoint name",
    import_id_rule=import_ids.one_segment,
    stack_output=("serving_endpoints", lambda resource: resource.endpoint_id),
    inventory=lambda client: (
        (str(e["name"]), str(e["name"])) for e in ServingEndpointsApi(client).list()
    ),
    drill=DrillChange(_drill_change),
)
