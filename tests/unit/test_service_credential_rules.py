"""ServiceCredential's check, without a workspace: exactly one identity, a name the service
takes, the storage credentials' own fields (`read_only`, an Azure service principal) refused
by name, unknown fields refused; every failure names its path, and a refused client secret
appears in no failure."""

from __future__ import annotations

from typing import Any

import pytest

from providers.core.registry import kind_named
from providers.unity_catalog.service_credential import ServiceCredentialProvider

CONNECTOR = "/subscriptions/0/resourceGroups/rg/providers/Microsoft.Databricks/accessConnectors/uc"
ROLE = {"role_arn": "arn:aws:iam::123456789012:role/uc-services"}
PRINCIPAL = {"directory_id": "d", "application_id": "a", "client_secret": "very-s3cret-value"}
VALID = {"name": "Queue-Reader", "azure_managed_identity": {"access_connector_id": CONNECTOR}}


def failures(change: dict[str, Any]) -> dict[str, str]:
    """The check's failures of VALID with `change` (a None leaves a field out), by path."""
    inputs = {k: v for k, v in {**VALID, **change}.items() if v is not None}
    return {f.property: f.reason for f in ServiceCredentialProvider.input_failures(inputs)}


def test_a_valid_credential_passes() -> None:
    assert failures({}) == {}
    assert failures({"azure_managed_identity": None, "databricks_gcp_service_account": {}}) == {}
    assert failures({"azure_managed_identity": None, "aws_iam_role": ROLE,
                     "comment": "reads queues", "owner": "data-engineers",
                     "isolation_mode": "ISOLATION_MODE_ISOLATED", "skip_validation": True}) == {}


@pytest.mark.parametrize(
    ("change", "path", "reason"),
    [
        ({"azure_managed_identity": None}, "(inputs)",
         "give one identity: one of azure_managed_identity"),
        ({"aws_iam_role": ROLE}, "aws_iam_role",
         "give one identity only: azure_managed_identity is given too"),
        ({"databricks_gcp_service_account": {}}, "databricks_gcp_service_account",
         "give one identity only"),
        ({"name": ""}, "name", "must be 1 to 255 characters"),
        ({"name": "   "}, "name", "without '.', '/', spaces"),
        ({"name": "a.b"}, "name", "without '.'"),
        ({"read_only": True}, "read_only", "storage credentials only (purpose STORAGE)"),
        ({"read_only": False}, "read_only", "leave it out of a service credential"),
        ({"azure_managed_identity": None, "azure_service_principal": PRINCIPAL},
         "azure_service_principal", "Azure service principal for storage credentials only"),
        ({"url": "abfss://x@y.dfs.core.windows.net/"}, "url", "Extra inputs are not permitted"),
        ({"purpose": "SERVICE"}, "purpose", "Extra inputs are not permitted"),
        ({"azure_managed_identity": {"access_connector_id": " "}},
         "azure_managed_identity.access_connector_id", "must not be empty"),
        ({"azure_managed_identity": None, "aws_iam_role": {"role_arn": "uc-services"}},
         "aws_iam_role.role_arn", "IAM role ARN"),
        ({"isolation_mode": "ISOLATED"}, "isolation_mode", "ISOLATION_MODE_OPEN"),
        ({"skip_validation": "yes"}, "skip_validation", "valid boolean"),
        ({"owner": " "}, "owner", "must not be empty"),
    ],
)
def test_each_broken_rule_names_its_path(change: dict[str, Any], path: str, reason: str) -> None:
    found = failures(change)
    assert path in found, found
    assert reason in found[path], found[path]


def test_a_refused_client_secret_is_a_secret_and_in_no_failure() -> None:
    found = failures({"azure_managed_identity": None, "azure_service_principal": PRINCIPAL})
    # Not one of a service credential's identities: none given, and this one refused.
    assert set(found) == {"(inputs)", "azure_service_principal"}, found
    assert "give one identity: one of azure_managed_identity, aws_iam_role" in found["(inputs)"]
    assert all(PRINCIPAL["client_secret"] not in reason for reason in found.values())
    # Declared all the same, it leaves the program as a Pulumi secret.
    assert "azure_service_principal" in kind_named("ServiceCredential").secrets
