"""DefaultNamespaceSetting: the catalog a query that names no catalog reads from (`value`: a
catalog's name; the schema `default` is assumed). Clusters and SQL warehouses take it at
their next start.

The typed setting `default_namespace_ws`; its etag handshake, default on destroy and import
id are typed_setting.py's."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

from providers.core.validators import not_blank
from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class DefaultNamespaceSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    value: Annotated[str, AfterValidator(not_blank)]


class DefaultNamespaceSettingProvider(TypedSettingProvider):
    args_model = DefaultNamespaceSettingModel
    setting = SettingType("default_namespace_ws", "namespace", {})


KIND = setting_kind(
    name="DefaultNamespaceSetting",
    provider=DefaultNamespaceSettingProvider,
    config_key="defaultNamespaceSetting",
    summary="the workspace's default catalog (default namespace) of Unity Catalog compute",
    drill=lambda item: {**item, "value": item["value"] + "_drill"},
)
