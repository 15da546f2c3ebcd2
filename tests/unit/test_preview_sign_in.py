"""WORKSPACE_SIGN_IN_AS=preview: CI previews sign in as the stack's read-only preview
principal through the job's OIDC token, whatever the stack deploys with."""

from __future__ import annotations

import pytest
import responses

from providers.client.auth_type import AuthType
from providers.client.connection import Connection
from providers.client.errors import SignInFailed
from providers.client.sign_in import SIGN_IN_AS_ENV, acting
from providers.client.workspace import (
    MANAGEMENT_TOKEN_HEADER,
    WORKSPACE_RESOURCE_ID_HEADER,
    client_for,
)

AZURE = {
    "base_url": "https://ws.example.com",
    "auth_url": "https://login.example.com",
    "tenant_id": "tenant",
    "client_id": "deployer",
    "client_secret": "deploy-secret",
    "resource": "2ff814a6-3304-4ab8-85cb-cd0e6f879c1d",
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
    assert previewing.tenant_id == "tenant" and previewing.resource == AZURE["resource"]
    # nothing of the deploying principal's: no secret, no management token
    assert previewing.client_secret is None and previewing.azure_workspace_resource_id is None
    assert previewing.secret_values() == ()


def test_a_workspace_oauth_stack_previews_by_token_federation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SIGN_IN_AS_ENV, "preview")
    connection = Connection(
        base_url="https://ws.example.com",
        auth_type="oauth-m2m",
        client_id="deployer",
        client_secret="oauth-secret",
        preview_client_id="previewer",
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


@pytest.mark.usefixtures("fresh_client_caches")
def test_a_preview_sends_no_management_token_so_it_never_admits_anyone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SIGN_IN_AS_ENV, "preview")
    monkeypatch.setenv("WORKSPACE_TOKEN_CACHE_DIR", "off")
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_URL", "https://github.example/idtoken?v=2")
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "request-token")
    connection = Connection(**AZURE, preview_client_id="previewer")
    me = f"{AZURE['base_url']}/api/2.0/preview/scim/v2/Me"
    with responses.RequestsMock() as mocked:
        mocked.get("https://github.example/idtoken", json={"value": "github-id-token"})
        token = mocked.post(
            f"{AZURE['auth_url']}/tenant/oauth2/token",
            json={"access_token": "preview-token", "token_type": "Bearer", "expires_in": "3599"},
        )
        call = mocked.get(me, json={"id": "7", "applicationId": "previewer"})
        client_for(connection).me()

    [token_call] = token.calls  # one token: the platform's, none for the management address
    assert "client_assertion=github-id-token" in str(token_call.request.body)
    assert "client_secret" not in str(token_call.request.body)
    headers = call.calls[0].request.headers
    assert headers["Authorization"] == "Bearer preview-token"
    assert MANAGEMENT_TOKEN_HEADER not in headers
    assert WORKSPACE_RESOURCE_ID_HEADER not in headers
