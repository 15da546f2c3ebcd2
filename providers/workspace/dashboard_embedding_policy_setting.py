"""DashboardEmbeddingPolicySetting: where AI/BI dashboards may be embedded
(`access_policy_type`: ALLOW_ALL_DOMAINS, ALLOW_APPROVED_DOMAINS, the default, or
DENY_ALL_DOMAINS).

The typed setting `aibi_dash_embed_ws_acc_policy`; its etag handshake, default on destroy
and import id are typed_setting.py's."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class DashboardEmbeddingPolicySettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    access_policy_type: Literal["ALLOW_ALL_DOMAINS", "ALLOW_APPROVED_DOMAINS",
                                "DENY_ALL_DOMAINS"]


class DashboardEmbeddingPolicySettingProvider(TypedSettingProvider):
    args_model = DashboardEmbeddingPolicySettingModel
    setting = SettingType(
        "aibi_dash_embed_ws_acc_policy",
        "aibi_dashboard_embedding_access_policy",
        {"access_policy_type": "ALLOW_APPROVED_DOMAINS"},
    )


KIND = setting_kind(
    name="DashboardEmbeddingPolicySetting",
    provider=DashboardEmbeddingPolicySettingProvider,
    config_key="dashboardEmbeddingPolicySetting",
    summary="where AI/BI dashboards may be embedded",
    drill=lambda item: {**item, "access_policy_type": "DENY_ALL_DOMAINS"
                        if item["access_policy_type"] != "DENY_ALL_DOMAINS"
                        else "ALLOW_APPROVED_DOMAINS"},
)
