"""DashboardEmailSubscriptionsSetting: whether dashboards' schedules may send e-mail to
subscribers (`value`; true by default).

The typed setting `dashboard_email_subscriptions`; its etag handshake, default on destroy
and import id are typed_setting.py's."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictBool

from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class DashboardEmailSubscriptionsSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: StrictBool


class DashboardEmailSubscriptionsSettingProvider(TypedSettingProvider):
    args_model = DashboardEmailSubscriptionsSettingModel
    setting = SettingType("dashboard_email_subscriptions", "boolean_val", {"value": True})


KIND = setting_kind(
    name="DashboardEmailSubscriptionsSetting",
    provider=DashboardEmailSubscriptionsSettingProvider,
    config_key="dashboardEmailSubscriptionsSetting",
    summary="whether dashboard schedules may e-mail subscribers",
    drill=lambda item: {**item, "value": not item["value"]},
)
