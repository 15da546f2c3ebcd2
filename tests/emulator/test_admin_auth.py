"""The administrative API (/_emulator/*) is the emulator's operator's, not its clients':
every endpoint but the liveness probe needs the admin token of the start-up line (a fresh
random one per process), and any endpoint answers a client that is not on loopback with
403, token or not. Without that, any caller could replace an application's secret (the
bootstrap principal's among them), reset the workspace or turn faults on."""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from typing import Any

import pytest
import requests
from fastapi import FastAPI

from workspace_emulator.admin import create_admin_router
from workspace_emulator.faults import FaultInjector, FaultSettings
from workspace_emulator.identity import IdentityProvider
from workspace_emulator.request_log import RequestLog
from workspace_emulator.storage import Database
from workspace_emulator.testing import EmulatorInfo, fetch_token, get_faults, request_log

# Every endpoint that needs the token: (method, path, body).
GUARDED = [
    ("POST", "/_emulator/applications", {"client_id": "{client_id}", "client_secret": "taken"}),
    ("POST", "/_emulator/faults", {"rate_500": 1.0}),
    ("POST", "/_emulator/reset", None),
    ("POST", "/_emulator/clock/advance", {"seconds": 1}),
    ("DELETE", "/_emulator/requests", None),
    ("GET", "/_emulator/requests", None),
    ("GET", "/_emulator/faults", None),
    ("GET", "/_emulator/clock", None),
]


def _call(info: EmulatorInfo, method: str, path: str, body: Any,
          headers: dict[str, str] | None = None) -> requests.Response:
    if isinstance(body, dict):
        body = {key: value.format(client_id=info.client_id) if isinstance(value, str) else value
                for key, value in body.items()}
    return requests.request(method, f"{info.base_url}{path}", json=body, headers=headers,
                            timeout=10)


def test_the_start_up_line_names_an_admin_token(emulator: EmulatorInfo) -> None:
    assert len(emulator.admin_token) >= 32
    assert "admin_token" not in repr(emulator)


@pytest.mark.parametrize(("method", "path", "body"), GUARDED,
                         ids=[f"{m} {p}" for m, p, _ in GUARDED])
def test_admin_endpoints_refuse_a_call_without_the_admin_token(
        emulator: EmulatorInfo, method: str, path: str, body: Any) -> None:
    platform_token = fetch_token(emulator)
    for headers in (None, {"Authorization": f"Bearer {platform_token}"},
                    {"Authorization": "Bearer not-the-admin-token"}):
        response = _call(emulator, method, path, body, headers)
        assert response.status_code == 401, (headers, response.text)
        assert response.json()["error_code"] == "UNAUTHENTICATED"
        assert "admin_token" in response.json()["message"]
    assert get_faults(emulator)["rate_500"] == 0.0  # nothing was changed


def test_an_applications_secret_cannot_be_replaced_without_the_token(
        emulator: EmulatorInfo) -> None:
    response = requests.post(f"{emulator.base_url}/_emulator/applications", json={
        "client_id": emulator.client_id, "client_secret": "chosen-by-an-attacker"}, timeout=10)
    assert response.status_code == 401
    assert fetch_token(emulator)  # the bootstrap secret still works
    with pytest.raises(requests.HTTPError):
        fetch_token(emulator, client_secret="chosen-by-an-attacker")


def test_the_helpers_send_the_token(emulator: EmulatorInfo) -> None:
    assert isinstance(request_log(emulator), list)
    headers = {"Authorization": f"Bearer {emulator.admin_token}"}
    assert requests.get(f"{emulator.base_url}/_emulator/clock", headers=headers,
                        timeout=10).status_code == 200


def test_the_liveness_probe_needs_no_token(emulator: EmulatorInfo) -> None:
    response = requests.get(f"{emulator.base_url}/_emulator/health", timeout=10)
    assert response.status_code == 200 and response.json()["status"] == "ok"


# A client that is not on loopback (the emulator listens on 127.0.0.1 only, so this is what a
# proxy or a future listener on another address would let in): the app called directly.

ADMIN_TOKEN = "t" * 43


def _admin_app() -> FastAPI:
    db = Database(None)
    identity = IdentityProvider(db, "tenant", ("resource",), 3600)
    app = FastAPI()
    app.include_router(create_admin_router(
        FaultInjector(FaultSettings()), RequestLog(), identity, {}, lambda: None,
        admin_token=ADMIN_TOKEN))
    return app


def _asgi(app: FastAPI, method: str, path: str, client: str,
          headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
        "scheme": "http", "path": path, "raw_path": path.encode(), "root_path": "",
        "query_string": b"", "server": ("127.0.0.1", 8765), "client": (client, 50000),
        "headers": [(k.lower().encode(), v.encode()) for k, v in
                    {"content-type": "application/json", **headers}.items()],
    }
    sent: list[MutableMapping[str, Any]] = []
    body: list[MutableMapping[str, Any]] = [
        {"type": "http.request", "body": b"{}", "more_body": False}]

    async def receive() -> MutableMapping[str, Any]:
        return body.pop(0) if body else {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message)

    # A loop of its own, not asyncio.run: that leaves the thread without a current loop, and
    # a later test of this process on Pulumi's mocks (which asks for the current one) fails.
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(app(scope, receive, send))
    finally:
        loop.close()
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(payload)


@pytest.mark.parametrize("path", ["/_emulator/health", "/_emulator/faults", "/_emulator/reset"])
def test_a_client_off_loopback_is_refused_even_with_the_token(path: str) -> None:
    app = _admin_app()
    method = "POST" if path.endswith("reset") else "GET"
    status, body = _asgi(app, method, path, "203.0.113.7",
                         {"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert status == 403
    assert body["error_code"] == "PERMISSION_DENIED" and "loopback" in body["message"]
    for loopback in ("127.0.0.1", "127.8.9.10", "::1"):
        assert _asgi(app, method, path, loopback,
                     {"Authorization": f"Bearer {ADMIN_TOKEN}"})[0] == 200
