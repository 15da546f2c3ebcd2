"""Every sign-in method (providers/client/sign_in/) against `responses`: the requests each
one makes, its failures (none of which shows the credential), the management-token variant
and what the token cache keeps of each method's tokens.

The service's SDK (oauth-m2m, github-oidc, databricks-cli) reads DATABRICKS_* variables and
~/.databrickscfg: every test runs with none of them, nor any GitHub Actions or managed
identity variable, unless it sets one.
"""

from __future__ import annotations

import json
import os
import stat
import time
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
import responses
from responses import matchers

from providers.client.connection import Connection
from providers.client.errors import (
    IdentityError,
    InvalidClientCredentials,
    SignInFailed,
    Unauthenticated,
    WorkspaceError,
)
from providers.client.sign_in import fetch
from providers.client.sign_in.azure_client_secret import AZURE_FEDERATION_AUDIENCE
from providers.client.sign_in.azure_msi import IMDS_URL
from providers.client.token import TokenCache
from providers.client.token_request import JWT_BEARER_ASSERTION, MANAGEMENT_RESOURCE
from providers.client.token_store import CACHE_DIR_ENV, SUBDIRECTORY, SharedTokenStore
from providers.client.workspace import (
    MANAGEMENT_TOKEN_HEADER,
    WORKSPACE_RESOURCE_ID_HEADER,
    client_for,
)
from tests.unit.client_support import (
    AUTH_URL,
    BASE_URL,
    CLIENT_ID,
    CLIENT_SECRET,
    RESOURCE,
    TENANT,
    TOKEN_URL,
    connection,
    token_body,
)

pytestmark = pytest.mark.usefixtures("fresh_client_caches", "no_retry_sleep")

DISCOVERY = f"{BASE_URL}/oidc/.well-known/oauth-authorization-server"
OIDC_TOKEN = f"{BASE_URL}/oidc/v1/token"
CLUSTERS = f"{BASE_URL}/api/2.0/clusters/list"

OAUTH_SECRET = "dose-oauth-secret-0a1b2c3d4e5f"
PAT = "dapi-personal-token-5e6f7a8b9c0d"
GH_REQUEST_URL = "https://pipelines.actions.example/idtoken?api-version=2.0"
GH_REQUEST_TOKEN = "gh-request-token-9c8d7e6f5a4b"
ID_TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJyZXBvOmFjbWUvaW5mcmEifQ.github-id-sig"
IDENTITY_ENDPOINT = "http://127.0.0.1:41234/msi/token"
IDENTITY_HEADER = "identity-header-secret-1f2e3d4c"
WORKSPACE_RESOURCE_ID = (
    "/subscriptions/sub-1/resourceGroups/rg-1/providers/Microsoft.Databricks/workspaces/ws-1"
)
TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange"
JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt"

_FOREIGN_PREFIXES = ("DATABRICKS_", "ARM_", "AZURE_", "ACTIONS_ID_TOKEN_", "IDENTITY_", "MSI_")


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in list(os.environ):
        if name.startswith(_FOREIGN_PREFIXES):
            monkeypatch.delenv(name)
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(tmp_path / "no-databrickscfg"))


def assert_hidden(error: BaseException, *secrets: str) -> None:
    """None of `secrets` in anything the error shows."""
    shown = [str(error), repr(error), *map(str, error.args)]
    for secret in secrets:
        for text in shown:
            assert secret not in text, f"{secret!r} shown in {text!r}"


E = TypeVar("E", bound=WorkspaceError)


def failure(exc_type: type[E], call: Any, *args: Any) -> E:
    with pytest.raises(exc_type) as caught:
        call(*args)
    return caught.value


# --- the service's own OAuth (oauth-m2m, github-oidc) --------------------------------


def m2m(**overrides: Any) -> Connection:
    values: dict[str, Any] = {
        "base_url": BASE_URL,
        "auth_type": "oauth-m2m",
        "client_id": CLIENT_ID,
        "client_secret": OAUTH_SECRET,
    }
    return Connection(**(values | overrides))


def workspace_oidc(mocked: responses.RequestsMock) -> None:
    """The workspace's discovery document (nothing else is asked: no host metadata)."""
    mocked.get(
        DISCOVERY,
        json={
            "issuer": f"{BASE_URL}/oidc",
            "authorization_endpoint": f"{BASE_URL}/oidc/v1/authorize",
            "token_endpoint": OIDC_TOKEN,
        },
    )


def oauth_token(value: str, expires_in: int = 3600) -> dict[str, Any]:
    return {
        "access_token": value,
        "token_type": "Bearer",
        "expires_in": expires_in,
        "scope": "all-apis",
    }


def basic(client_id: str, secret: str) -> dict[str, str]:
    import base64

    encoded = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    return {"Authorization": f"Basic {encoded}"}


