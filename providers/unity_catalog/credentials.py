"""What the credential and location kinds of Unity Catalog share: the identities a credential
holds, its isolation mode, and how names compare."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

if TYPE_CHECKING:
    pass


IsolationMode = Literal["ISOLATION_MODE_OPEN", "ISOLATION_MODE_ISOLATED"]


def uc_name(value: str) -> str:
    if not NAME.fullmatch(value):
        raise ValueError(
            "must be 1 to 255 characters without '.', '/', spaces or control characters"
        )
    return value


def not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


class AzureManagedIdentityModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    access_connector_id: str
    managed_identity_id: str | None = None

    _ids = field_validator("access_connector_id")(not_blank)


class AzureServicePrincipalModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    directory_id: str
    application_id: str
    client_secret: str

    _ids = field_validator("directory_id", "application_id", "client_secret")(not_blank)


class AwsIamRoleModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    role_arn: str

    @field_validator("role_arn")
    @classmethod
    def _arn(cls, value: str) -> str:
        if not value.startswith("arn:") or value.count(":") < 5:
            raise ValueError("must be an IAM role ARN (arn:aws:iam::<account>:role/<name>)")
        return value


class DatabricksGcpServiceAccountModel(BaseModel):
    """Empty: the service makes the account (its email is an output)."""

    model_config = ConfigDict(extra="forbid")


def names_match(a: Any, b: Any) -> bool:
    return isinstance(a, str) and isinstance(b, str) and a.lower() == b.lower()


NAME = re.compile(r"[^\s./\x00-\x1f\x7f]{1,255}")
