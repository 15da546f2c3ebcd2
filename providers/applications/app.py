"""App: a Databricks app (docs/app.md).

Its arguments are the public API's app body (`apps` of the official SDK): `name`,
`description`, `compute_size`, `resources` (a secret, a SQL warehouse, a serving endpoint, a
job or a Unity Catalog securable, each with the permission the app's principal gets on it;
each may name an item of the stack in place of its id) and `user_api_scopes`; beside them
the provider keeps the app's source, `state` and `timeout_seconds`:

- `source_code_path`: the workspace folder the app's code is deployed from (a Directory item
  of the stack, or a path). The code is deployed on create, and again when
  `source_code_path` or `deployment_trigger` changes: the trigger is any text the stack
  changes when the code changes (a version, a commit, a digest of the folder's files). The
  service keeps no digest of what it deployed, and a folder's objects change under the same
  path, so the stack says when; a deployment made outside the stack from another folder,
  or none succeeding, shows as a change of `source_code_path`. Each deployment is waited for
  with progress; one that FAILS fails the `up` with the service's message.
- `state`: RUNNING or STOPPED, held as SqlWarehouse holds its state (the app's compute
  started or stopped, and waited for); unset: as the service leaves it (a new app runs).

Settings change in place (PATCH); a new `name` replaces the app.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from providers.applications.apps_api import AppsApi
from providers.client import AlreadyExists
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import (
    Adoption,
    NameByType,
    Reference,
    ReferenceByType,
    always,
    appended_to,
    declare,
)
from providers.core.lifecycle import Spec, WorkspaceProvider, spec_changes
from providers.core.polling import Deadline, Progress, drive_to_state

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

DEFAULT_TIMEOUT_SECONDS = 1200
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,28}[a-z0-9]")
# What the provider keeps beside the app's settings.
OWN_FIELDS = ("source_code_path", "deployment_trigger", "state", "timeout_seconds")
SETTINGS = ("description", "compute_size", "resources", "user_api_scopes")
# The app's compute state as the `state` it holds (where it is on its way, where to);
# the compute ACTIVE is RUNNING to `converge`, which acts on the other states.
AS_STATE = {"ACTIVE": "RUNNING", "STARTING": "RUNNING", "UPDATING": "RUNNING",
            "STOPPING": "STOPPED"}
_ACTIONS: dict[str, dict[str, str]] = {
    "RUNNING": {"STOPPED": "start", "ERROR": "fail", "DELETING": "fail"},
    "STOPPED": {"RUNNING": "stop", "STARTING": "stop", "ERROR": "fail", "DELETING": "fail"},
}


class AppStateError(Exception):
    """The app's compute cannot reach, or did not reach in time, the desired state, or its
    deployment failed."""


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SecretResourceModel(_Closed):
    scope: str = Field(min_length=1)
    key: str = Field(min_length=1)
    permission: Literal["READ", "WRITE", "MANAGE"]


class SqlWarehouseResourceModel(_Closed):
    id: str = Field(min_length=1)
    permission: Literal["CAN_USE", "CAN_MANAGE", "IS_OWNER"]


class ServingEndpointResourceModel(_Closed):
    name: str = Field(min_length=1)
    permission: Literal["CAN_VIEW", "CAN_QUERY", "CAN_MANAGE"]


class JobResourceModel(_Closed):
    id: str = Field(min_length=1)
    permission: Literal["CAN_VIEW", "CAN_MANAGE_RUN", "CAN_MANAGE", "IS_OWNER"]

    @field_validator("id", mode="before")
    @classmethod
    def _id(cls, value: Any) -> Any:
        # A job's id is a number; the service's field is a string.
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


class UcSecurableResourceModel(_Closed):
    securable_full_name: str = Field(min_length=1)
    securable_type: Literal["VOLUME", "TABLE", "FUNCTION", "CONNECTION"]
    permission: Literal["READ_VOLUME", "WRITE_VOLUME", "SELECT", "MODIFY", "EXECUTE",
                        "USE_CONNECTION"]


RESOURCE_TYPES: dict[str, type[_Closed]] = {
    "secret": SecretResourceModel,
    "sql_warehouse": SqlWarehouseResourceModel,
    "serving_endpoint": ServingEndpointResourceModel,
    "job": JobResourceModel,
    "uc_securable": UcSecurableResourceModel,
}
# Which permissions a securable type takes.
UC_PERMISSIONS = {
    "VOLUME": ("READ_VOLUME", "WRITE_VOLUME"),
    "TABLE": ("SELECT", "MODIFY"),
    "FUNCTION": ("EXECUTE",),
    "CONNECTION": ("USE_CONNECTION",),
}


class AppResourceModel(_Closed):
    """What the app uses, by the name its code knows it by: exactly one of the types."""

    name: str = Field(min_length=1)
    description: str | None = None
    secret: SecretResourceModel | None = None
    sql_warehouse: SqlWarehouseResourceModel | None = None
    serving_endpoint: ServingEndpointResourceModel | None = None
    job: JobResourceModel | None = None
    uc_securable: UcSecurableResourceModel | None = None


class AppModel(_Closed):
    """An app: the public API's app body, and what the provider keeps."""

    name: str
    description: str | None = None
    compute_size: Literal["MEDIUM", "LARGE", "XLARGE"] | None = None
    resources: list[AppResourceModel] | None = None
    user_api_scopes: list[str] | None = None
    source_code_path: str | None = None
    deployment_trigger: str | None = None
    state: Literal["RUNNING", "STOPPED"] | None = Field(
        default=None, description="held RUNNING or STOPPED; unset: as the service leaves it"
    )
    timeout_seconds: int | None = Field(default=None, ge=1, le=24 * 3600)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME.fullmatch(value):
            raise ValueError("2 to 30 lower-case letters, digits and '-', starting and ending "
                             f"with a letter or digit, got {value!r}")
        return value