def test_oauth_m2m_discovers_the_token_endpoint_and_posts_the_secret_by_basic_auth():
    with responses.RequestsMock() as mocked:
        workspace_oidc(mocked)
        post = mocked.post(
            OIDC_TOKEN,
            json=oauth_token("m2m-token", 3600),
            match=[
                matchers.header_matcher(basic(CLIENT_ID, OAUTH_SECRET)),
                matchers.urlencoded_params_matcher(
                    {"grant_type": "client_credentials", "scope": "all-apis"}
                ),
            ],
        )
        started = time.time()
        token = fetch(m2m(), BASE_URL)

    assert post.call_count == 1
    assert token.value == "m2m-token" and token.resource == BASE_URL
    assert started + 3600 - 5 <= token.expires_on <= time.time() + 3600
    # The secret goes in the Authorization header only, never in the body or the URL.
    request = post.calls[0].request
    assert OAUTH_SECRET not in (request.body or "") and OAUTH_SECRET not in request.url


def test_oauth_m2m_wrong_secret_is_a_sign_in_failure_without_the_secret():
    refusal = {"error": "invalid_client", "error_description": "Client authentication failed"}
    with responses.RequestsMock() as mocked:
        workspace_oidc(mocked)
        mocked.post(OIDC_TOKEN, status=401, json=refusal)
        error = failure(SignInFailed, fetch, m2m(), BASE_URL)

    assert error.method == "oauth-m2m"
    assert "invalid_client" in str(error) and "Client authentication failed" in str(error)
    assert_hidden(error, OAUTH_SECRET, basic(CLIENT_ID, OAUTH_SECRET)["Authorization"][6:])


def test_oauth_m2m_an_expired_token_gets_one_fresh_token_then_the_error():
    with responses.RequestsMock() as mocked:
        workspace_oidc(mocked)
        first = mocked.post(OIDC_TOKEN, json=oauth_token("m2m-first"))
        second = mocked.post(OIDC_TOKEN, json=oauth_token("m2m-second"))
        expired = {"error_code": "UNAUTHENTICATED", "message": "Token expired"}
        calls = [
            mocked.get(
                CLUSTERS,
                status=401,
                json=expired,
                match=[matchers.header_matcher({"Authorization": f"Bearer {value}"})],
            )
            for value in ("m2m-first", "m2m-second")
        ]
        error = failure(Unauthenticated, client_for(m2m()).get, "/api/2.0/clusters/list")

    assert (first.call_count, second.call_count) == (1, 1)
    assert [c.call_count for c in calls] == [1, 1]
    assert error.status == 401 and "Token expired" in error.message
    assert_hidden(error, OAUTH_SECRET, "m2m-first", "m2m-second")


def github_actions_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_URL", GH_REQUEST_URL)
    monkeypatch.setenv("ACTIONS_ID_TOKEN_REQUEST_TOKEN", GH_REQUEST_TOKEN)


def id_token_request(mocked: responses.RequestsMock, audience: str, **answer: Any):
    """GitHub's ID-token endpoint: the request URL plus `&audience=`, the request token as
    a bearer token."""
    return mocked.get(
        GH_REQUEST_URL.split("?")[0],
        match=[
            matchers.query_param_matcher({"api-version": "2.0", "audience": audience}),
            matchers.header_matcher({"Authorization": f"Bearer {GH_REQUEST_TOKEN}"}),
        ],
        **({"json": {"value": ID_TOKEN}} | answer),
    )


def github_oidc() -> Connection:
    return Connection(base_url=BASE_URL, auth_type="github-oidc", client_id=CLIENT_ID)


def exchange_form() -> dict[str, str]:
    return {
        "grant_type": TOKEN_EXCHANGE,
        "subject_token": ID_TOKEN,
        "subject_token_type": JWT_TOKEN_TYPE,
        "scope": "all-apis",
        "client_id": CLIENT_ID,
    }


def test_github_oidc_exchanges_the_jobs_id_token_at_the_workspace(monkeypatch):
    github_actions_environment(monkeypatch)
    with responses.RequestsMock() as mocked:
        workspace_oidc(mocked)
        # The ID token is asked for the workspace's token endpoint as its audience.
        ids = id_token_request(mocked, OIDC_TOKEN)
        exchange = mocked.post(
            OIDC_TOKEN,
            json=oauth_token("federated-token", 3600),
            match=[matchers.urlencoded_params_matcher(exchange_form())],
        )
        token = fetch(github_oidc(), BASE_URL)

    assert token.value == "federated-token"
    assert token.expires_on == pytest.approx(time.time() + 3600, abs=10)
    assert ids.call_count >= 1
    # One sign-in, one token exchange: the token's value and its expiry are the same token's.
    assert exchange.call_count == 1
    assert "Authorization" not in exchange.calls[0].request.headers  # no secret: no Basic


def test_github_oidc_refused_federation_never_shows_the_id_token(monkeypatch):
    github_actions_environment(monkeypatch)
    refusal = {
        "error": "invalid_client",
        "error_description": "no federation policy matches the token's subject",
    }
    with responses.RequestsMock() as mocked:
        workspace_oidc(mocked)
        id_token_request(mocked, OIDC_TOKEN)
        exchange = mocked.post(OIDC_TOKEN, status=401, json=refusal)
        error = failure(SignInFailed, fetch, github_oidc(), BASE_URL)

    assert exchange.call_count == 1
    assert error.method == "github-oidc" and "federation policy" in str(error)
    assert_hidden(error, ID_TOKEN, GH_REQUEST_TOKEN)


