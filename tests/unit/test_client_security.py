"""The client's security guarantees (issue 31; docs/RELIABILITY.md, "Security"): no redirect
is followed, no secret travels in a URL beyond loopback, error text is redacted before it is
cut and in every spelling of a secret, skewed clocks cost no extra tokens, throttling 500s
are uncertain outcomes, only literal loopback is loopback, and the token cache stays private
and pruned."""

from __future__ import annotations

import base64
import fnmatch
import json
import os
import re
import stat
import time
from pathlib import Path
from urllib.parse import quote, quote_plus

import pytest
import requests
import responses
import yaml

from providers.client.connection import InsecureUrlError, is_loopback_host, require_secure_url
from providers.client.errors import (
    RedirectRefused,
    WorkspaceError,
    WorkspaceUnreachable,
    error_from_response,
    redact_text,
)
from providers.client.token import TokenCache
from providers.client.token_request import fetch_token, parse_token_response
from providers.client.token_store import CACHE_DIR_ENV, SUBDIRECTORY, SharedTokenStore
from providers.client.workspace import client_for
from providers.core.create_or_adopt import create_or_adopt, is_uncertain_create_outcome
from providers.secrets.secret_scopes_api import SecretScopesApi
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

# --- 1. redirects are errors, nothing is re-sent ----------------------------------------------

REDIRECT_TARGETS = [
    "https://elsewhere.example.org/collect?code=abc",  # another host
    "http://adb-123.example.net/api/2.0/jobs/create?x=1",  # the same host, plain http
]


def _redirect(mocked: responses.RequestsMock, method: str, url: str, target: str) -> None:
    mocked.add(method, url, status=307, headers={"Location": target})


@pytest.mark.parametrize("target", REDIRECT_TARGETS)
def test_a_token_request_redirected_is_refused_and_not_resent(target: str) -> None:
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        _redirect(mocked, "POST", TOKEN_URL, target)
        mocked.add(responses.POST, target.split("?")[0], json={"access_token": "x"})

        with pytest.raises(RedirectRefused) as raised:
            fetch_token(AUTH_URL, TENANT, CLIENT_ID, CLIENT_SECRET, RESOURCE, "public")

        assert len(mocked.calls) == 1
    message = str(raised.value)
    assert target.split("?")[0] in message and "?" not in message.split("redirect")[-1]
    assert "code=abc" not in message and "x=1" not in message
    assert CLIENT_SECRET not in message
    assert raised.value.status == 307


@pytest.mark.parametrize("target", REDIRECT_TARGETS)
@pytest.mark.parametrize("status", [307, 308, 302])
def test_a_platform_write_redirected_is_refused_and_not_resent(
    mocked: responses.RequestsMock, target: str, status: int
) -> None:
    mocked.add(
        "POST", f"{BASE_URL}/api/2.0/secrets/put", status=status, headers={"Location": target}
    )
    client = client_for(connection())

    with pytest.raises(RedirectRefused) as raised:
        client.post("/api/2.0/secrets/put", {"scope": "s", "key": "k", "string_value": "v"})

    platform_calls = [c for c in mocked.calls if str(c.request.url).startswith(BASE_URL)]
    assert len(platform_calls) == 1
    assert target.split("?")[0] in str(raised.value)
    assert "POST /api/2.0/secrets/put: " in str(raised.value)


@pytest.mark.parametrize("target", REDIRECT_TARGETS)
def test_a_read_redirected_is_refused_and_not_resent(
    mocked: responses.RequestsMock, target: str
) -> None:
    _redirect(mocked, "GET", f"{BASE_URL}/api/2.0/jobs/get", target)
    client = client_for(connection())

    with pytest.raises(RedirectRefused):
        client.get("/api/2.0/jobs/get", {"job_id": 1})

    assert [str(c.request.url).split("?")[0] for c in mocked.calls] == [
        TOKEN_URL,
        f"{BASE_URL}/api/2.0/jobs/get",
    ]


def test_a_relative_redirect_names_its_absolute_target(mocked: responses.RequestsMock) -> None:
    _redirect(mocked, "GET", f"{BASE_URL}/api/2.0/jobs/get", "/login?next=/x")

    with pytest.raises(RedirectRefused) as raised:
        client_for(connection()).get("/api/2.0/jobs/get")

    assert f"{BASE_URL}/login" in str(raised.value) and "next=" not in str(raised.value)


