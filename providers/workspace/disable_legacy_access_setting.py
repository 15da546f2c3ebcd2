"""DisableLegacyAccessSetting: turns off the legacy ways to data (the Hive metastore,
credential passthrough, no-isolation clusters) where `value` is true.

The typed setting `disable_legacy_access`; its etag handshake, default on destroy and import
id are typed_setting.py's."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictBool

from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class DisableLegacyAccessSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: StrictBool


class DisableLegacyAccessSettingProvider(TypedSettingProvider):
    args_model = DisableLegacyAccessSettingModel
    setting = SettingType("disable_legacy_access", "disable_legacy_access", {"value": False})


KIND = setting_kind(
    name="DisableLegacyAccessSetting",
    provider=DisableLegacyAccessSettingProvider,
    config_key="disableLegacyAccessSetting",
    summary="whether legacy data access is disabled",
    drill=lambda item: {**item, "value": not item["value"]},
)