@pytest.mark.parametrize(
    "missing", ["ACTIONS_ID_TOKEN_REQUEST_URL", "ACTIONS_ID_TOKEN_REQUEST_TOKEN"]
)
@pytest.mark.parametrize("method", ["github-oidc", "github-oidc-azure"])
def test_outside_a_github_job_the_failure_names_the_variable_and_the_permission(
    monkeypatch, method: str, missing: str
):
    github_actions_environment(monkeypatch)
    monkeypatch.delenv(missing)
    if method == "github-oidc":
        conn = github_oidc()
    else:
        conn = connection(auth_type=method, client_secret=None, wire_form="public")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        workspace_oidc(mocked)
        error = failure(SignInFailed, fetch, conn, RESOURCE)
        # Nothing goes to GitHub or to a token endpoint.
        assert not [c for c in mocked.calls if "token" in str(c.request.url)]

    assert error.method == method
    assert missing in str(error)
    assert "permissions: id-token: write" in str(error)
    assert_hidden(error, GH_REQUEST_TOKEN)


# --- the identity provider (azure-client-secret, github-oidc-azure) ------------------


def aad_form(resource: str = RESOURCE, secret: str = CLIENT_SECRET) -> dict[str, str]:
    return {
        "grant_type": "client_credentials",
        "client_id": CLIENT_ID,
        "resource": resource,
        "client_secret": secret,
    }


def aad_error(code: str, description: str, codes: list[int]) -> dict[str, Any]:
    return {
        "error": code,
        "error_description": description,
        "error_codes": codes,
        "timestamp": "2026-11-22 01:05:22Z",
        "trace_id": "t",
        "correlation_id": "c",
    }


def test_azure_client_secret_posts_the_secret_in_the_form():
    with responses.RequestsMock() as mocked:
        post = mocked.post(
            TOKEN_URL,
            json=token_body("aad-token"),
            match=[
                matchers.urlencoded_params_matcher(aad_form()),
                matchers.query_string_matcher(""),
            ],
        )
        token = fetch(connection(wire_form="public"), RESOURCE)
    assert post.call_count == 1 and token.value == "aad-token"


def test_azure_client_secret_wrong_secret_names_the_principal_but_not_the_secret():
    body = aad_error(
        "invalid_client",
        f"AADSTS7000215: Invalid client secret provided: {CLIENT_SECRET[:4]}...",
        [7000215],
    )
    with responses.RequestsMock() as mocked:
        mocked.post(TOKEN_URL, status=401, json=body)
        error = failure(InvalidClientCredentials, fetch, connection(wire_form="public"), RESOURCE)
    assert error.code == "invalid_client" and "AADSTS7000215" in error.message
    assert CLIENT_ID in error.message and TENANT in error.message
    assert_hidden(error, CLIENT_SECRET)


@pytest.mark.parametrize("method", ["azure-client-secret", "github-oidc-azure"])
def test_an_unknown_tenant_is_an_identity_error_naming_it(monkeypatch, method: str):
    github_actions_environment(monkeypatch)
    unknown = "tenant-unknown"
    description = (
        f"AADSTS90002: Tenant '{unknown}' not found. Check to make sure you have "
        "the correct tenant ID.\r\nTrace ID: t"
    )
    secret = CLIENT_SECRET if method == "azure-client-secret" else None
    conn = connection(auth_type=method, client_secret=secret, tenant_id=unknown, wire_form="public")
    with responses.RequestsMock() as mocked:
        if method == "github-oidc-azure":
            id_token_request(mocked, AZURE_FEDERATION_AUDIENCE)
        mocked.post(
            f"{AUTH_URL}/{unknown}/oauth2/token",
            status=400,
            json=aad_error("invalid_request", description, [90002]),
        )
        error = failure(IdentityError, fetch, conn, RESOURCE)

    assert not isinstance(error, InvalidClientCredentials)
    assert error.status == 400 and "AADSTS90002" in error.message and unknown in error.message
    assert "Trace ID" not in error.message  # the first line only
    assert_hidden(error, CLIENT_SECRET, ID_TOKEN, GH_REQUEST_TOKEN)


def github_oidc_azure(**overrides: Any) -> Connection:
    return connection(
        auth_type="github-oidc-azure", client_secret=None, wire_form="public", **overrides
    )


def test_github_oidc_azure_presents_the_id_token_as_a_client_assertion(monkeypatch):
    github_actions_environment(monkeypatch)
    form = {
        "grant_type": "client_credentials",
        "client_id": CLIENT_ID,
        "resource": RESOURCE,
        "client_assertion_type": JWT_BEARER_ASSERTION,
        "client_assertion": ID_TOKEN,
    }
    with responses.RequestsMock() as mocked:
        ids = id_token_request(mocked, AZURE_FEDERATION_AUDIENCE)
        post = mocked.post(
            TOKEN_URL,
            json=token_body("assertion-token"),
            match=[matchers.urlencoded_params_matcher(form)],
        )
        token = fetch(github_oidc_azure(), RESOURCE)

    assert (ids.call_count, post.call_count) == (1, 1)
    assert token.value == "assertion-token"
    assert "client_secret" not in post.calls[0].request.body


