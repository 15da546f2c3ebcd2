"""Every request that carries a secret in its body has it removed from the error the call
raises, whatever the service echoes (issue 41, L15): the client finds the secret fields of
the body itself, so no area has to remember to pass them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import responses

from providers.client.connection import Connection
from providers.client.errors import WorkspaceError
from providers.client.workspace import WorkspaceClient, secrets_in_body
from providers.secrets.secrets_api import SecretsApi
from providers.unity_catalog.credentials_api import CredentialsApi
from providers.unity_catalog.storage_credentials_api import StorageCredentialsApi
from providers.workspace.git_credentials_api import GitCredentialsApi

pytestmark = pytest.mark.usefixtures("fresh_client_caches", "no_retry_sleep")

BASE_URL = "https://adb-123.example.net"
SECRET = "s3cr3t-Value-8f7e6d5c4b3a"
SP = {"directory_id": "d-1", "application_id": "a-1", "client_secret": SECRET}

# (what is called, its method and path): each request whose body holds SECRET.
CALLS: dict[str, tuple[Callable[[WorkspaceClient], Any], str, str]] = {
    "git credential create": (
        lambda c: GitCredentialsApi(c).create(
            {"git_provider": "gitHub", "git_username": "u", "personal_access_token": SECRET}
        ),
        "POST",
        "/api/2.0/git-credentials",
    ),
    "git credential update": (
        lambda c: GitCredentialsApi(c).update(
            "7", {"git_provider": "gitHub", "personal_access_token": SECRET}
        ),
        "PATCH",
        "/api/2.0/git-credentials/7",
    ),
    "service credential create": (
        lambda c: CredentialsApi(c).create(
            {"name": "c", "purpose": "SERVICE", "azure_service_principal": SP}
        ),
        "POST",
        "/api/2.1/unity-catalog/credentials",
    ),
    "credential update": (
        lambda c: CredentialsApi(c).update("c", {"azure_service_principal": SP}),
        "PATCH",
        "/api/2.1/unity-catalog/credentials/c",
    ),
    "storage credential create": (
        lambda c: StorageCredentialsApi(c).create({"name": "s", "azure_service_principal": SP}),
        "POST",
        "/api/2.1/unity-catalog/storage-credentials",
    ),
    "storage credential update": (
        lambda c: StorageCredentialsApi(c).update("s", {"azure_service_principal": SP}),
        "PATCH",
        "/api/2.1/unity-catalog/storage-credentials/s",
    ),
    "secret put (string)": (
        lambda c: SecretsApi(c).put("scope", "key", string_value=SECRET),
        "POST",
        "/api/2.0/secrets/put",
    ),
    "secret put (bytes)": (
        lambda c: SecretsApi(c).put("scope", "key", bytes_value=SECRET),
        "POST",
        "/api/2.0/secrets/put",
    ),
}

ECHOES = {
    "json": {"json": {"error_code": "INVALID_PARAMETER_VALUE", "message": f"bad value {SECRET}"}},
    "text": {"body": f"<html>rejected: {SECRET}</html>", "content_type": "text/html"},
    "code": {"json": {"error_code": f"BAD_{SECRET}", "message": "no"}},
}


@pytest.mark.parametrize("echo", ECHOES.values(), ids=ECHOES.keys())
@pytest.mark.parametrize("call", CALLS.values(), ids=CALLS.keys())
def test_an_error_echoing_the_bodys_secret_never_shows_it(call: Any, echo: dict[str, Any]):
    act, method, path = call
    client = WorkspaceClient(Connection(base_url=BASE_URL, auth_type="pat", token="dapi-t-1"))
    with responses.RequestsMock() as mocked:
        answer = mocked.add(method, BASE_URL + path, status=400, **echo)
        with pytest.raises(WorkspaceError) as caught:
            act(client)
        assert answer.call_count == 1
        assert SECRET in str(answer.calls[0].request.body)  # it was sent
    shown = [str(caught.value), repr(caught.value), caught.value.message, caught.value.code]
    for text in shown:
        assert SECRET not in text, text
    assert "***" in str(caught.value)


def test_the_secret_fields_are_found_at_any_depth_and_nothing_else():
    body = {
        "name": "n",
        "azure_service_principal": {"client_secret": "a", "application_id": "not-secret"},
        "items": [{"password": "b"}, {"string_value": ""}],
        "personal_access_token": "c",
        "token_type": "not-secret",
    }
    assert sorted(secrets_in_body(body)) == ["a", "b", "c"]
