"""NotificationDestination: where jobs (their webhook notifications) and other features
send notifications: e-mail addresses, a Slack channel, a generic webhook, PagerDuty or
Microsoft Teams.

`config` holds exactly one type. Of every type but e-mail the service never answers the
fields (a Slack URL holds its token, a PagerDuty integration key is a credential): the
whole `config` input is a Pulumi secret, the state keeps a salted digest of the write-only
fields (`config_digest`, a secret too) to tell a changed one, and the outputs show what
the service shows: the e-mail addresses, and `<field>_set` of the others. A change of the
name or of a field is in place (one PATCH, the declared fields all sent); another type
replaces the destination (the service never changes one's type). A field changed outside
the stack cannot be seen, but a field the service no longer holds shows as drift.

A create answered in a way that leaves open whether the destination was made adopts the
destination of the declared name and type made since the create was sent (the declared
fields are sent to it again). The id is the service's; a job's webhook notification may
name a `notificationDestinations` item (in place) instead of its id.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, field_validator, model_validator

from providers.core.create_or_adopt import create_or_adopt
from providers.core.digest import digest, same_value
from providers.core.kind import Adoption, appended_to, declare
from providers.core.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, contains_unknown
from providers.core.validators import not_blank
from providers.workspace.notification_destinations_api import NotificationDestinationsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

DIGEST_KEY = "config_digest"
# config key -> the service's destination_type
TYPES = {"email": "EMAIL", "slack": "SLACK", "generic_webhook": "WEBHOOK",
         "pagerduty": "PAGERDUTY", "microsoft_teams": "MICROSOFT_TEAMS"}
Text = Annotated[str, AfterValidator(not_blank)]


def https_url(value: str) -> str:
    if not value.startswith("https://") or any(c.isspace() for c in value):
        raise ValueError("must be an https:// URL (the service's incoming-webhook URL)")
    return value


Url = Annotated[str, AfterValidator(https_url)]


class _Fields(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EmailConfig(_Fields):
    addresses: list[str]

    @field_validator("addresses")
    @classmethod
    def _addresses(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError("give at least one e-mail address")
        bad = [a for a in value if "@" not in a.strip("@") or " " in a]
        if bad:
            raise ValueError(f"{bad[0]!r} is not an e-mail address")
        return value


class SlackConfig(_Fields):
    url: Url
    channel_id: Text | None = None
    oauth_token: Text | None = None


class WebhookConfig(_Fields):
    url: Url
    username: Text | None = None
    password: Text | None = None


class PagerdutyConfig(_Fields):
    integration_key: Text


class TeamsConfig(_Fields):
    url: Url | None = None
    app_id: Text | None = None
    auth_secret: Text | None = None
    tenant_id: Text | None = None
    channel_url: Url | None = None


class DestinationConfig(_Fields):
    email: EmailConfig | None = None
    slack: SlackConfig | None = None
    generic_webhook: WebhookConfig | None = None
    pagerduty: PagerdutyConfig | None = None
    microsoft_teams: TeamsConfig | None = None

    @model_validator(mode="after")
    def _one_type(self) -> DestinationConfig:
        given = [key for key in TYPES if getattr(self, key) is not None]
        if len(given) != 1:
            raise ValueError(f"give exactly one of {', '.join(TYPES)} (found "
                             f"{', '.join(given) or 'none'})")
        return self

    @property
    def key(self) -> str:
        return next(key for key in TYPES if getattr(self, key) is not None)

    def fields(self) -> dict[str, Any]:
        return getattr(self, self.key).model_dump(exclude_none=True)


class NotificationDestinationModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    display_name: Text
    config: DestinationConfig


def write_only(config: DestinationConfig) -> bytes:
    """The fields the service never answers, canonical: what the digest is of."""
    if config.key == "email":
        return b""
    return json.dumps(config.fields(), sort_keys=True).encode()


def shown(config: DestinationConfig) -> dict[str, Any]:
    """The config as the service shows it once made."""
    if config.key == "email":
        return {"email": {"addresses": list(config.email.addresses)}}  # type: ignore[union-attr]
    model = type(getattr(config, config.key))
    fields = config.fields()
    return {config.key: {f"{name}_set": name in fields for name in model.model_fields}}


def fields_changed(olds: Mapping[str, Any], old_inputs: Mapping[str, Any] | None,
                   config: DestinationConfig) -> bool:
    """Whether the declared write-only fields differ from those last sent: by the recorded
    digest, or where an import recorded none, by the last deployment's (encrypted) input;
    an import's first declaration is taken as what the service holds."""
    recorded = olds.get(DIGEST_KEY)
    if recorded:
        return not same_value(recorded, write_only(config))
    before = (old_inputs or {}).get("config")
    if not isinstance(before, Mapping):
        return False
    try:
        return write_only(DestinationConfig.model_validate(before)) != write_only(config)
    except ValueError:
        return True