def test_github_oidc_azure_refused_assertion_never_shows_it(monkeypatch):
    github_actions_environment(monkeypatch)
    # An identity provider that quotes the assertion back: it is redacted all the same.
    description = (
        f"AADSTS70021: No matching federated identity record found for presented "
        f"assertion {ID_TOKEN}."
    )
    with responses.RequestsMock() as mocked:
        id_token_request(mocked, AZURE_FEDERATION_AUDIENCE)
        mocked.post(TOKEN_URL, status=400, json=aad_error("invalid_request", description, [70021]))
        error = failure(IdentityError, fetch, github_oidc_azure(), RESOURCE)

    assert "AADSTS70021" in error.message
    assert_hidden(error, ID_TOKEN, GH_REQUEST_TOKEN)


def test_github_oidc_azure_without_an_id_token_from_github(monkeypatch):
    github_actions_environment(monkeypatch)
    with responses.RequestsMock() as mocked:
        id_token_request(
            mocked,
            AZURE_FEDERATION_AUDIENCE,
            status=403,
            json={"message": "Resource not accessible by integration"},
        )
        error = failure(SignInFailed, fetch, github_oidc_azure(), RESOURCE)
        github = GH_REQUEST_URL.split("?")[0]
        assert all(str(c.request.url).startswith(github) for c in mocked.calls)
    assert error.method == "github-oidc-azure"
    assert AZURE_FEDERATION_AUDIENCE in str(error)
    assert_hidden(error, GH_REQUEST_TOKEN)


# --- managed identities (azure-msi) ---------------------------------------------------


def msi(**overrides: Any) -> Connection:
    values: dict[str, Any] = {
        "base_url": BASE_URL,
        "auth_type": "azure-msi",
        "resource": RESOURCE,
        "max_attempts": 2,
    }
    return Connection(**(values | overrides))


def app_service_environment(
    monkeypatch: pytest.MonkeyPatch, endpoint: str = IDENTITY_ENDPOINT
) -> None:
    monkeypatch.setenv("IDENTITY_ENDPOINT", endpoint)
    monkeypatch.setenv("IDENTITY_HEADER", IDENTITY_HEADER)


def msi_answer(value: str, resource: str = RESOURCE) -> dict[str, str]:
    # App Service answers with `expires_on` only (epoch seconds as text).
    return {
        "access_token": value,
        "expires_on": "1900000000",
        "resource": resource,
        "token_type": "Bearer",
    }


@pytest.mark.parametrize("client_id", [None, "user-assigned-identity-1"])
def test_app_service_endpoint_with_the_identity_header(monkeypatch, client_id: str | None):
    app_service_environment(monkeypatch)
    query = {"api-version": "2019-08-01", "resource": RESOURCE}
    if client_id:
        query["client_id"] = client_id  # a user-assigned identity, by its client id
    with responses.RequestsMock() as mocked:
        get = mocked.get(
            IDENTITY_ENDPOINT,
            json=msi_answer("msi-token"),
            match=[
                matchers.query_param_matcher(query),
                matchers.header_matcher({"X-IDENTITY-HEADER": IDENTITY_HEADER}),
            ],
        )
        token = fetch(msi(client_id=client_id), RESOURCE)

    assert get.call_count == 1
    assert "Metadata" not in get.calls[0].request.headers
    assert (token.value, token.expires_on) == ("msi-token", 1_900_000_000.0)


@pytest.mark.parametrize("client_id", [None, "user-assigned-identity-1"])
@pytest.mark.parametrize(
    "partial",
    [{}, {"IDENTITY_ENDPOINT": IDENTITY_ENDPOINT}],
    ids=["no-env", "endpoint-without-header"],
)
def test_imds_endpoint_with_the_metadata_header(monkeypatch, client_id, partial):
    for name, value in partial.items():
        monkeypatch.setenv(name, value)
    query = {"api-version": "2018-02-01", "resource": RESOURCE}
    if client_id:
        query["client_id"] = client_id
    with responses.RequestsMock() as mocked:
        get = mocked.get(
            IMDS_URL,
            json={
                "access_token": "imds-token",
                "expires_in": "3599",
                "token_type": "Bearer",
                "resource": RESOURCE,
            },
            match=[
                matchers.query_param_matcher(query),
                matchers.header_matcher({"Metadata": "true"}),
            ],
        )
        token = fetch(msi(client_id=client_id), RESOURCE)

    assert get.call_count == 1
    assert "X-IDENTITY-HEADER" not in get.calls[0].request.headers
    assert token.value == "imds-token"
    assert token.expires_on == pytest.approx(time.time() + 3599, abs=10)


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://identity.attacker.example/msi/token",
        "https://10.0.0.4/msi/token",
        "http://localhost.attacker.example:41234/msi/token",
    ],
)
def test_an_identity_endpoint_off_the_machine_is_refused_before_any_request(
    monkeypatch, endpoint: str
):
    app_service_environment(monkeypatch, endpoint)
    with responses.RequestsMock() as mocked:
        error = failure(SignInFailed, fetch, msi(), RESOURCE)
        assert len(mocked.calls) == 0
    assert error.code == "MANAGED_IDENTITY" and "IDENTITY_ENDPOINT" in str(error)
    assert_hidden(error, IDENTITY_HEADER)


