"""SqlResultsDownloadSetting: whether users may download the results of SQL queries (`value`;
true by default).

The typed setting `sql_results_download`; its etag handshake, default on destroy and import
id are typed_setting.py's."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, StrictBool

from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class SqlResultsDownloadSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: StrictBool


class SqlResultsDownloadSettingProvider(TypedSettingProvider):
    args_model = SqlResultsDownloadSettingModel
    setting = SettingType("sql_results_download", "boolean_val", {"value": True})


KIND = setting_kind(
    name="SqlResultsDownloadSetting",
    provider=SqlResultsDownloadSettingProvider,
    config_key="sqlResultsDownloadSetting",
    summary="whether SQL query results may be downloaded",
    drill=lambda item: {**item, "value": not item["value"]},
)