def test_the_flow_controller_login_is_not_redirected() -> None:
    from providers import apps

    base = "https://flow.example.net/nifi-api"
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
        _redirect(mocked, "POST", f"{base}/access/token", "http://flow.example.net/steal")
        mocked.add("POST", "http://flow.example.net/steal", body="token")

        with pytest.raises(apps.AppLookupError) as raised:
            apps.flow_login(base, "admin", "flow-password-123")

        assert len(mocked.calls) == 1
    assert "http://flow.example.net/steal" in str(raised.value)
    assert "flow-password-123" not in str(raised.value)


def test_a_redirect_target_never_shows_credentials(mocked: responses.RequestsMock) -> None:
    _redirect(mocked, "GET", f"{BASE_URL}/api/2.0/jobs/get", "https://user:pw@[::2]:8443/p?q=1")

    with pytest.raises(RedirectRefused) as raised:
        client_for(connection()).get("/api/2.0/jobs/get")

    assert "to https://[::2]:8443/p;" in str(raised.value) and "pw" not in str(raised.value)


# --- 3. redact first, then cut ------------------------------------------------------------------


@pytest.mark.parametrize("start", [185, 190, 199])
def test_a_secret_straddling_the_cut_is_redacted_whole(start: int) -> None:
    body = "x" * start + CLIENT_SECRET + " and more text after it" * 5
    with responses.RequestsMock() as mocked:
        mocked.add("GET", f"{BASE_URL}/api/2.0/jobs/get", status=502, body=body)
        response = requests.get(f"{BASE_URL}/api/2.0/jobs/get")

    error = error_from_response(response, secrets=(CLIENT_SECRET,))

    assert CLIENT_SECRET[:6] not in str(error)
    assert ("x" * start + "***")[:200] in str(error)  # the marker, itself cut at 200


def test_a_flow_controller_error_straddling_the_cut_is_redacted_whole() -> None:
    from providers import apps

    base = "https://flow.example.net/nifi-api"
    password = "flow-password-123"
    with responses.RequestsMock() as mocked:
        mocked.add("POST", f"{base}/access/token", status=400, body="y" * 195 + password)

        with pytest.raises(apps.AppLookupError) as raised:
            apps.flow_login(base, "admin", password)

    assert password[:5] not in str(raised.value) and "***" in str(raised.value)


# --- 2. no secret in a URL beyond loopback; every spelling redacted -----------------------------

REMOTE_AUTH_URL = "https://login.example.net"
REMOTE_TOKEN_URL = f"{REMOTE_AUTH_URL}/{TENANT}/oauth2/token"
# A secret whose URL-encoded and base64 spellings differ from it.
ODD_SECRET = "s3cr/et+with&eq=and space~"


def _spellings(secret: str) -> dict[str, str]:
    raw = secret.encode()
    return {
        "plain": secret,
        "quote": quote(secret),
        "quote safe=''": quote(secret, safe=""),
        "quote_plus": quote_plus(secret),
        "base64": base64.b64encode(raw).decode(),
        "base64 unpadded": base64.b64encode(raw).decode().rstrip("="),
        "urlsafe base64": base64.urlsafe_b64encode(raw).decode(),
    }


def test_the_legacy_form_refuses_to_put_the_secret_in_a_remote_url() -> None:
    with responses.RequestsMock() as mocked:
        with pytest.raises(InsecureUrlError) as raised:
            fetch_token(REMOTE_AUTH_URL, TENANT, CLIENT_ID, ODD_SECRET, RESOURCE, "legacy")

        assert len(mocked.calls) == 0
    message = str(raised.value)
    assert "workspace:wireForm" in message and "public" in message
    for spelling in _spellings(ODD_SECRET).values():
        assert spelling not in message