@pytest.mark.parametrize(
    ("status", "body", "words", "attempts"),
    [
        (
            400,
            {
                "statusCode": 400,
                "message": f"Unable to load the proper Managed Identity. "
                f"Header {IDENTITY_HEADER} not valid",
            },
            "Unable to load the proper Managed Identity",
            1,
        ),
        (
            400,
            {"error": "invalid_request", "error_description": "Identity not found"},
            "Identity not found",
            1,
        ),
        (
            500,
            {
                "statusCode": 500,
                "message": "An unexpected error occured while fetching the AAD Token.",
            },
            "unexpected error",
            2,
        ),
    ],
)
def test_managed_identity_endpoint_errors_never_show_the_identity_header(
    monkeypatch, status, body, words, attempts
):
    app_service_environment(monkeypatch)
    with responses.RequestsMock() as mocked:
        get = mocked.get(IDENTITY_ENDPOINT, status=status, json=body)
        error = failure(WorkspaceError, fetch, msi(), RESOURCE)
    assert get.call_count == attempts  # a 5xx is retried (max_attempts=2), a 400 is not
    assert error.status == status and words in error.message
    assert_hidden(error, IDENTITY_HEADER)


def test_an_unusable_managed_identity_answer_is_a_sign_in_failure(monkeypatch):
    app_service_environment(monkeypatch)
    with responses.RequestsMock() as mocked:
        mocked.get(IDENTITY_ENDPOINT, json={"access_token": "leaky", "token_type": "Bearer"})
        error = failure(SignInFailed, fetch, msi(), RESOURCE)
    assert error.code == "MANAGED_IDENTITY" and "expires" in error.message
    assert_hidden(error, IDENTITY_HEADER, "leaky")


# --- pat, databricks-cli ----------------------------------------------------------------


def pat() -> Connection:
    return Connection(base_url=BASE_URL, auth_type="pat", token=PAT)


def test_pat_makes_no_request_and_is_sent_as_the_bearer_token():
    with responses.RequestsMock() as mocked:
        token = fetch(pat(), BASE_URL)
        assert len(mocked.calls) == 0
        listed = mocked.get(
            CLUSTERS,
            json={"clusters": []},
            match=[matchers.header_matcher({"Authorization": f"Bearer {PAT}"})],
        )
        assert client_for(pat()).get("/api/2.0/clusters/list") == {"clusters": []}
        assert listed.call_count == 1 and len(mocked.calls) == 1
    assert token.value == PAT and token.expires_on == float("inf")


def test_a_revoked_pat_is_retried_once_then_fails_without_the_token():
    revoked = {"error_code": "UNAUTHENTICATED", "message": "Invalid access token."}
    with responses.RequestsMock() as mocked:
        get = mocked.get(CLUSTERS, status=401, json=revoked)
        error = failure(Unauthenticated, client_for(pat()).get, "/api/2.0/clusters/list")
        assert get.call_count == 2 and len(mocked.calls) == 2
    assert "Invalid access token" in error.message
    assert_hidden(error, PAT)


def test_databricks_cli_takes_the_profiles_token_for_the_stacks_workspace(monkeypatch, tmp_path):
    config = tmp_path / "databrickscfg"
    config.write_text(f"[ci]\nhost = {BASE_URL}/\ntoken = {PAT}\n")
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(config))
    conn = Connection(base_url=BASE_URL, auth_type="databricks-cli", profile="ci")
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        workspace_oidc(mocked)
        token = fetch(conn, BASE_URL)
        # Nothing is asked: the profile's token is the credential.
        assert len(mocked.calls) == 0
    assert token.value == PAT and token.expires_on == float("inf")


def test_databricks_cli_with_an_unknown_profile_names_it(monkeypatch, tmp_path):
    config = tmp_path / "databrickscfg"
    config.write_text(f"[ci]\nhost = {BASE_URL}\ntoken = {PAT}\n")
    monkeypatch.setenv("DATABRICKS_CONFIG_FILE", str(config))
    conn = Connection(base_url=BASE_URL, auth_type="databricks-cli", profile="deploy")
    with responses.RequestsMock(assert_all_requests_are_fired=False):
        error = failure(SignInFailed, fetch, conn, BASE_URL)
    assert error.method == "databricks-cli" and "deploy" in str(error)
    assert_hidden(error, PAT)


# --- azure-cli ----------------------------------------------------------------------------

