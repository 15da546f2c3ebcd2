"""DefaultWarehouseIdSetting: the SQL warehouse the workspace's SQL tools choose by default
(`value`: a warehouse's id, or the name of a `sqlWarehouses` item of the stack).

The typed setting `default_warehouse_id`; its etag handshake, default on destroy and import
id are typed_setting.py's."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.core.kind import Reference
from providers.core.validators import not_blank
from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class DefaultWarehouseIdSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: Annotated[str, AfterValidator(not_blank)]


class DefaultWarehouseIdSettingProvider(TypedSettingProvider):
    args_model = DefaultWarehouseIdSettingModel
    setting = SettingType("default_warehouse_id", "string_val", {})


KIND = setting_kind(
    name="DefaultWarehouseIdSetting",
    provider=DefaultWarehouseIdSettingProvider,
    config_key="defaultWarehouseIdSetting",
    summary="the workspace's default SQL warehouse",
    drill=lambda item: {**item, "value": item["value"] + "0"},
    references={"value": Reference(target_key="sqlWarehouses", field="value", in_place=True)},
    after=("sqlWarehouses",),
)
