"""ComplianceSecurityProfileSetting: the compliance security profile (`is_enabled`) and the
standards it holds the workspace to (`compliance_standards`, e.g. HIPAA, PCI_DSS). The API
has no DELETE: a destroy writes the default's values back.

The typed setting `shield_csp_enablement_ws_db`; its etag handshake, default on destroy and
import id are typed_setting.py's."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, StrictBool

from providers.workspace.typed_setting import SettingType, TypedSettingProvider, setting_kind

Standard = Literal["CANADA_PROTECTED_B", "CYBER_ESSENTIAL_PLUS", "FEDRAMP_HIGH", "FEDRAMP_IL5",
                   "FEDRAMP_MODERATE", "GERMANY_C5", "GERMANY_TISAX", "HIPAA", "HITRUST",
                   "IRAP_PROTECTED", "ISMAP", "ITAR_EAR", "KSA_ECC_CCC_DCC", "K_FSI", "NONE",
                   "PCI_DSS"]


class ComplianceSecurityProfileSettingModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    is_enabled: StrictBool
    compliance_standards: list[Standard] | None = None


class ComplianceSecurityProfileSettingProvider(TypedSettingProvider):
    args_model = ComplianceSecurityProfileSettingModel
    setting = SettingType(
        "shield_csp_enablement_ws_db",
        "compliance_security_profile_workspace",
        {"is_enabled": False, "compliance_standards": []},
        deletable=False,
    )


KIND = setting_kind(
    name="ComplianceSecurityProfileSetting",
    provider=ComplianceSecurityProfileSettingProvider,
    config_key="complianceSecurityProfileSetting",
    summary="the compliance security profile and its compliance standards",
    drill=lambda item: {**item, "is_enabled": not item["is_enabled"]},
)