@pytest.mark.parametrize(
    "auth_url", ["http://127.0.0.1:8766", "http://[::1]:8766", "http://localhost:8766"]
)
def test_the_legacy_form_keeps_its_get_on_loopback(auth_url: str) -> None:
    with responses.RequestsMock() as mocked:
        mocked.get(f"{auth_url}/{TENANT}/oauth2/token", json=token_body())

        fetch_token(
            auth_url, TENANT, CLIENT_ID, ODD_SECRET, RESOURCE, "legacy", allow_insecure_http=True
        )

        assert mocked.calls[0].request.method == "GET"


def test_the_public_form_keeps_the_secret_out_of_the_url() -> None:
    with responses.RequestsMock() as mocked:
        mocked.post(REMOTE_TOKEN_URL, json=token_body())

        fetch_token(REMOTE_AUTH_URL, TENANT, CLIENT_ID, ODD_SECRET, RESOURCE, "public")

        [call] = mocked.calls
    for spelling in _spellings(ODD_SECRET).values():
        assert spelling not in str(call.request.url)
    assert quote_plus(ODD_SECRET) in str(call.request.body)


@pytest.mark.parametrize(
    ("form", "auth_url"),
    [("legacy", "http://127.0.0.1:8766"), ("public", REMOTE_AUTH_URL)],
)
def test_a_secret_in_a_url_of_an_error_is_redacted(form: str, auth_url: str) -> None:
    """The transport's own error text can carry the URL (the legacy form's query string)."""
    url = f"{auth_url}/{TENANT}/oauth2/token"
    leaked = f"{url}?client_secret={quote_plus(ODD_SECRET)}&x={quote(ODD_SECRET, safe='')}"
    with responses.RequestsMock() as mocked:
        mocked.add(
            "GET" if form == "legacy" else "POST",
            url,
            body=requests.exceptions.ConnectionError(f"refused: {leaked}"),
        )
        with pytest.raises(WorkspaceUnreachable) as raised:
            fetch_token(
                auth_url, TENANT, CLIENT_ID, ODD_SECRET, RESOURCE, form, allow_insecure_http=True
            )

    for name, spelling in _spellings(ODD_SECRET).items():
        assert spelling not in str(raised.value), name


@pytest.mark.parametrize("name", list(_spellings(ODD_SECRET)))
def test_every_spelling_of_a_secret_is_redacted(name: str) -> None:
    spelling = _spellings(ODD_SECRET)[name]
    body = {"error_code": "INVALID_PARAMETER_VALUE", "message": f"bad value <{spelling}>"}
    with responses.RequestsMock() as mocked:
        mocked.add("GET", f"{BASE_URL}/api/2.0/jobs/get", status=400, json=body)
        response = requests.get(f"{BASE_URL}/api/2.0/jobs/get")

    error = error_from_response(response, secrets=(ODD_SECRET,))

    assert spelling not in str(error)
    assert "bad value <***>" in str(error)
    assert redact_text(f"<{spelling}>", [ODD_SECRET]) == "<***>"


# --- 4. a skewed clock costs no extra tokens ---------------------------------------------------


def test_an_hour_of_clock_skew_costs_one_token_for_many_calls() -> None:
    """The local clock an hour ahead of the identity provider: its `expires_on` is an hour in
    the past by the local clock, its `expires_in` (relative) still 3599 seconds."""
    now = int(time.time())
    skewed = {**token_body(), "expires_on": str(now - 3600), "expires_in": "3599"}
    cache = TokenCache()
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=skewed)

        for _ in range(20):
            token = cache.get(connection())

        assert len(mocked.calls) == 1
    assert token.expires_on == pytest.approx(now + 3599, abs=5)


def test_expires_on_is_the_fallback_without_expires_in() -> None:
    body = {"token_type": "Bearer", "expires_on": "5000", "access_token": "t"}
    assert parse_token_response(body, "r", now=lambda: 100.0).expires_on == 5000.0


def test_expires_in_wins_over_expires_on() -> None:
    body = {"token_type": "Bearer", "expires_on": "5000", "expires_in": "60", "access_token": "t"}
    assert parse_token_response(body, "r", now=lambda: 100.0).expires_on == 160.0


# --- 5. a throttling 500 is an uncertain outcome; throttling codes are retried ------------------

SCOPES = "/api/2.0/secrets/scopes"


