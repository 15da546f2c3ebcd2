"""The request log: what was asked of which service by whom, and no secrets."""

from __future__ import annotations

import json

import requests

from tests.emulator.support import Api
from workspace_emulator.testing import clear_request_log, fetch_token, request_log


def test_entries_name_service_method_path_status_and_client(emulator):
    token = fetch_token(emulator)
    clear_request_log(emulator)
    Api(emulator.base_url, token).get("/api/2.0/clusters/list", params={"x": "1"})
    requests.get(emulator.base_url + "/api/2.0/jobs/list", timeout=5)
    requests.get(emulator.app_url + "/my-resource", timeout=5)
    entries = request_log(emulator)
    assert [(e["service"], e["method"], e["path"], e["status"], e["client"]) for e in entries] == [
        ("platform", "GET", "/api/2.0/clusters/list", 200, emulator.client_id),
        ("platform", "GET", "/api/2.0/jobs/list", 401, None),
        ("app", "GET", "/my-resource", 200, None),
    ]
    assert all(isinstance(e["time"], float) for e in entries)


def test_log_holds_no_secrets_or_tokens(emulator):
    clear_request_log(emulator)
    secret = emulator.client_secret
    legacy_form = requests.get(emulator.token_url, params={
        "grant_type": "client_credential", "client_id": emulator.client_id,
        "client_secret": secret, "resource": emulator.resource}, timeout=5)
    token = legacy_form.json()["access_token"]
    Api(emulator.base_url, token).get("/api/2.0/clusters/list")
    requests.get(emulator.base_url + "/api/2.0/clusters/list",
                 headers={"Authorization": f"Bearer {token}x"}, timeout=5)
    requests.post(emulator.flow_api_base + "/access/token",
                  data={"username": emulator.client_id, "password": secret}, timeout=5)
    text = json.dumps(request_log(emulator))
    assert secret not in text
    assert token not in text
    assert "client_secret" not in text and "?" not in text
    identity = [e for e in request_log(emulator) if e["service"] == "identity"]
    assert identity[0]["path"] == f"/{emulator.tenant_id}/oauth2/token"
    assert identity[0]["client"] == emulator.client_id


def test_clear(emulator):
    requests.get(emulator.base_url + "/api/2.0/jobs/list", timeout=5)
    clear_request_log(emulator)
    assert request_log(emulator) == []
