"""Connection: a Unity Catalog connection to an external database or service, what a
foreign catalog federates (Lakehouse federation).

The arguments are the API's create body and `owner`: `options` and `owner` change in
place (an update sends the whole map of options, credentials included, as the service
needs); `name`, `connection_type`, `comment`, `properties` and `read_only` are the create's
alone, so a new value replaces the connection. The id is the name, folded to lower case as
the service stores it.

Credential options (`SECRET_OPTIONS`: password, client_secret, token, ...) are write-only:
the service never answers them, the resource keeps `options` a Pulumi secret, and records
of them only a salted digest (`secret_options_digest`, a secret too): a changed credential
is an in-place update, an unchanged one no change. docs/connection.md says to give them as
secret config. A create answered in a way that leaves open whether the connection was
made, or answered "already exists", adopts a connection of that name and type that the
stack's principal made: what an interrupted run leaves.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, StrictBool, field_validator

from providers.core import import_ids
from providers.core.digest import digest, same_value
from providers.core.kind import Adoption, DrillChange, declare
from providers.core.lifecycle import (
    KeyedDiffResult,
    Spec,
    WorkspaceProvider,
    contains_unknown,
    user_inputs,
)
from providers.unity_catalog.connections_api import ConnectionsApi
from providers.unity_catalog.uc_names import (
    Name,
    NotBlank,
    created_or_left_over,
    made_by_caller,
    observed_owner,
)

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

DIGEST_KEY = "secret_options_digest"
# The options that hold a credential (compared in lower case): never answered by the
# service, never recorded.
SECRET_OPTIONS = frozenset({
    "password", "client_secret", "personalaccesstoken", "access_token", "token",
    "bearer_token", "refresh_token", "pem_private_key", "pem_private_key_password",
    "private_key", "secret_access_key", "aws_secret_access_key",
    "googleserviceaccountkeyjson",
})
CONNECTION_TYPES = (
    "BIGQUERY", "DATABRICKS", "GA4_RAW_DATA", "GLUE", "HIVE_METASTORE", "HTTP", "MYSQL",
    "ORACLE", "POSTGRESQL", "POWER_BI", "REDSHIFT", "SALESFORCE", "SALESFORCE_DATA_CLOUD",
    "SERVICENOW", "SNOWFLAKE", "SQLDW", "SQLSERVER", "TERADATA", "WORKDAY_RAAS",
)
# A database's connection names its host.
NEEDS_HOST = frozenset({"MYSQL", "ORACLE", "POSTGRESQL", "REDSHIFT", "SNOWFLAKE", "SQLDW",
                        "SQLSERVER", "TERADATA", "DATABRICKS", "HTTP"})
CREATE_FIELDS = ("name", "connection_type", "comment", "properties", "read_only")


def is_secret_option(key: str) -> bool:
    return key.lower() in SECRET_OPTIONS


def secret_options(options: Mapping[str, str] | None) -> dict[str, str]:
    return {k: v for k, v in (options or {}).items() if is_secret_option(k)}


def _secrets_text(options: Mapping[str, str]) -> bytes:
    return json.dumps(dict(sorted(options.items())), separators=(",", ":")).encode()


class ConnectionModel(BaseModel):
    """A Unity Catalog connection."""

    model_config = ConfigDict(extra="forbid")

    name: Name
    connection_type: str
    options: dict[str, str]
    comment: str | None = None
    properties: dict[str, str] | None = None
    read_only: StrictBool | None = None
    owner: NotBlank | None = None

    @field_validator("connection_type")
    @classmethod
    def _type(cls, value: str) -> str:
        if value.upper() not in CONNECTION_TYPES:
            raise ValueError(f"{value!r} is not a connection type: one of "
                             f"{', '.join(CONNECTION_TYPES)}")
        return value.upper()

    @field_validator("comment")
    @classmethod
    def _empty_comment(cls, value: str | None) -> str | None:
        return value or None

    @field_validator("properties")
    @classmethod
    def _empty_properties(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        return value or None


class ConnectionProvider(WorkspaceProvider):
    args_model = ConnectionModel
    replace_keys: ClassVar[frozenset[str]] = frozenset(
        {"name", "connection_type", "comment", "properties", "read_only"})
    kept_when_left_out = frozenset({"owner", "read_only"})

    @classmethod
    def rules(cls, inputs: Mapping[str, Any]) -> list[tuple[str, str]]:
        args = ConnectionModel.model_validate(inputs)
        if args.connection_type in NEEDS_HOST and not args.options.get("host"):
            return [("options.host", f"required for a {args.connection_type} connection: "
                     "the host name of the database it reaches")]
        return []

    def spec(self, args: ConnectionModel) -> Spec:
        spec = args.model_dump(mode="json", exclude_none=True)
        # The credentials are compared through their digest (`diff`), never recorded.
        spec["options"] = {k: v for k, v in args.options.items() if not is_secret_option(k)}
        return spec

    def must_delete_first(self, changed: list[str]) -> bool:
        # The same name: the new connection can only be made once the old one is gone.
        return "name" not in changed

    def diff(self, _id, olds, news, old_inputs=None) -> KeyedDiffResult:
        result = super().diff(_id, olds, news, old_inputs)
        if result.replaces:
            return result
        options = user_inputs(news).get("options")
        if isinstance(options, Mapping) and not contains_unknown(options):
            # An import records no digest: the credentials cannot be read back, so they are
            # taken as declared until the next change sends them.
            recorded = olds.get(DIGEST_KEY)
            if recorded and not same_value(recorded, _secrets_text(secret_options(options))):
                result.changes = True
                result.changed_keys = sorted({*result.changed_keys, "options"})
        return result

    def create_object(self, client: WorkspaceClient, args: ConnectionModel, spec: Spec):
        body = args.model_dump(mode="json", exclude_none=True, exclude={"owner"})
        name = spec["name"]
        made = created_or_left_over("connection", name,
                                    lambda: ConnectionsApi(client).create(body),
                                    lambda: self._left_over(client, spec))
        found = self._converged(client, name, made, args, spec, send_options=False)
        return name, self._spec_of(found, spec), self._computed(found, args, {})

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = ConnectionsApi(client).get(id_)
        return self._spec_of(found, self._recorded_spec(recorded)), self._computed(
            found, None, recorded)

    def update_object(self, client, id_, recorded, args: ConnectionModel, spec):
        found: Mapping[str, Any] = ConnectionsApi(client).get(id_)
        secrets_changed = not same_value(recorded.get(DIGEST_KEY),
                                         _secrets_text(secret_options(args.options)))
        found = self._converged(client, id_, found, args, spec, send_options=secrets_changed)
        return self._spec_of(found, spec), self._computed(found, args, recorded)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        ConnectionsApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _converged(client: WorkspaceClient, name: str, found: Mapping[str, Any],
                   args: ConnectionModel, spec: Spec, send_options: bool
                   ) -> Mapping[str, Any]:
        """Sends the whole map of options where the shown ones differ from the declared (or
        the credentials are to be sent), then the owner (with the options, which every
        update needs); the connection as then shown."""
        area = ConnectionsApi(client)
        if send_options or (found.get("options") or {}) != spec["options"]:
            found = area.update(name, {"options": args.options})
        owner = spec.get("owner")
        if owner is not None and observed_owner(found, owner) != owner:
            found = area.update(name, {"options": args.options, "owner": owner})
        return found

    @staticmethod
    def _left_over(client: WorkspaceClient, spec: Spec) -> dict[str, Any] | None:
        """The connection of the declared name, if an interrupted create of this resource
        made it: made by the stack's principal, of the declared type."""
        try:
            found = ConnectionsApi(client).get(spec["name"])
        except Exception:  # noqa: BLE001 - any failure to find it: none to adopt
            return None
        if not made_by_caller(client, found):
            return None
        return found if found.get("connection_type") == spec["connection_type"] else None

    @staticmethod
    def _spec_of(found: Mapping[str, Any], declared: Mapping[str, Any]) -> Spec:
        spec: Spec = {"name": str(found.get("name", "")).lower()}
        for key in ("connection_type", "comment", "properties", "read_only"):
            if found.get(key) not in (None, "", {}):
                spec[key] = found[key]
        spec["options"] = {k: v for k, v in (found.get("options") or {}).items()
                           if not is_secret_option(k)}
        owner = observed_owner(found, declared.get("owner"))
        if owner:
            spec["owner"] = owner
        return spec

    @staticmethod
    def _computed(found: Mapping[str, Any], args: ConnectionModel | None,
                  recorded: Mapping[str, Any]) -> dict[str, Any]:
        kept = recorded.get(DIGEST_KEY) or ""
        if args is not None:
            text = _secrets_text(secret_options(args.options))
            if not same_value(kept, text):
                kept = digest(text)
        return {
            "connection_id": found.get("connection_id"),
            "full_name": found.get("full_name") or found.get("name"),
            "metastore_id": found.get("metastore_id"),
            DIGEST_KEY: kept,
        }