FAKE_AZ = """#!/bin/sh
echo "$*" >> "$AZ_LOG"
if [ "$1 $2" = "account show" ]; then
  printf '{"user": {"name": "someone@example.com", "type": "user"}}'
  exit 0
fi
if [ -n "$AZ_OUTPUT" ]; then
  printf '%s' "$AZ_OUTPUT"
  exit 0
fi
if [ -n "$AZ_FAIL" ]; then
  echo "$AZ_FAIL" >&2
  exit 1
fi
resource=""
previous=""
for arg in "$@"; do
  if [ "$previous" = "--resource" ]; then resource="$arg"; fi
  previous="$arg"
done
if [ "$resource" = "https://management.core.windows.net/" ]; then
  value="cli-management-token"
else
  value="cli-platform-token"
fi
expires="2031-01-02 03:04:05.000000"
printf '{"accessToken": "%s", "expiresOn": "%s", "tokenType": "Bearer"}' "$value" "$expires"
"""


@pytest.fixture
def fake_az(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An `az` on PATH (the only thing on it) that logs its arguments to the returned file."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "az"
    script.write_text(FAKE_AZ)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    log = tmp_path / "az.log"
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("AZ_LOG", str(log))
    return log


def azure_cli(**overrides: Any) -> Connection:
    values: dict[str, Any] = {"base_url": BASE_URL, "auth_type": "azure-cli", "resource": RESOURCE}
    return Connection(**(values | overrides))


def test_azure_cli_runs_az_for_the_resource_and_tenant(fake_az: Path):
    with responses.RequestsMock() as mocked:
        token = fetch(azure_cli(tenant_id=TENANT), RESOURCE)
        assert len(mocked.calls) == 0
    invocations = fake_az.read_text().splitlines()
    assert f"account get-access-token --resource {RESOURCE} --output json --tenant {TENANT}" in (
        invocations
    )
    assert token.value == "cli-platform-token"
    assert token.expires_on == datetime(2031, 1, 2, 3, 4, 5).timestamp()


def test_azure_cli_without_a_tenant_asks_az_for_its_default(fake_az: Path):
    fetch(azure_cli(), RESOURCE)
    assert fake_az.read_text().splitlines() == [
        f"account get-access-token --resource {RESOURCE} --output json"
    ]


def test_azure_cli_signed_out_says_az_login(fake_az: Path, monkeypatch):
    monkeypatch.setenv("AZ_FAIL", "ERROR: Please run 'az login' to setup account.")
    error = failure(SignInFailed, fetch, azure_cli(), RESOURCE)
    assert error.method == "azure-cli" and "Please run 'az login'" in str(error)


@pytest.mark.parametrize(
    ("output", "words"),
    [
        ('{"accessToken": "cli-token", "tokenType": "Bearer"}', "'expiresOn'"),
        ("Please run az login", "cannot unmarshal"),
    ],
)
def test_azure_cli_answer_that_cannot_be_read_is_a_sign_in_failure(
    fake_az: Path, monkeypatch, output: str, words: str
):
    monkeypatch.setenv("AZ_OUTPUT", output)
    error = failure(SignInFailed, fetch, azure_cli(), RESOURCE)
    assert error.code == "AZURE_CLI" and words in str(error)
    assert_hidden(error, "cli-token")


@pytest.mark.parametrize("tenant", [None, TENANT])
def test_azure_cli_not_installed(monkeypatch, tmp_path: Path, tenant: str | None):
    empty = tmp_path / "empty"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    error = failure(SignInFailed, fetch, azure_cli(tenant_id=tenant), RESOURCE)
    assert error.code == "AZURE_CLI"
    assert "not on PATH" in str(error) and "az login" in str(error)


# --- the management-token variant ---------------------------------------------------------


AZURE_BASE_URL = "https://adb-123.7.azuredatabricks.net"
AZURE_CLUSTERS = f"{AZURE_BASE_URL}/api/2.0/clusters/list"
NOT_A_MEMBER = {"error_code": "UNAUTHENTICATED", "message": "User not authorized."}


def admitting(**overrides: Any) -> Connection:
    values = {
        "base_url": AZURE_BASE_URL,
        "wire_form": "public",
        "azure_workspace_resource_id": WORKSPACE_RESOURCE_ID,
    }
    return connection(**(values | overrides))


def test_the_management_headers_go_only_on_the_call_that_admits_the_principal():
    with responses.RequestsMock() as mocked:
        platform = [
            mocked.post(
                TOKEN_URL,
                json=token_body(f"platform-{n}"),
                match=[matchers.urlencoded_params_matcher(aad_form())],
            )
            for n in (1, 2)
        ]
        management = mocked.post(
            TOKEN_URL,
            json=token_body("management-1", resource=MANAGEMENT_RESOURCE),
            match=[matchers.urlencoded_params_matcher(aad_form(MANAGEMENT_RESOURCE))],
        )
        # Not a member yet: refused without the headers, then admitted with them.
        refused = mocked.get(AZURE_CLUSTERS, status=401, json=NOT_A_MEMBER)
        admitted = mocked.get(
            AZURE_CLUSTERS,
            json={"clusters": []},
            match=[
                matchers.header_matcher(
                    {
                        "Authorization": "Bearer platform-2",
                        MANAGEMENT_TOKEN_HEADER: "management-1",
                        WORKSPACE_RESOURCE_ID_HEADER: WORKSPACE_RESOURCE_ID,
                    }
                )
            ],
        )
        client = client_for(admitting())
        client.get("/api/2.0/clusters/list")
        mocked.remove(admitted)
        member = mocked.get(AZURE_CLUSTERS, json={"clusters": []})
        client.get("/api/2.0/clusters/list")
        sent = [c.request.headers for c in mocked.calls if c.request.url == AZURE_CLUSTERS]

    assert [p.call_count for p in platform] == [1, 1] and management.call_count == 1
    assert (refused.call_count, member.call_count) == (1, 1)
    # Only the admitting call (the second of three) carried them.
    assert [MANAGEMENT_TOKEN_HEADER in h for h in sent] == [False, True, False]
    assert [WORKSPACE_RESOURCE_ID_HEADER in h for h in sent] == [False, True, False]


@pytest.mark.parametrize(
    "base_url", ["https://adb-123.example.net", "https://azuredatabricks.net.example.org"]
)
def test_the_management_token_is_never_sent_to_a_host_that_is_no_azure_workspace(base_url: str):
    clusters = f"{base_url}/api/2.0/clusters/list"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        tokens_asked = mocked.post(TOKEN_URL, json=token_body("platform-1"))
        calls = mocked.get(clusters, status=401, json=NOT_A_MEMBER)
        error = failure(
            Unauthenticated, client_for(admitting(base_url=base_url)).get, "/api/2.0/clusters/list"
        )
        bodies = [str(c.request.body) for c in mocked.calls if c.request.url == TOKEN_URL]

    assert calls.call_count == 2 and error.status == 401
    for call in calls.calls:
        assert MANAGEMENT_TOKEN_HEADER not in call.request.headers
        assert WORKSPACE_RESOURCE_ID_HEADER not in call.request.headers
    # Not even fetched.
    assert tokens_asked.call_count == 2
    assert not [b for b in bodies if "management.core.windows.net" in b]


def test_a_second_401_with_the_management_token_is_the_error_without_any_token():
    conn = admitting()
    with responses.RequestsMock() as mocked:
        for n in (1, 2):
            mocked.post(
                TOKEN_URL,
                json=token_body(f"platform-{n}"),
                match=[matchers.urlencoded_params_matcher(aad_form())],
            )
        mocked.post(
            TOKEN_URL,
            json=token_body("management-1"),
            match=[matchers.urlencoded_params_matcher(aad_form(MANAGEMENT_RESOURCE))],
        )
        refused = mocked.get(
            AZURE_CLUSTERS,
            status=401,
            json={
                "error_code": "UNAUTHENTICATED",
                "message": "User not authorized: management token management-1 refused.",
            },
        )
        error = failure(Unauthenticated, client_for(conn).get, "/api/2.0/clusters/list")

    assert refused.call_count == 2
    assert_hidden(error, CLIENT_SECRET, "platform-1", "platform-2", "management-1")


@pytest.mark.parametrize("method", ["azure-client-secret", "azure-msi", "azure-cli"])
def test_without_a_workspace_resource_id_neither_header_is_sent(monkeypatch, method, fake_az):
    app_service_environment(monkeypatch)
    conn = {
        "azure-client-secret": connection(wire_form="public"),
        "azure-msi": msi(),
        "azure-cli": azure_cli(),
    }[method]
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        mocked.post(TOKEN_URL, json=token_body("platform-1"))
        mocked.get(IDENTITY_ENDPOINT, json=msi_answer("platform-1"))
        listed = mocked.get(CLUSTERS, json={"clusters": []})
        client_for(conn).get("/api/2.0/clusters/list")
        resources = [
            c.request.params.get("resource")  # type: ignore[attr-defined]
            or c.request.body
            for c in mocked.calls
            if str(c.request.url).split("?")[0] != CLUSTERS
        ]

    headers = listed.calls[0].request.headers
    assert headers["Authorization"].startswith("Bearer ")
    assert MANAGEMENT_TOKEN_HEADER not in headers and WORKSPACE_RESOURCE_ID_HEADER not in headers
    # One token, for the platform: no management token is asked for.
    asked = json.dumps(resources) + (fake_az.read_text() if fake_az.exists() else "")
    assert RESOURCE in asked and "management.core.windows.net" not in asked


@pytest.mark.parametrize("method", ["azure-msi", "azure-cli"])
def test_secretless_azure_methods_fetch_the_management_token_too(monkeypatch, method, fake_az):
    app_service_environment(monkeypatch)
    conn = (msi if method == "azure-msi" else azure_cli)(
        base_url=AZURE_BASE_URL, azure_workspace_resource_id=WORKSPACE_RESOURCE_ID
    )
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        for resource, value in (
            (RESOURCE, "cli-platform-token"),
            (MANAGEMENT_RESOURCE, "cli-management-token"),
        ):
            mocked.get(
                IDENTITY_ENDPOINT,
                json=msi_answer(value, resource),
                match=[
                    matchers.query_param_matcher(
                        {"api-version": "2019-08-01", "resource": resource}
                    )
                ],
            )
        refused = mocked.get(
            AZURE_CLUSTERS,
            status=401,
            json=NOT_A_MEMBER,
            match=[matchers.header_matcher({"Authorization": "Bearer cli-platform-token"})],
        )
        listed = mocked.get(
            AZURE_CLUSTERS,
            json={},
            match=[
                matchers.header_matcher(
                    {
                        "Authorization": "Bearer cli-platform-token",
                        MANAGEMENT_TOKEN_HEADER: "cli-management-token",
                        WORKSPACE_RESOURCE_ID_HEADER: WORKSPACE_RESOURCE_ID,
                    }
                )
            ],
        )
        client_for(conn).get("/api/2.0/clusters/list")
    assert (refused.call_count, listed.call_count) == (1, 1)
    assert MANAGEMENT_TOKEN_HEADER not in refused.calls[0].request.headers


# --- the token cache ------------------------------------------------------------------------


@pytest.fixture()
def token_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "tokens"))
    return tmp_path / "tokens" / SUBDIRECTORY