def settings_of(spec: Mapping[str, Any]) -> dict[str, Any]:
    """The part of a spec the service keeps as the app's settings."""
    return {k: v for k, v in spec.items() if k not in OWN_FIELDS}


def _normal_resources(resources: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    normal = []
    for resource in resources:
        entry: dict[str, Any] = {"name": resource.get("name")}
        if resource.get("description"):
            entry["description"] = resource["description"]
        for kind, model in RESOURCE_TYPES.items():
            if isinstance(resource.get(kind), Mapping):
                entry[kind] = {k: str(v) if k == "id" else v
                               for k, v in resource[kind].items()
                               if k in model.model_fields and v is not None}
        normal.append(entry)
    return sorted(normal, key=lambda r: str(r["name"]))


def _normal(found: Mapping[str, Any]) -> Spec:
    """An app's settings in one form: the model's fields, resources by name, scopes
    sorted."""
    spec: Spec = {"name": found.get("name")}
    for key in SETTINGS:
        value = found.get(key)
        if value in (None, "", []):
            continue
        if key == "resources":
            value = _normal_resources(value)
        elif key == "user_api_scopes":
            value = sorted(value)
        spec[key] = value
    return spec


def _compute_state(app: Mapping[str, Any]) -> str:
    return str((app.get("compute_status") or {}).get("state") or "UNKNOWN")


def _deployed_from(app: Mapping[str, Any]) -> str | None:
    active = app.get("active_deployment") or {}
    return active.get("source_code_path")


def converge(client: WorkspaceClient, name: str, desired: str,
             timeout_seconds: float) -> dict[str, Any]:
    """Start or stop the app's compute until it is `desired` (RUNNING: ACTIVE); the app as
    last read."""
    last: dict[str, Any] = {}

    def read() -> dict[str, Any]:
        last.update(AppsApi(client).get(name))
        state = _compute_state(last)
        return {"state": "RUNNING" if state == "ACTIVE" else state}

    def act(action: str) -> None:
        if action == "start":
            AppsApi(client).start(name)
        else:
            AppsApi(client).stop(name)

    def stuck(observed: dict[str, Any], why: str) -> AppStateError:
        state = _compute_state(last)
        message = (last.get("compute_status") or {}).get("message") or ""
        if why == "cannot":
            return AppStateError(f"app {name}: its compute is {state} ({message}); it cannot "
                                 f"become {desired}")
        return AppStateError(
            f"app {name}: its compute did not become {desired} within {timeout_seconds:g} s: "
            f"it is {state}. Run `pulumi up` again to go on waiting, or raise timeout_seconds")

    drive_to_state(f"app {name}", desired, timeout_seconds, read, act, _ACTIONS, stuck)
    return dict(last)


def _deployment_started(client: WorkspaceClient, name: str, source_code_path: str,
                        since: datetime) -> dict[str, Any] | None:
    """The deployment of the folder that a deploy call whose answer was lost started: the
    app's deployment in progress of that folder, or its active one made since the call;
    None where there is neither (the call made none: it is sent again)."""
    app = AppsApi(client).get(name)
    pending = app.get("pending_deployment") or {}
    if pending.get("source_code_path") == source_code_path:
        return dict(pending)
    active = app.get("active_deployment") or {}
    made = active.get("create_time")
    if active.get("source_code_path") == source_code_path and made and \
            datetime.fromisoformat(str(made).replace("Z", "+00:00")) >= since:
        return dict(active)
    return None


def deploy(client: WorkspaceClient, name: str, source_code_path: str,
           timeout_seconds: float) -> dict[str, Any]:
    """Deploy the folder's code and wait for the deployment, reporting progress; the
    deployment as last read. A FAILED one is an error naming the service's message."""
    since = datetime.now(UTC).replace(microsecond=0)  # the service's times are to the second
    made, _ = create_or_adopt(
        lambda: AppsApi(client).deploy(name, source_code_path),
        lambda: _deployment_started(client, name, source_code_path, since))
    deployment_id = str(made["deployment_id"])
    deadline = Deadline(timeout_seconds)
    progress = Progress(f"app {name}: deployment of {source_code_path}", deadline)
    while True:
        deployment = AppsApi(client).deployment(name, deployment_id)
        status = deployment.get("status") or {}
        state = status.get("state", "UNKNOWN")
        progress.observe(state)
        if state == "SUCCEEDED":
            return deployment
        if state in ("FAILED", "CANCELLED"):
            raise AppStateError(
                f"app {name}: the deployment {deployment_id} of {source_code_path} ended "
                f"{state}: {status.get('message') or 'no message'}")
        if deadline.expired():
            raise AppStateError(
                f"app {name}: the deployment {deployment_id} is still {state} after "
                f"{timeout_seconds:g} s. Run `pulumi up` again to deploy again, or raise "
                "timeout_seconds")
        deadline.pause()


class AppProvider(WorkspaceProvider):
    args_model = AppModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"name"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        found: list[tuple[str, str]] = []
        resources = inputs.get("resources") or []
        for index, resource in enumerate(resources):
            given = [kind for kind in RESOURCE_TYPES if resource.get(kind) is not None]
            if len(given) != 1:
                found.append((f"resources[{index}]", "give exactly one of "
                              f"{', '.join(RESOURCE_TYPES)} (gives "
                              f"{', '.join(given) or 'none'})"))
            securable = resource.get("uc_securable")
            if securable is not None and securable["permission"] not in UC_PERMISSIONS[
                    securable["securable_type"]]:
                found.append((f"resources[{index}].uc_securable.permission",
                              f"a {securable['securable_type']} takes "
                              f"{' or '.join(UC_PERMISSIONS[securable['securable_type']])}"))
        names = [r["name"] for r in resources]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            found.append(("resources", f"names {', '.join(map(repr, repeated))} twice: each "
                          "resource's name is how the app's code finds it"))
        if inputs.get("deployment_trigger") is not None and not inputs.get("source_code_path"):
            found.append(("deployment_trigger", "redeploys the source: give source_code_path "
                          "too (the workspace folder of the app's code)"))
        return found

    @classmethod
    def field_changes(cls, recorded, new_inputs):
        return spec_changes(cls(), recorded, new_inputs)

    def spec(self, args: AppModel) -> Spec:
        spec = args.model_dump(mode="json", exclude_none=True)
        if "resources" in spec:
            spec["resources"] = _normal_resources(spec["resources"])
        if "user_api_scopes" in spec:
            spec["user_api_scopes"] = sorted(spec["user_api_scopes"])
        return spec

    def create_object(self, client: WorkspaceClient, args: AppModel, spec: Spec):
        body = settings_of(spec)
        timeout = args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        idle = args.state == "STOPPED" and not args.source_code_path

        def find() -> dict[str, Any] | None:
            # Made by an interrupted earlier create of this resource: it holds the settings.
            left = next((a for a in AppsApi(client).list() if a.get("name") == args.name), None)
            if left is None:
                return None
            observed = _normal(left)
            return left if all(observed.get(k) == v for k, v in body.items()) else None

        try:
            create_or_adopt(lambda: AppsApi(client).create(body, no_compute=idle), find)
        except AlreadyExists as error:
            if find() is None:
                error.message += (
                    f" (name: another app is named {args.name!r}: choose another name, or "
                    "import that app by its name)")
                error.args = (str(error),)
                raise
        if args.source_code_path:
            converge(client, args.name, "RUNNING", timeout)
            deploy(client, args.name, args.source_code_path, timeout)
        app = converge(client, args.name, args.state or "RUNNING", timeout)
        return args.name, self._observed(app, spec), _computed(app)

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        app = AppsApi(client).get(id_)
        if _compute_state(app) == "DELETING":
            return None
        like = self._recorded_spec(recorded)
        return self._observed(app, like, importing=not like), _computed(app)

    def update_object(self, client, id_, recorded, args: AppModel, spec: Spec):
        old = self._recorded_spec(recorded)
        timeout = args.timeout_seconds or DEFAULT_TIMEOUT_SECONDS
        new_settings = settings_of(spec)
        if new_settings != settings_of(old):
            AppsApi(client).update(id_, {
                "name": id_,
                "description": new_settings.get("description", ""),
                "resources": new_settings.get("resources", []),
                "user_api_scopes": new_settings.get("user_api_scopes", []),
                **({"compute_size": new_settings["compute_size"]}
                   if "compute_size" in new_settings else {}),
            })
        source = spec.get("source_code_path")
        redeploy = source and any(spec.get(k) != old.get(k)
                                  for k in ("source_code_path", "deployment_trigger"))
        now = _compute_state(AppsApi(client).get(id_))
        held = AS_STATE.get(now, now)
        if redeploy:
            converge(client, id_, "RUNNING", timeout)
            deploy(client, id_, str(source), timeout)
        desired = args.state or (held if held in _ACTIONS else "RUNNING")
        app = converge(client, id_, desired, timeout)
        return self._observed(app, spec), _computed(app)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        AppsApi(client).delete(id_)

    @staticmethod
    def _observed(app: Mapping[str, Any], like: Mapping[str, Any], *,
                  importing: bool = False) -> Spec:
        observed = _normal(app)
        deployed = _deployed_from(app)
        if deployed and (importing or "source_code_path" in like):
            observed["source_code_path"] = deployed
        if importing or "state" in like:
            state = _compute_state(app)
            observed["state"] = AS_STATE.get(state, state)
        for key in ("deployment_trigger", "timeout_seconds"):
            if key in like:
                observed[key] = like[key]
        return observed


def _computed(app: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "url": app.get("url"),
        "app_id": app.get("id"),
        "service_principal_client_id": app.get("service_principal_client_id"),
        "service_principal_name": app.get("service_principal_name"),
        "compute_state": _compute_state(app),
        "app_state": (app.get("app_status") or {}).get("state"),
        "deployment_id": (app.get("active_deployment") or {}).get("deployment_id"),
    }


KIND = declare(
    name="App",
    provider=AppProvider,
    outputs={"url": str, "app_id": str, "service_principal_client_id": str,
             "service_principal_name": str, "compute_state": str, "app_state": str,
             "deployment_id": str},
    config_key="apps",
    names={
        "resources[].uc_securable.securable_full_name": NameByType(
            "securable_full_name", "securable_type",
            {"volume": "volumes", "function": "registeredModels", "connection": "connections"}),
    },
    identity=("name",),
    references={
        # Each resource may name an item of the stack at its own field; any other value is
        # the id (or name) as the service gives it.
        "resources[].secret.scope": Reference(target_key="secretScopes", field="scope",
                                              in_place=True),
        "resources[].sql_warehouse.id": Reference(target_key="sqlWarehouses", field="id",
                                                  in_place=True),
        "resources[].serving_endpoint.name": Reference(
            target_key="servingEndpoints", field="name", in_place=True),
        "resources[].job.id": Reference(target_key="jobs", field="id", in_place=True),
        "resources[].uc_securable.securable_full_name": ReferenceByType(
            "securable_full_name", "securable_type", {"VOLUME": "volumes"}),
        "source_code_path": Reference(target_key="directories", field="source_code_path",
                                      in_place=True),
    },
    doc="docs/app.md",
    summary="an app: compute size, resources with their permissions, user API scopes; its "
    "code deployed from a workspace folder on change; held running or stopped",
    import_id="app name",
    import_id_rule=import_ids.one_segment,
    stack_output=("apps", lambda resource: resource.url),
    inventory=lambda client: ((str(a["name"]), str(a["name"])) for a in AppsApi(client).list()),
    adoption=Adoption(
        leaves_out={
            # Where it is now, not a setting: declared, the stack would start or stop it.
            "state": always,
        },
    ),
    drill=appended_to("description"),
)
