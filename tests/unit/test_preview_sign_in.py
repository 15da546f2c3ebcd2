"""WORKSPACE_SIGN_IN_AS=preview: CI previews sign in as the stack's read-only preview
principal through the job's OIDC token, whatever the stack deploys with."""

from __future__ import annotations

import pytest

from providers.client.auth_type import AuthType
from providers.client.connection import Connection
from providers.client.errors import SignInFailed
from providers.client.sign_in import SIGN_IN_AS_ENV, acting

AZURE = {
    "base_url": "https://ws.example.com",
    "auth_url": "https://login.example.com",
    "tenant_id": "tenant",
    "client_id": "deployer",
    "client_secret": "deploy-secret",
    "resource": "platform-app",
    "azure_workspace_resource_id": "/subscriptions/s/resourceGroups/r/providers/x/workspaces/w",
}


def test_without_the_variable_the_connection_signs_in_as_it_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(SIGN_IN_AS_ENV, raising=False)
    connection = Connection(**AZURE, preview_client_id="previewer")
    assert acting(connection) is connection


def test_an_azure_stack_previews_by_federated_credential_without_its_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SIGN_IN_AS_ENV, "preview")
    previewing = acting(Connection(**AZURE, preview_client_id="previewer"))
    assert previewing.method is AuthType.GITHUB_OIDC_AZURE
    assert previewing.client_id == "previewer"
    assert previewing.tenant_id == "tenant" and previewing.resource == "platform-app"
    # nothing of the deploying principal's: no secret, no management token
    assert previewing.client_secret is None and previewing.azure_workspace_resource_id is None
    assert previewing.secret_values() == ()


def test_a_workspace_oauth_stack_previews_by_token_federation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SIGN_IN_AS_ENV, "preview")
    connection = Connection(
        base_url="https://ws.example.com", auth_type="oauth-m2m", client_id="deployer",
        client_secret="oauth-secret", preview_client_id="previewer",
    )
    previewing = acting(connection)
    assert previewing.method is AuthType.GITHUB_OIDC
    assert (previewing.client_id, previewing.client_secret) == ("previewer", None)


def test_a_stack_without_a_preview_principal_is_refused_naming_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SIGN_IN_AS_ENV, "preview")
    with pytest.raises(SignInFailed, match="set workspace:previewClientId") as refused:
        acting(Connection(**AZURE))
    assert "deploy-secret" not in str(refused.value)


def test_an_unknown_value_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SIGN_IN_AS_ENV, "deploy")
    with pytest.raises(SignInFailed, match="the only value is 'preview'"):
        acting(Connection(**AZURE, preview_client_id="previewer"))