def stored_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("*.token")) if directory.exists() else []


def test_two_secrets_of_one_principal_get_tokens_of_their_own(token_dir: Path):
    cache = TokenCache(store=SharedTokenStore())
    right = connection(wire_form="public")
    other = connection(wire_form="public", client_secret="another-secret-of-client-1")
    with responses.RequestsMock() as mocked:
        first = mocked.post(
            TOKEN_URL,
            json=token_body("token-of-the-first-secret"),
            match=[matchers.urlencoded_params_matcher(aad_form())],
        )
        second = mocked.post(
            TOKEN_URL,
            json=token_body("token-of-the-second-secret"),
            match=[
                matchers.urlencoded_params_matcher(aad_form(secret="another-secret-of-client-1"))
            ],
        )
        assert cache.get(right).value == "token-of-the-first-secret"
        assert cache.get(other).value == "token-of-the-second-secret"
        assert cache.get(right).value == "token-of-the-first-secret"
        # Another process (its own cache, the same store) sees the same split.
        again = TokenCache(store=SharedTokenStore())
        assert again.get(other).value == "token-of-the-second-secret"
    assert (first.call_count, second.call_count) == (1, 1)
    assert TokenCache.key(right) != TokenCache.key(other)
    assert all(CLIENT_SECRET not in part for part in TokenCache.key(right))


