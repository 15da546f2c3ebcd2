"""DisableLegacyDbfsSetting: turns off access to the DBFS root and mounts where `value` is
true.

The typed setting `disable_legacy_dbfs`; its etag handshake, default on destroy and import
id are typed_setting.py's."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictBool

from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class DisableLegacyDbfsSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: StrictBool


class DisableLegacyDbfsSettingProvider(TypedSettingProvider):
    args_model = DisableLegacyDbfsSettingModel
    setting = SettingType("disable_legacy_dbfs", "disable_legacy_dbfs", {"value": False})


KIND = setting_kind(
    name="DisableLegacyDbfsSetting",
    provider=DisableLegacyDbfsSettingProvider,
    config_key="disableLegacyDbfsSetting",
    summary="whether the DBFS root and mounts are disabled",
    drill=lambda item: {**item, "value": not item["value"]},
)
