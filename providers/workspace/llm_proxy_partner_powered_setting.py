"""LlmProxyPartnerPoweredSetting: whether AI features may use partner-powered models (`value`;
true by default).

The typed setting `llm_proxy_partner_powered`; its etag handshake, default on destroy and
import id are typed_setting.py's."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictBool

from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class LlmProxyPartnerPoweredSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: StrictBool


class LlmProxyPartnerPoweredSettingProvider(TypedSettingProvider):
    args_model = LlmProxyPartnerPoweredSettingModel
    setting = SettingType("llm_proxy_partner_powered", "boolean_val", {"value": True})


KIND = setting_kind(
    name="LlmProxyPartnerPoweredSetting",
    provider=LlmProxyPartnerPoweredSettingProvider,
    config_key="llmProxyPartnerPoweredSetting",
    summary="whether AI features may use partner-powered models",
    drill=lambda item: {**item, "value": not item["value"]},
)