@pytest.mark.parametrize("applied", [True, False], ids=["applied-then-500", "refused-500"])
@pytest.mark.parametrize("code", ["REQUEST_LIMIT_EXCEEDED", "TEMPORARILY_UNAVAILABLE"])
def test_a_throttling_500_during_a_create_ends_with_one_object_created_once(
    mocked: responses.RequestsMock, applied: bool, code: str
) -> None:
    scopes: list[str] = []
    creates: list[str] = []

    def create_scope(request: requests.PreparedRequest) -> tuple[int, dict, str]:
        name = json.loads(request.body or b"{}")["scope"]  # type: ignore[arg-type]
        creates.append(name)
        if len(creates) == 1:
            if applied:
                scopes.append(name)
            return 500, {}, json.dumps({"error_code": code, "message": "slow down"})
        if name in scopes:
            return 400, {}, json.dumps({"error_code": "RESOURCE_ALREADY_EXISTS"})
        scopes.append(name)
        return 200, {}, "{}"

    mocked.add_callback("POST", f"{BASE_URL}{SCOPES}/create", callback=create_scope)
    mocked.add_callback(
        "GET",
        f"{BASE_URL}{SCOPES}/list",
        callback=lambda _r: (200, {}, json.dumps({"scopes": [{"name": s} for s in scopes]})),
    )
    client = client_for(connection())

    def find() -> dict | None:
        return next((s for s in SecretScopesApi(client).list() if s["name"] == "team"), None)

    _made, adopted = create_or_adopt(
        lambda: SecretScopesApi(client).create("team"), find, pause=lambda _s: None
    )

    assert scopes == ["team"]
    assert adopted is applied
    assert len(creates) == (1 if applied else 2)


def test_a_throttling_code_is_retried_whatever_its_status(
    mocked: responses.RequestsMock, no_retry_sleep: None
) -> None:
    throttled = {"error_code": "REQUEST_LIMIT_EXCEEDED", "message": "too many requests"}
    mocked.get(f"{BASE_URL}/api/2.0/jobs/get", status=400, json=throttled)
    mocked.get(f"{BASE_URL}/api/2.0/jobs/get", json={"job_id": 1})

    assert client_for(connection()).get("/api/2.0/jobs/get", {"job_id": 1}) == {"job_id": 1}


def test_a_create_refused_by_a_throttling_4xx_is_sent_again(
    mocked: responses.RequestsMock, no_retry_sleep: None
) -> None:
    throttled = {"error_code": "TEMPORARILY_UNAVAILABLE", "message": "busy"}
    mocked.post(f"{BASE_URL}/api/2.0/jobs/create", status=400, json=throttled)
    mocked.post(f"{BASE_URL}/api/2.0/jobs/create", json={"job_id": 7})

    assert client_for(connection()).post("/api/2.0/jobs/create", {}) == {"job_id": 7}


def test_a_throttling_500_on_a_create_is_not_sent_again_by_the_client(
    mocked: responses.RequestsMock, no_retry_sleep: None
) -> None:
    throttled = {"error_code": "REQUEST_LIMIT_EXCEEDED", "message": "slow down"}
    mocked.post(f"{BASE_URL}/api/2.0/jobs/create", status=500, json=throttled)

    with pytest.raises(WorkspaceError) as raised:
        client_for(connection()).post("/api/2.0/jobs/create", {})

    assert raised.value.status == 500 and is_uncertain_create_outcome(raised.value)
    assert len([c for c in mocked.calls if "jobs/create" in str(c.request.url)]) == 1


# --- 6. only literal loopback is loopback -----------------------------------------------------


@pytest.mark.parametrize(
    "host",
    ["app.localhost", "localhost.example.net", "localhost.", "127.0.0.1.nip.io", "0.0.0.0"],
)
def test_a_name_that_only_looks_local_is_not_loopback(host: str) -> None:
    assert not is_loopback_host(host)
    with pytest.raises(InsecureUrlError):
        require_secure_url(f"http://{host}:8765", allow_insecure_http=True)
    with pytest.raises(ValueError, match=re.escape(
            f"base_url 'http://{host}:8765' uses http:// on a non-loopback host; use https://")):
        connection(base_url=f"http://{host}:8765", allow_insecure_http=True)


