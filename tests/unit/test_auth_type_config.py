"""`workspace:authType` and the keys of each sign-in method: the Connection's validation,
the stack config's problems (stacks/config_rules.py, stacks/config.py, the audit), and the
messages WorkspaceAuth's credential check gives (providers/auth/component.py)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import responses
from pydantic import ValidationError

from providers.auth.component import WorkspaceAuthError, check_credentials
from providers.client.connection import Connection
from stacks.audit import AuditError, connection_of
from stacks.config import connection_args, file_values
from stacks.config_rules import connection_problems, problems
from stacks.errors import ConfigError
from tests.unit.client_support import AUTH_URL, BASE_URL, RESOURCE, TENANT, TOKEN_URL

pytestmark = pytest.mark.usefixtures("fresh_client_caches")

WORKSPACE_RESOURCE_ID = (
    "/subscriptions/sub-1/resourceGroups/rg-1/providers/Microsoft.Databricks/workspaces/ws-1"
)
SECRET = "s3cr3t-value-for-the-config-tests"
PAT = "dapi-config-tests-token-0011"

# Each method's required keys, as docs/workspace-auth.md lists them (stack config keys).
REQUIRED: dict[str, tuple[str, ...]] = {
    "azure-client-secret": ("authUrl", "tenantId", "clientId", "clientSecret", "resource"),
    "oauth-m2m": ("clientId", "clientSecret"),
    "pat": ("token",),
    "azure-cli": ("resource",),
    "azure-msi": ("resource",),
    "github-oidc": ("clientId",),
    "github-oidc-azure": ("authUrl", "tenantId", "clientId", "resource"),
    "databricks-cli": (),
}
VALUES = {
    "authUrl": AUTH_URL,
    "tenantId": TENANT,
    "clientId": "client-1",
    "clientSecret": SECRET,
    "resource": RESOURCE,
    "token": PAT,
    "profile": "ci",
    "azureWorkspaceResourceId": WORKSPACE_RESOURCE_ID,
}
FIELDS = {
    "authUrl": "auth_url",
    "tenantId": "tenant_id",
    "clientId": "client_id",
    "clientSecret": "client_secret",
    "resource": "resource",
    "token": "token",
    "profile": "profile",
    "azureWorkspaceResourceId": "azure_workspace_resource_id",
}
SECRET_KEYS = {"clientSecret", "token"}
MISSING = [(method, key) for method, keys in REQUIRED.items() for key in keys]


def default_note(method: str | None) -> str:
    """What a missing key's message adds where the stack chose no method."""
    return " (the default)" if method is None else ""


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(("DATABRICKS_", "ACTIONS_ID_TOKEN_", "IDENTITY_", "ARM_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(tmp_path / "no-databrickscfg"))


def stack(method: str | None, *keys: str, **extra: Any) -> dict[str, Any]:
    """A stack's `workspace:*` connection config with the method and these keys set."""
    values: dict[str, Any] = {"baseUrl": BASE_URL, "allowInsecureHttp": "true"}
    if method is not None:
        values["authType"] = method
    return values | {key: VALUES[key] for key in keys} | extra


def settings(method: str | None, *keys: str, **extra: Any) -> dict[str, Any]:
    """The same as Connection fields."""
    values: dict[str, Any] = {"base_url": BASE_URL, "allow_insecure_http": True}
    if method is not None:
        values["auth_type"] = method
    return values | {FIELDS[key]: VALUES[key] for key in keys} | extra


# --- each method's keys -------------------------------------------------------------------


@pytest.mark.parametrize("method", REQUIRED)
def test_each_method_takes_its_required_keys(method: str):
    connection = Connection(**settings(method, *REQUIRED[method]))
    assert connection.method.value == method and connection.auth_type == method
    assert connection_problems(stack(method, *REQUIRED[method])) == []


@pytest.mark.parametrize(("method", "key"), MISSING)
def test_a_missing_key_is_named_with_the_method(method: str, key: str):
    kept = [k for k in REQUIRED[method] if k != key]
    with pytest.raises(ValidationError) as caught:
        Connection(**settings(method, *kept))
    message = str(caught.value)
    assert f"auth type {method!r} needs {FIELDS[key]}" in message
    assert SECRET not in message and PAT not in message


@pytest.mark.parametrize(("method", "key"), [(m, k) for m, k in MISSING if k not in SECRET_KEYS])
def test_the_stack_names_a_missing_key_with_the_command_that_sets_it(method: str, key: str):
    kept = [k for k in REQUIRED[method] if k != key]
    assert connection_problems(stack(method, *kept)) == [
        f"workspace:{key}: required (`pulumi config set workspace:{key} <value>`) "
        f"by authType {method!r}{default_note(method)}"
    ]


@pytest.mark.parametrize(("method", "key"), [(m, k) for m, k in MISSING if k in SECRET_KEYS])
def test_a_missing_secret_is_named_with_the_secret_command(method: str, key: str):
    kept = [k for k in REQUIRED[method] if k != key]
    values = stack(method, *kept)
    # Offline the secrets are not judged (they are encrypted); the program and the audit do.
    assert connection_problems(values) == []
    expected = (
        f"workspace:{key}: required (`pulumi config set --secret workspace:{key} <value>`) "
        f"by authType {method!r}{default_note(method)}"
    )
    with pytest.raises(ConfigError) as caught:
        connection_args(values, credentials={})
    assert str(caught.value) == expected
    with pytest.raises(AuditError) as audited:
        connection_of({f"workspace:{k}": v for k, v in values.items()})
    assert expected in str(audited.value)


def test_given_the_secret_the_program_has_its_arguments():
    values = stack("pat")
    args = connection_args(values, credentials={"token": PAT})
    assert (args.auth_type, args.token, args.base_url) == ("pat", PAT, BASE_URL)


# --- the default ----------------------------------------------------------------------------


def test_no_auth_type_is_azure_client_secret():
    connection = Connection(**settings(None, *REQUIRED["azure-client-secret"]))
    assert connection.auth_type is None
    assert connection.method.value == "azure-client-secret"
    assert "auth_type" not in connection.to_props()  # only a chosen method is recorded


def test_no_auth_type_names_the_default_and_its_keys():
    found = connection_problems(stack(None))
    assert found == [
        f"workspace:{key}: required (`pulumi config set workspace:{key} <value>`) "
        "by authType 'azure-client-secret' (the default)"
        for key in ("authUrl", "tenantId", "clientId", "resource")
    ]
    with pytest.raises(ConfigError, match=r"--secret workspace:clientSecret .* \(the default\)"):
        connection_args(stack(None, "authUrl", "tenantId", "clientId", "resource"), {})
    with pytest.raises(ValidationError) as caught:
        Connection(base_url=BASE_URL)
    assert "no auth_type was chosen, which means 'azure-client-secret'" in str(caught.value)


def test_an_oauth_stack_needs_no_azure_key():
    # Only baseUrl is asked of every stack: the Azure keys belong to the default's method.
    assert connection_problems(stack("oauth-m2m", "clientId")) == []
    assert connection_problems(stack("databricks-cli")) == []


# --- unknown methods, keys a method does not use --------------------------------------------

KNOWN = (
    "'azure-client-secret', 'oauth-m2m', 'pat', 'azure-cli', 'azure-msi', 'github-oidc', "
    "'github-oidc-azure', 'databricks-cli'"
)


@pytest.mark.parametrize(
    ("given", "hint"),
    [
        ("oauth-m2n", "did you mean 'oauth-m2m'? "),
        ("azure-cli-secret", "did you mean 'azure-client-secret'? "),
        ("github_oidc", "did you mean 'github-oidc'? "),
        ("kerberos", ""),
    ],
)
def test_an_unknown_auth_type_suggests_the_close_one_and_lists_them(given: str, hint: str):
    reason = f"unknown auth type {given!r}: {hint}known ones: {KNOWN}"
    with pytest.raises(ValidationError) as caught:
        Connection(**settings(given, "clientId"))
    assert reason in str(caught.value)
    assert connection_problems(stack(given, "clientId")) == [f"workspace:authType: {reason}"]


@pytest.mark.parametrize(
    ("method", "extra"),
    [
        ("pat", "clientSecret"),
        ("pat", "clientId"),
        ("oauth-m2m", "azureWorkspaceResourceId"),
        ("oauth-m2m", "tenantId"),
        ("azure-msi", "tenantId"),
        ("azure-cli", "profile"),
        ("github-oidc", "clientSecret"),
        ("github-oidc-azure", "clientSecret"),
        ("databricks-cli", "token"),
        ("azure-client-secret", "token"),
    ],
)
def test_a_key_the_method_does_not_use_is_refused_by_name(method: str, extra: str):
    keys = (*REQUIRED[method], extra)
    field = FIELDS[extra]
    with pytest.raises(ValidationError) as caught:
        Connection(**settings(method, *keys))
    assert f"auth type {method!r} does not use {field}: remove it" in str(caught.value)
    assert SECRET not in str(caught.value) and PAT not in str(caught.value)
    [problem] = connection_problems(stack(method, *keys))
    assert problem == (
        f"workspace:{extra}: auth type {method!r} does not use {extra}: remove it, or choose "
        "the auth type that uses it"
    )


def test_an_encrypted_secret_the_method_does_not_use_is_refused_offline(tmp_path: Path):
    """The offline check reads the stack file, where secrets are encrypted: an unused one is
    refused for being unused, as the running program refuses it."""
    path = tmp_path / "Pulumi.team.yaml"
    path.write_text(
        "config:\n"
        f"  workspace:baseUrl: {BASE_URL}\n"
        "  workspace:authType: pat\n"
        "  workspace:token:\n    secure: v1:AAAAbbbbCCCC\n"
        "  workspace:clientSecret:\n    secure: v1:DDDDeeeeFFFF\n"
    )
    values, secrets = file_values(path)
    assert secrets == {"token", "clientSecret"}
    assert problems(values, secrets) == [
        "workspace:clientSecret: auth type 'pat' does not use clientSecret: remove it, or "
        "choose the auth type that uses it"
    ]


def test_azure_workspace_resource_id_is_an_azure_methods_key():
    for method in ("azure-client-secret", "azure-cli", "azure-msi", "github-oidc-azure"):
        keys = (*REQUIRED[method], "azureWorkspaceResourceId")
        assert Connection(**settings(method, *keys)).azure_workspace_resource_id
        assert connection_problems(stack(method, *keys)) == []


# --- WorkspaceAuth's messages ------------------------------------------------------------------


def auth_values(method: str | None, *keys: str, **extra: Any) -> dict[str, Any]:
    return settings(method, *keys, wire_form="public", **extra)


def test_workspace_auth_names_the_method_and_the_missing_config_key():
    with pytest.raises(WorkspaceAuthError) as caught:
        check_credentials(auth_values("oauth-m2m", "clientSecret"))
    message = str(caught.value)
    assert "auth type 'oauth-m2m' needs client_id (workspace:clientId)" in message
    assert SECRET not in message


def test_workspace_auth_names_an_unused_key_and_never_its_value():
    with pytest.raises(WorkspaceAuthError) as caught:
        check_credentials(auth_values("pat", "token", "clientSecret"))
    message = str(caught.value)
    assert "auth type 'pat' does not use client_secret (workspace:clientSecret)" in message
    assert SECRET not in message and PAT not in message


def test_workspace_auth_names_an_unknown_auth_type_with_did_you_mean():
    with pytest.raises(WorkspaceAuthError) as caught:
        check_credentials(auth_values("azure-mis", "resource"))
    message = str(caught.value)
    assert "auth_type (workspace:authType)" in message
    assert "did you mean 'azure-msi'?" in message and KNOWN in message


def test_workspace_auth_wrong_client_secret_names_the_method_and_keys():
    refusal = {
        "error": "invalid_client",
        "error_codes": [7000215],
        "error_description": "AADSTS7000215: Invalid client secret provided.",
    }
    with responses.RequestsMock() as mocked:
        mocked.post(TOKEN_URL, status=401, json=refusal)
        with pytest.raises(WorkspaceAuthError) as caught:
            check_credentials(auth_values(None, *REQUIRED["azure-client-secret"]))
    message = str(caught.value)
    assert "auth type 'azure-client-secret'" in message and "AADSTS7000215" in message
    for key in ("authUrl", "tenantId", "clientId", "clientSecret", "resource"):
        assert f"workspace:{key}" in message
    assert SECRET not in message


def test_workspace_auth_oauth_m2m_refused_names_the_method_and_keys():
    with responses.RequestsMock() as mocked:
        mocked.get(
            f"{BASE_URL}/oidc/.well-known/oauth-authorization-server",
            json={
                "token_endpoint": f"{BASE_URL}/oidc/v1/token",
                "authorization_endpoint": f"{BASE_URL}/oidc/v1/authorize",
            },
        )
        mocked.post(
            f"{BASE_URL}/oidc/v1/token",
            status=401,
            json={"error": "invalid_client", "error_description": "Invalid secret"},
        )
        with pytest.raises(WorkspaceAuthError) as caught:
            check_credentials(auth_values("oauth-m2m", "clientId", "clientSecret"))
    message = str(caught.value)
    assert "could not sign in with auth type 'oauth-m2m'" in message
    assert "workspace:clientId" in message and "workspace:clientSecret" in message
    assert "invalid_client" in message and SECRET not in message


SCIM_ME = f"{BASE_URL}/api/2.0/preview/scim/v2/Me"


def test_workspace_auth_proves_a_pat_with_scim_me():
    with responses.RequestsMock() as mocked:
        me = mocked.get(
            SCIM_ME,
            json={"userName": "someone@example.com"},
            match=[responses.matchers.header_matcher({"Authorization": f"Bearer {PAT}"})],
        )
        props, _ = check_credentials(auth_values("pat", "token"))
    assert me.call_count == 1
    assert props["auth_type"] == "pat" and props["token"] == PAT


def test_workspace_auth_refused_pat_names_the_method_and_keys_but_not_the_token():
    with responses.RequestsMock() as mocked:
        me = mocked.get(
            SCIM_ME,
            status=401,
            json={"error_code": "UNAUTHENTICATED", "message": "Invalid access token."},
        )
        with pytest.raises(WorkspaceAuthError) as caught:
            check_credentials(auth_values("pat", "token"))
        assert me.call_count == 2  # the 401 retry with a "fresh" token, the same one
    message = str(caught.value)
    assert f"the workspace {BASE_URL} refused the credentials of auth type 'pat'" in message
    assert "workspace:authType, workspace:token" in message
    assert "Invalid access token" in message and PAT not in message


def test_workspace_auth_proves_a_databricks_cli_profile_with_scim_me(monkeypatch, tmp_path):
    config = tmp_path / "databrickscfg"
    config.write_text(f"[ci]\nhost = {BASE_URL}\ntoken = {PAT}\n")
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(config))
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        mocked.get(
            SCIM_ME,
            status=401,
            json={"error_code": "UNAUTHENTICATED", "message": "Token is expired."},
        )
        with pytest.raises(WorkspaceAuthError) as caught:
            check_credentials(auth_values("databricks-cli", "profile"))
    message = str(caught.value)
    assert "auth type 'databricks-cli'" in message
    assert "workspace:authType, workspace:profile" in message
    assert "Token is expired" in message and PAT not in message


def test_workspace_auth_managed_identity_error_names_the_method_not_the_header(monkeypatch):
    header = "identity-header-secret-for-config"
    monkeypatch.setenv("IDENTITY_ENDPOINT", "http://127.0.0.1:41234/msi/token")
    monkeypatch.setenv("IDENTITY_HEADER", header)
    with responses.RequestsMock() as mocked:
        mocked.get(
            "http://127.0.0.1:41234/msi/token",
            status=400,
            json={"error": "invalid_request", "error_description": "Identity not found"},
        )
        with pytest.raises(WorkspaceAuthError) as caught:
            check_credentials(auth_values("azure-msi", "resource", max_attempts=1))
    message = str(caught.value)
    assert "could not sign in with auth type 'azure-msi'" in message
    assert "workspace:authType, workspace:resource" in message
    assert "Identity not found" in message and header not in message


def test_workspace_auth_outside_a_github_job_names_the_variables_and_the_permission():
    with pytest.raises(WorkspaceAuthError) as caught:
        check_credentials(auth_values("github-oidc", "clientId"))
    message = str(caught.value)
    assert "auth type 'github-oidc'" in message and "workspace:clientId" in message
    assert "ACTIONS_ID_TOKEN_REQUEST_URL" in message
    assert "permissions: id-token: write" in message
