"""DashboardEmbeddingDomainsSetting: the domains AI/BI dashboards may be embedded in, where the
embedding policy is ALLOW_APPROVED_DOMAINS (`approved_domains`: host names).

The typed setting `aibi_dash_embed_ws_apprvd_domains`; its etag handshake, default on
destroy and import id are typed_setting.py's."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.core.validators import not_blank
from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class DashboardEmbeddingDomainsSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approved_domains: list[Annotated[str, AfterValidator(not_blank)]]


class DashboardEmbeddingDomainsSettingProvider(TypedSettingProvider):
    args_model = DashboardEmbeddingDomainsSettingModel
    setting = SettingType(
        "aibi_dash_embed_ws_apprvd_domains",
        "aibi_dashboard_embedding_approved_domains",
        {"approved_domains": []},
    )


KIND = setting_kind(
    name="DashboardEmbeddingDomainsSetting",
    provider=DashboardEmbeddingDomainsSettingProvider,
    config_key="dashboardEmbeddingDomainsSetting",
    summary="the domains AI/BI dashboards may be embedded in",
    drill=lambda item: {**item,
                        "approved_domains": [*item["approved_domains"], "drill.example.com"]},
)