@pytest.mark.parametrize("host", ["localhost", "127.0.0.1", "127.8.9.10", "::1"])
def test_literal_loopback_may_use_plain_http(host: str) -> None:
    assert is_loopback_host(host)
    shown = f"[{host}]" if ":" in host else host
    assert require_secure_url(f"http://{shown}:8765", allow_insecure_http=True)


def test_the_legacy_form_refuses_a_subdomain_of_localhost() -> None:
    with responses.RequestsMock() as mocked:
        with pytest.raises(InsecureUrlError):
            fetch_token("https://idp.localhost", TENANT, CLIENT_ID, ODD_SECRET, RESOURCE, "legacy")
        assert len(mocked.calls) == 0


# --- 7. the token cache stays private and pruned ------------------------------------------------

STORE_KEY = ("https://127.0.0.1:9443", "tenant", "client", "resource")


@pytest.fixture()
def token_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "tokens"))
    return tmp_path / "tokens" / SUBDIRECTORY


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_an_existing_open_cache_directory_is_tightened_on_save(token_dir: Path) -> None:
    token_dir.mkdir(mode=0o755, parents=True)
    token_dir.chmod(0o777)
    left = f"workspace-iac-{'c' * 64}.token"
    (token_dir / left).write_bytes(b"sealed")
    (token_dir / left).chmod(0o644)

    SharedTokenStore().save(STORE_KEY, "the-secret", {"value": "v", "expires_on": 1.0})

    assert _mode(token_dir) == 0o700
    assert {p.name: _mode(p) for p in token_dir.iterdir()} == {
        left: 0o600,
        SharedTokenStore._path(STORE_KEY).name: 0o600,  # type: ignore[union-attr]
    }


def test_an_existing_open_cache_directory_is_tightened_on_load(token_dir: Path) -> None:
    store = SharedTokenStore()
    store.save(STORE_KEY, "the-secret", {"value": "v", "expires_on": 1.0})
    [path] = token_dir.iterdir()
    token_dir.chmod(0o755)
    path.chmod(0o644)

    assert store.load(STORE_KEY, "the-secret") == {"value": "v", "expires_on": 1.0}

    assert (_mode(token_dir), _mode(path)) == (0o700, 0o600)


def test_stale_token_files_are_pruned_when_writing(token_dir: Path) -> None:
    store = SharedTokenStore()
    token_dir.mkdir(mode=0o700, parents=True)
    day = 24 * 3600
    stale, recent, temporary = (
        token_dir / f"workspace-iac-{'a' * 64}.token",
        token_dir / f"workspace-iac-{'b' * 64}.token",
        token_dir / ".workspace-iac-token-leftover",
    )
    for path, age in ((stale, day + 60), (recent, day - 60), (temporary, day + 60)):
        path.write_bytes(b"sealed")
        os.utime(path, (time.time() - age, time.time() - age))
    unrelated = token_dir / "notes.txt"
    unrelated.write_text("not the store's")
    os.utime(unrelated, (time.time() - 10 * day, time.time() - 10 * day))

    store.save(STORE_KEY, "the-secret", {"value": "v", "expires_on": 1.0})

    names = {p.name for p in token_dir.iterdir()}
    assert stale.name not in names and temporary.name not in names
    assert recent.name in names and "notes.txt" in names
    assert SharedTokenStore._path(STORE_KEY).name in names  # type: ignore[union-attr]


def test_ci_caches_the_engine_build_and_not_the_token_cache() -> None:
    workflow_file = Path(__file__).resolve().parents[2] / ".github/workflows/preview.yml"
    workflow = yaml.safe_load(workflow_file.read_text())
    cache = next(
        step
        for step in workflow["jobs"]["preview"]["steps"]
        if str(step.get("uses", "")).startswith("actions/cache")
    )
    paths = cache["with"]["path"].split()
    token_cache = "~/.cache/workspace-iac/tokens"
    for path in paths:
        assert not fnmatch.fnmatch(token_cache, path) and not token_cache.startswith(path + "/")
        assert path != "~/.cache/workspace-iac"
    assert "~/.cache/workspace-iac/pulumi-*" in paths
