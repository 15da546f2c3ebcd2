"""AutomaticClusterUpdateSetting: whether clusters restart in a maintenance window to take
updates (`enabled`; false by default) and whether they restart with no update to take. The
API has no DELETE: a destroy writes the default's values back.

The typed setting `automatic_cluster_update`; its etag handshake, default on destroy and
import id are typed_setting.py's."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictBool

from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class AutomaticClusterUpdateSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: StrictBool
    restart_even_if_no_updates_available: StrictBool | None = None


class AutomaticClusterUpdateSettingProvider(TypedSettingProvider):
    args_model = AutomaticClusterUpdateSettingModel
    setting = SettingType(
        "automatic_cluster_update",
        "automatic_cluster_update_workspace",
        {"enabled": False,
        "restart_even_if_no_updates_available": False},
        deletable=False,
    )


KIND = setting_kind(
    name="AutomaticClusterUpdateSetting",
    provider=AutomaticClusterUpdateSettingProvider,
    config_key="automaticClusterUpdateSetting",
    summary="whether clusters are restarted in a maintenance window to take updates",
    drill=lambda item: {**item, "enabled": not item["enabled"]},
)
