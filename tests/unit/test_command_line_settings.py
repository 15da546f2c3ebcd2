"""Settings the service's SDK passes to a command line are checked before use (issue 41,
L18): `tenantId` and `resource` go to `az account get-access-token`, `profile` to
`databricks auth token`, and on Windows both run through cmd.exe, where `&`, `|`, `^`, `%`,
quotes and spaces have a meaning. Refused with the field's name and config key, never run."""

from __future__ import annotations

from typing import Any

import pytest

from providers.auth.component import WorkspaceAuthError, check_credentials
from providers.client.connection import Connection

BASE_URL = "https://adb-1234567890123456.7.azuredatabricks.net"
GUID = "2ff814a6-3304-4ab8-85cb-cd0e6f879c1d"


def azure_cli(**overrides: Any) -> dict[str, Any]:
    return {"base_url": BASE_URL, "auth_type": "azure-cli", "resource": GUID} | overrides


def cli(profile: str) -> dict[str, Any]:
    return {"base_url": BASE_URL, "auth_type": "databricks-cli", "profile": profile}


HOSTILE = ["x & calc.exe", "x|whoami", "x^&y", "%PATH%", 'x" --debug "', "a b", "x\nnext", "-x"]


@pytest.mark.parametrize("value", HOSTILE)
def test_a_tenant_id_with_shell_characters_is_refused_naming_the_key(value: str):
    with pytest.raises(WorkspaceAuthError) as caught:
        check_credentials(azure_cli(tenant_id=value))
    message = str(caught.value)
    assert "tenant_id (workspace:tenantId)" in message and "GUID" in message


@pytest.mark.parametrize("value", [*HOSTILE, "http://127.0.0.1/r", "https://x/?a=1&b=2"])
def test_a_resource_that_is_no_guid_nor_plain_https_url_is_refused_naming_the_key(value: str):
    with pytest.raises(WorkspaceAuthError) as caught:
        check_credentials(azure_cli(resource=value))
    message = str(caught.value)
    assert "resource (workspace:resource)" in message and "https://" in message


@pytest.mark.parametrize("value", [*HOSTILE, ".hidden", "a/b", "x" * 129])
def test_a_profile_name_with_other_characters_is_refused_naming_the_key(value: str):
    with pytest.raises(WorkspaceAuthError) as caught:
        check_credentials(cli(value))
    assert "profile (workspace:profile)" in str(caught.value)


@pytest.mark.parametrize(
    "tenant", ["dd523c38-5331-469f-bb30-6ee31e3da8ff", "contoso.onmicrosoft.com", "tenant-1"]
)
@pytest.mark.parametrize("resource", [GUID, "https://management.core.windows.net/"])
def test_guids_domains_and_plain_https_urls_are_accepted(tenant: str, resource: str):
    conn = Connection(**azure_cli(tenant_id=tenant, resource=resource))
    assert (conn.tenant_id, conn.resource) == (tenant, resource)


@pytest.mark.parametrize("profile", ["DEFAULT", "e2e-deploy", "team_a.prod"])
def test_plain_profile_names_are_accepted(profile: str):
    assert Connection(**cli(profile)).profile == profile
