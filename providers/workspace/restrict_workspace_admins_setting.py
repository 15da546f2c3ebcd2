"""RestrictWorkspaceAdminsSetting: whether workspace admins may make tokens for others and set
a job's run_as to any principal (`status`: ALLOW_ALL, the default, or
RESTRICT_TOKENS_AND_JOB_RUN_AS).

The typed setting `restrict_workspace_admins`; its etag handshake, default on destroy and
import id are typed_setting.py's."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, StrictBool

from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind


class RestrictWorkspaceAdminsSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Literal["ALLOW_ALL", "RESTRICT_TOKENS_AND_JOB_RUN_AS"]
    disable_gov_tag_creation: StrictBool | None = None


class RestrictWorkspaceAdminsSettingProvider(TypedSettingProvider):
    args_model = RestrictWorkspaceAdminsSettingModel
    setting = SettingType(
        "restrict_workspace_admins",
        "restrict_workspace_admins",
        {"status": "ALLOW_ALL"},
    )


KIND = setting_kind(
    name="RestrictWorkspaceAdminsSetting",
    provider=RestrictWorkspaceAdminsSettingProvider,
    config_key="restrictWorkspaceAdminsSetting",
    summary="whether workspace admins are restricted in the tokens and job run_as they set",
    drill=lambda item: {**item, "status": "ALLOW_ALL" if item["status"] != "ALLOW_ALL"
                        else "RESTRICT_TOKENS_AND_JOB_RUN_AS"},
)
