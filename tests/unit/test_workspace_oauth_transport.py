"""The workspace's own OAuth (oauth-m2m, github-oidc, a databricks-cli profile) goes through
the project's transport (issue 41, M11 and L14): the discovery document's token endpoint is
judged before any credential is sent, no redirect is followed, and a profile's credential
never goes to another host than the stack's workspace."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest
import responses

from providers.client.connection import Connection
from providers.client.errors import SignInFailed
from providers.client.sign_in import fetch
from tests.unit.client_support import BASE_URL, CLIENT_ID

pytestmark = pytest.mark.usefixtures("fresh_client_caches", "no_retry_sleep")

DISCOVERY = f"{BASE_URL}/oidc/.well-known/oauth-authorization-server"
OIDC_TOKEN = f"{BASE_URL}/oidc/v1/token"
ELSEWHERE_TOKEN = "https://collector.example.org/oidc/v1/token"
OAUTH_SECRET = "dose-oauth-secret-7e8f9a0b1c2d"
PAT = "dapi-profile-token-3c4d5e6f7a8b"
GH_REQUEST_URL = "https://pipelines.actions.example/idtoken?api-version=2.0"
GH_REQUEST_TOKEN = "gh-request-token-1a2b3c4d5e6f"
ID_TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZXBvOmFjbWUvaW5mcmEifQ.job-id-sig"


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(("DATABRICKS_", "ARM_", "AZURE_", "ACTIONS_ID_TOKEN_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(tmp_path / "no-databrickscfg"))


def m2m(**overrides: Any) -> Connection:
    values = {
        "base_url": BASE_URL,
        "auth_type": "oauth-m2m",
        "client_id": CLIENT_ID,
        "client_secret": OAUTH_SECRET,
    }
    return Connection(**(values | overrides))


def github_oidc(monkeypatch: pytest.MonkeyPatch, mocked: responses.RequestsMock) -> Connection:
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_URL", GH_REQUEST_URL)
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", GH_REQUEST_TOKEN)
    mocked.get(GH_REQUEST_URL.split("?")[0], json={"value": ID_TOKEN})
    return Connection(base_url=BASE_URL, auth_type="github-oidc", client_id=CLIENT_ID)


def discovery(mocked: responses.RequestsMock, token_endpoint: str) -> None:
    mocked.get(DISCOVERY, json={"issuer": f"{BASE_URL}/oidc", "token_endpoint": token_endpoint})


def sent_anywhere(mocked: responses.RequestsMock, *secrets: str) -> list[str]:
    """Each request (URL, headers, body) that carries one of `secrets`, in any spelling the
    transport could give it (as is, or in a Basic header)."""
    basic = base64.b64encode(f"{CLIENT_ID}:{OAUTH_SECRET}".encode()).decode()
    found: list[str] = []
    for call in mocked.calls:
        request = call.request
        body = request.body.decode() if isinstance(request.body, bytes) else request.body or ""
        text = f"{request.url} {dict(request.headers)} {body}"
        if any(s in text for s in (*secrets, basic)):
            found.append(str(request.url))
    return found


HOSTILE_ENDPOINTS = {
    "another-host": ELSEWHERE_TOKEN,
    "plain-http": f"http://{BASE_URL.removeprefix('https://')}/oidc/v1/token",
    "another-port": f"{BASE_URL}:8443/oidc/v1/token",
}


@pytest.mark.parametrize("endpoint", HOSTILE_ENDPOINTS.values(), ids=HOSTILE_ENDPOINTS.keys())
def test_oauth_m2m_refuses_a_token_endpoint_off_the_workspace_before_sending_the_secret(
    endpoint: str,
):
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        discovery(mocked, endpoint)
        elsewhere = mocked.post(endpoint, json={"access_token": "stolen", "expires_in": 3600})
        with pytest.raises(SignInFailed) as caught:
            fetch(m2m(), BASE_URL)
        assert elsewhere.call_count == 0
        assert [c.request.url for c in mocked.calls] == [DISCOVERY]
        assert sent_anywhere(mocked, OAUTH_SECRET) == []
    error = caught.value
    assert error.method == "oauth-m2m" and error.code == "TOKEN_ENDPOINT_REFUSED"
    assert "token_endpoint" in str(error) or "token endpoint" in str(error)
    assert OAUTH_SECRET not in str(error)


@pytest.mark.parametrize("endpoint", HOSTILE_ENDPOINTS.values(), ids=HOSTILE_ENDPOINTS.keys())
def test_github_oidc_refuses_a_token_endpoint_off_the_workspace_before_asking_for_the_job_token(
    monkeypatch: pytest.MonkeyPatch, endpoint: str
):
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        conn = github_oidc(monkeypatch, mocked)
        discovery(mocked, endpoint)
        elsewhere = mocked.post(endpoint, json={"access_token": "stolen", "expires_in": 3600})
        with pytest.raises(SignInFailed) as caught:
            fetch(conn, BASE_URL)
        assert elsewhere.call_count == 0
        # Not even GitHub was asked for an ID token with that audience.
        assert [c.request.url for c in mocked.calls] == [DISCOVERY]
    assert caught.value.method == "github-oidc"
    assert ID_TOKEN not in str(caught.value)


def test_an_identity_host_of_the_workspaces_cloud_is_accepted():
    base_url = "https://adb-1234567890123456.7.azuredatabricks.net"
    endpoint = "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token"
    with responses.RequestsMock() as mocked:
        mocked.get(
            f"{base_url}/oidc/.well-known/oauth-authorization-server",
            json={"token_endpoint": endpoint},
        )
        post = mocked.post(
            endpoint, json={"access_token": "t-1", "token_type": "Bearer", "expires_in": 3600}
        )
        token = fetch(m2m(base_url=base_url), base_url)
    assert post.call_count == 1 and token.value == "t-1"


def test_another_clouds_identity_host_is_refused():
    # login.microsoftonline.com answers for Azure workspaces only.
    endpoint = "https://login.microsoftonline.com/tenant-1/oauth2/v2.0/token"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        discovery(mocked, endpoint)
        post = mocked.post(endpoint, json={"access_token": "t-1", "expires_in": 3600})
        with pytest.raises(SignInFailed, match="not on the workspace's host"):
            fetch(m2m(), BASE_URL)
    assert post.call_count == 0


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_of_the_token_request_is_not_followed(status: int):
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        discovery(mocked, OIDC_TOKEN)
        token_post = mocked.post(OIDC_TOKEN, status=status, headers={"Location": ELSEWHERE_TOKEN})
        elsewhere = mocked.post(ELSEWHERE_TOKEN, json={"access_token": "x", "expires_in": 1})
        with pytest.raises(SignInFailed) as caught:
            fetch(m2m(), BASE_URL)
        assert token_post.call_count == 1 and elsewhere.call_count == 0
        assert sent_anywhere(mocked, OAUTH_SECRET) == [OIDC_TOKEN]
    assert caught.value.code == "REDIRECT_REFUSED"
    assert "collector.example.org" in str(caught.value)
    assert OAUTH_SECRET not in str(caught.value)


def test_a_redirect_of_the_discovery_document_is_not_followed():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        mocked.get(
            DISCOVERY, status=302, headers={"Location": "https://collector.example.org/discovery"}
        )
        other = mocked.get(
            "https://collector.example.org/discovery", json={"token_endpoint": ELSEWHERE_TOKEN}
        )
        with pytest.raises(SignInFailed) as caught:
            fetch(m2m(), BASE_URL)
        assert other.call_count == 0 and len(mocked.calls) == 1
    assert caught.value.code == "REDIRECT_REFUSED"


# --- databricks-cli ---------------------------------------------------------------------------


def profile_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str) -> None:
    config = tmp_path / "databrickscfg"
    config.write_text(text)
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(config))


def cli(profile: str | None = "ci") -> Connection:
    return Connection(base_url=BASE_URL, auth_type="databricks-cli", profile=profile)


@pytest.mark.parametrize(
    "host",
    [
        "https://elsewhere.example.net",
        "https://adb-123.example.net:8443",
        "http://adb-123.example.net",
    ],
)
def test_a_profile_for_another_host_is_refused_and_its_token_sent_nowhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, host: str
):
    profile_file(monkeypatch, tmp_path, f"[ci]\nhost = {host}\ntoken = {PAT}\n")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        with pytest.raises(SignInFailed) as caught:
            fetch(cli(), BASE_URL)
        assert len(mocked.calls) == 0
    message = str(caught.value)
    assert caught.value.method == "databricks-cli"
    assert "'ci'" in message and host.split("://")[1] in message and BASE_URL in message
    assert PAT not in message


def test_databricks_host_in_the_environment_for_another_host_is_refused(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("DATABRICKS_HOST", "https://elsewhere.example.net")
    monkeypatch.setenv("DATABRICKS_TOKEN", PAT)
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        with pytest.raises(SignInFailed, match="elsewhere.example.net"):
            fetch(cli(profile=None), BASE_URL)
        assert len(mocked.calls) == 0


def test_a_profiles_oauth_secret_goes_through_the_transport(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    profile_file(
        monkeypatch,
        tmp_path,
        f"[ci]\nhost = {BASE_URL}\nclient_id = {CLIENT_ID}\nclient_secret = {OAUTH_SECRET}\n",
    )
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        discovery(mocked, ELSEWHERE_TOKEN)
        elsewhere = mocked.post(ELSEWHERE_TOKEN, json={"access_token": "x", "expires_in": 1})
        with pytest.raises(SignInFailed, match="not on the workspace's host"):
            fetch(cli(), BASE_URL)
        assert elsewhere.call_count == 0 and sent_anywhere(mocked, OAUTH_SECRET) == []


def test_a_profiles_oauth_secret_signs_in_at_the_workspace(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    profile_file(
        monkeypatch,
        tmp_path,
        f"[ci]\nhost = {BASE_URL}\nclient_id = {CLIENT_ID}\nclient_secret = {OAUTH_SECRET}\n",
    )
    with responses.RequestsMock() as mocked:
        discovery(mocked, OIDC_TOKEN)
        post = mocked.post(
            OIDC_TOKEN,
            json={"access_token": "profile-m2m", "token_type": "Bearer", "expires_in": 3600},
        )
        token = fetch(cli(), BASE_URL)
    assert token.value == "profile-m2m" and post.call_count == 1


def test_a_profile_with_a_method_not_taken_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    profile_file(monkeypatch, tmp_path, f"[ci]\nhost = {BASE_URL}\nauth_type = env-oidc\n")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        with pytest.raises(SignInFailed, match="'env-oidc'"):
            fetch(cli(), BASE_URL)
        assert len(mocked.calls) == 0


def test_an_account_connection_finds_its_token_endpoint_at_the_account_s_discovery():
    """The account host's OAuth is per account: its discovery document is under
    /oidc/accounts/<account id>/, and its token endpoint is judged as a workspace's is."""
    host, account_id = "https://accounts.cloud.databricks.com", "8e2f4a6c-1b3d-4f5e"
    endpoint = f"{host}/oidc/accounts/{account_id}/v1/token"
    with responses.RequestsMock() as mocked:
        mocked.get(f"{host}/oidc/accounts/{account_id}/.well-known/oauth-authorization-server",
                   json={"token_endpoint": endpoint})
        post = mocked.post(
            endpoint, json={"access_token": "t-a", "token_type": "Bearer", "expires_in": 3600})
        token = fetch(m2m(base_url=host, account_id=account_id), host)
    assert post.call_count == 1 and token.value == "t-a"