def _drill_change(connection: dict[str, Any]) -> dict[str, Any]:
    """Another port: an update of its options in place."""
    options = dict(connection.get("options") or {})
    options["port"] = str(int(options.get("port") or "5432") + 1)
    return {**connection, "options": options}


KIND = declare(
    name="Connection",
    provider=ConnectionProvider,
    outputs={"connection_id": str, "full_name": str, "metastore_id": str, DIGEST_KEY: str},
    config_key="connections",
    identity=("name",),
    named_as=("name",),
    names_fold_case=True,
    # Made in the metastore the workspace is assigned to; deleted before it is unassigned.
    after=("metastoreAssignments",),
    doc="docs/connection.md",
    summary="a Unity Catalog connection (Lakehouse federation): options and owner in place; "
    "credential options write-only, compared by digest",
    import_id="connection name",
    import_id_rule=import_ids.one_segment,
    stack_output=("connections", lambda resource: resource.id),
    secrets=("options", DIGEST_KEY),
    # The service never answers a credential option: the item is the user's to finish.
    adoption=Adoption(
        secret_value=("options.password",
                      "the connection's credential option (password, client_secret, token)"),
    ),
    inventory=lambda client: (
        (str(c["name"]), str(c["name"])) for c in ConnectionsApi(client).list()
    ),
    drill=DrillChange(_drill_change),
)
