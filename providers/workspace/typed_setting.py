"""What every typed workspace setting kind shares (`*_setting.py` of this package): the
etag handshake of the settings API, the provider, and the declaration.

A typed setting is one object per workspace, addressed by its type (settings_api.py); its
arguments are the fields of the setting's message (`{value: true}` of
`disable_legacy_dbfs`), and only the declared fields are managed. Every write reads the
setting for its etag, then sends the change with it; where someone wrote the setting in
between, the service refuses the stale etag (409 RESOURCE_CONFLICT), and the write is sent
once more with the etag read then. A destroy gives the service's default back: a DELETE
with the etag where the type has one, else a write of the default's values of the declared
fields. Every change is in place. The resource's id, and its import id, is the type's name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import pydantic

from providers.client import NotFound, WorkspaceError
from providers.client.calls import Calls
from providers.core.kind import DrillChange, Kind, Reference, declare
from providers.core.lifecycle import Spec, WorkspaceProvider
from providers.workspace.settings_api import SettingsApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

STALE_ETAG = "RESOURCE_CONFLICT"
DOC = "docs/workspace-settings.md"


@dataclass(frozen=True)
class SettingType:
    type_name: str  # the setting's type, as the settings API names it
    message: str  # the setting's field that holds its values
    default: Mapping[str, Any]  # the message of a new workspace (no value: absent)
    deletable: bool = True  # whether the API has a DELETE (else the default is written)


def message_of(setting: SettingType, found: Mapping[str, Any]) -> dict[str, Any]:
    held = found.get(setting.message)
    return dict(held) if isinstance(held, Mapping) else {}


def read(client: Calls, setting: SettingType) -> dict[str, Any]:
    """The setting as the service has it; an unset one the service answers NOT_FOUND for
    (a default namespace never set) as its default, with no etag."""
    try:
        return SettingsApi(client).get(setting.type_name)
    except NotFound:
        return {setting.message: dict(setting.default)}


def write(client: Calls, setting: SettingType, values: Mapping[str, Any],
          cleared: tuple[str, ...] = ()) -> dict[str, Any]:
    """The handshake: the etag read, then the masked fields sent with it (`cleared`: masked
    and not sent, so the setting holds no value of them); a stale etag (a write in between)
    read again and sent once more."""
    mask = ",".join(f"{setting.message}.{name}" for name in [*values, *cleared])
    for attempt in (1, 2):
        etag = read(client, setting).get("etag")
        body: dict[str, Any] = {setting.message: dict(values)}
        if etag is not None:
            body["etag"] = etag
        try:
            return SettingsApi(client).update(setting.type_name, body, mask)
        except WorkspaceError as error:
            if error.code != STALE_ETAG or attempt == 2:
                raise
    raise AssertionError("unreachable")


def restore(client: Calls, setting: SettingType, fields: list[str]) -> None:
    """The service's default back: DELETE with the etag, or the default's values written."""
    if not setting.deletable:
        values = {name: setting.default[name] for name in fields if name in setting.default}
        if values:
            write(client, setting, values)
        return
    for attempt in (1, 2):
        try:
            SettingsApi(client).delete(setting.type_name, read(client, setting).get("etag"))
            return
        except WorkspaceError as error:
            if error.code != STALE_ETAG or attempt == 2:
                raise


class TypedSettingProvider(WorkspaceProvider):
    """A typed setting's provider: a kind's subclass names its model and `setting`."""

    setting: ClassVar[SettingType]
    replace_keys: ClassVar[frozenset[str]] = frozenset()

    def create_object(self, client: WorkspaceClient, args: Any, spec: Spec):
        found = write(client, self.setting, spec)
        return self.setting.type_name, self._observed(found, spec), {}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        if id_ != self.setting.type_name:
            raise ValueError(f"this setting's import id is {self.setting.type_name}, not "
                             f"{id_!r}")
        found = read(client, self.setting)
        return self._observed(found, self._recorded_spec(recorded) or None), {}

    def update_object(self, client, id_, recorded, args, spec: Spec):
        # A field no longer declared goes back to the service's default (or to no value).
        left_out = [name for name in self._recorded_spec(recorded) if name not in spec]
        defaults = {n: self.setting.default[n] for n in left_out if n in self.setting.default}
        cleared = tuple(n for n in left_out if n not in self.setting.default)
        found = write(client, self.setting, {**defaults, **spec}, cleared)
        return self._observed(found, spec), {}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        restore(client, self.setting, list(self._recorded_spec(recorded)))

    def _observed(self, found: Mapping[str, Any], declared: Mapping[str, Any] | None) -> Spec:
        """The message's fields the kind manages: the declared ones, or (an import) every
        field of the model that the service shows."""
        message = message_of(self.setting, found)
        names = declared if declared is not None else self.args_model.model_fields
        return {name: message[name] for name in names if message.get(name) is not None}


def _changed_from_default(setting: SettingType, model: type[pydantic.BaseModel]
                          ) -> Callable[[Any], Iterator[tuple[str, str]]]:
    """The audit's inventory: the setting where it differs from a new workspace's."""
    def inventory(client: Any) -> Iterator[tuple[str, str]]:
        message = message_of(setting, read(client, setting))
        managed = {k: v for k, v in message.items() if k in model.model_fields}
        default = {k: v for k, v in setting.default.items() if k in model.model_fields}
        if managed != default:
            shown = ", ".join(f"{k}={v}" for k, v in sorted(managed.items()))
            yield setting.type_name, f"{setting.type_name}: {shown or 'set'}"
    return inventory


def setting_kind(*, name: str, provider: type[TypedSettingProvider], config_key: str,
                 summary: str, drill: Callable[[dict[str, Any]], dict[str, Any]],
                 references: Mapping[str, Reference] | None = None,
                 after: tuple[str, ...] = ()) -> Kind:
    setting = provider.setting
    return declare(
        name=name,
        provider=provider,
        config_key=config_key,
        doc=DOC,
        summary=summary,
        import_id=setting.type_name,
        references=references,
        after=after,
        inventory=_changed_from_default(setting, provider.args_model),
        drill=DrillChange(drill),
    )