def test_two_oauth_secrets_of_one_principal_get_tokens_of_their_own():
    cache = TokenCache()
    with responses.RequestsMock() as mocked:
        workspace_oidc(mocked)
        for secret in (OAUTH_SECRET, "dose-second-secret-7788"):
            mocked.post(
                OIDC_TOKEN,
                json=oauth_token(f"for-{secret}"),
                match=[matchers.header_matcher(basic(CLIENT_ID, secret))],
            )
        assert cache.get(m2m()).value == f"for-{OAUTH_SECRET}"
        assert cache.get(m2m(client_secret="dose-second-secret-7788")).value == (
            "for-dose-second-secret-7788"
        )
        assert cache.get(m2m()).value == f"for-{OAUTH_SECRET}"
        assert len([c for c in mocked.calls if c.request.method == "POST"]) == 2


def test_a_method_with_a_secret_shares_its_token_through_the_store(token_dir: Path):
    with responses.RequestsMock() as mocked:
        mocked.post(TOKEN_URL, json=token_body("shared"))
        TokenCache(store=SharedTokenStore()).get(connection(wire_form="public"))
    [record] = stored_files(token_dir)
    assert b"shared" not in record.read_bytes()


@pytest.mark.parametrize("method", ["azure-msi", "github-oidc", "pat"])
def test_a_method_without_a_secret_of_its_own_writes_nothing_to_the_store(
    monkeypatch, token_dir: Path, method: str
):
    app_service_environment(monkeypatch)
    github_actions_environment(monkeypatch)
    conn = {"azure-msi": msi(), "github-oidc": github_oidc(), "pat": pat()}[method]
    cache = TokenCache(store=SharedTokenStore())
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        mocked.get(IDENTITY_ENDPOINT, json=msi_answer("msi-token"))
        workspace_oidc(mocked)
        id_token_request(mocked, OIDC_TOKEN)
        mocked.post(OIDC_TOKEN, json=oauth_token("federated-token"))
        token = cache.get(conn)
        assert cache.get(conn) == token  # kept in memory all the same
        requests_made = len(mocked.calls)
        cache.get(conn)
        assert len(mocked.calls) == requests_made
    assert stored_files(token_dir) == []
    # A second process has no token to read: it signs in on its own.
    assert TokenCache(store=SharedTokenStore())._from_store(TokenCache.key(conn), conn) is None
