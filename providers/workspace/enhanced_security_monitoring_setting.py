"""EnhancedSecurityMonitoringSetting: enhanced security monitoring of the workspace's compute
(`is_enabled`). The API has no DELETE: a destroy writes the default's value back.

The typed setting `shield_esm_enablement_ws_db`; its etag handshake, default on destroy and
import id are typed_setting.py's."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictBool

from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class EnhancedSecurityMonitoringSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    is_enabled: StrictBool


class EnhancedSecurityMonitoringSettingProvider(TypedSettingProvider):
    args_model = EnhancedSecurityMonitoringSettingModel
    setting = SettingType(
        "shield_esm_enablement_ws_db",
        "enhanced_security_monitoring_workspace",
        {"is_enabled": False},
        deletable=False,
    )


KIND = setting_kind(
    name="EnhancedSecurityMonitoringSetting",
    provider=EnhancedSecurityMonitoringSettingProvider,
    config_key="enhancedSecurityMonitoringSetting",
    summary="enhanced security monitoring of the workspace's compute",
    drill=lambda item: {**item, "is_enabled": not item["is_enabled"]},
)