class NotificationDestinationProvider(WorkspaceProvider):
    args_model = NotificationDestinationModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"destination_type"})

    def spec(self, args: NotificationDestinationModel) -> Spec:
        return {"display_name": args.display_name, "destination_type": TYPES[args.config.key],
                "config": shown(args.config)}

    def diff(self, _id, olds, news, old_inputs=None) -> KeyedDiffResult:
        result = super().diff(_id, olds, news, old_inputs)
        config = news.get("config")
        if contains_unknown(config):
            changed = True
        else:
            try:
                parsed = DestinationConfig.model_validate(config)
            except ValueError:
                return result  # the check names it
            changed = fields_changed(olds, old_inputs, parsed)
        if changed and "config" not in result.changed_keys:
            result.changes = True
            result.changed_keys = sorted({*result.changed_keys, "config"})
        return result

    def create_object(self, client: WorkspaceClient, args: NotificationDestinationModel,
                      spec: Spec):
        area = NotificationDestinationsApi(client)
        before = {str(d.get("id")) for d in area.list()}
        body = {args.config.key: args.config.fields()}

        def left_over() -> dict[str, Any] | None:
            for found in area.list():
                if str(found.get("id")) not in before \
                        and found.get("display_name") == args.display_name \
                        and found.get("destination_type") == spec["destination_type"]:
                    # Its fields as declared, whatever the lost create held.
                    return area.update(str(found["id"]), args.display_name, body)
            return None

        made, _ = create_or_adopt(lambda: area.create(args.display_name, body), left_over)
        return (str(made["id"]), self._spec_of(made),
                {DIGEST_KEY: digest(write_only(args.config))})

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        found = NotificationDestinationsApi(client).get(id_)
        return self._spec_of(found), {DIGEST_KEY: recorded.get(DIGEST_KEY) or ""}

    def update_object(self, client, id_, recorded, args: NotificationDestinationModel,
                      spec: Spec):
        found = NotificationDestinationsApi(client).update(
            id_, args.display_name, {args.config.key: args.config.fields()})
        return self._spec_of(found), {DIGEST_KEY: digest(write_only(args.config))}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        NotificationDestinationsApi(client).delete(id_)

    @staticmethod
    def _spec_of(found: Mapping[str, Any]) -> Spec:
        return {"display_name": found.get("display_name"),
                "destination_type": found.get("destination_type"),
                "config": found.get("config") or {}}


KIND = declare(
    name="NotificationDestination",
    provider=NotificationDestinationProvider,
    outputs={DIGEST_KEY: str},
    config_key="notificationDestinations",
    doc="docs/notification-destination.md",
    summary="where notifications go: e-mail, Slack, a webhook, PagerDuty or Microsoft "
    "Teams (write-only fields a Pulumi secret, compared by digest); in place but the type",
    import_id="destination id",
    stack_output=("notification_destinations", lambda resource: resource.id),
    secrets=("config", DIGEST_KEY),
    adoption=Adoption(
        holds_secret=lambda observed: "email" not in (observed.get("config") or {}),
        secret_value=("config", "the destination's fields the service never answers (a "
                      "Slack or webhook URL, a PagerDuty integration key): declare them"),
    ),
    inventory=lambda client: (
        (str(d["id"]), str(d.get("display_name") or ""))
        for d in NotificationDestinationsApi(client).list()
    ),
    drill=appended_to("display_name"),
)
