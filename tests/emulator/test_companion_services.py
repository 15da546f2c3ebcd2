"""The sample app, its admin address and the flow controller as wired by the emulator:
their ports, the /nifi-api mount, and flow authentication through the identity provider."""

from __future__ import annotations

import requests

from workspace_emulator.testing import fetch_token, initial_applications


def test_sample_app_and_metrics(emulator):
    value = requests.get(f"{emulator.app_url}/my-resource", timeout=5)
    assert value.status_code == 200 and isinstance(value.json()["value"], int | float)
    metrics = requests.get(f"{emulator.admin_url}/metrics", params={"pretty": "true"},
                           timeout=5)
    assert metrics.status_code == 200 and "runTest" in metrics.json()


def test_flow_accepts_only_its_own_login_tokens(emulator):
    root = f"{emulator.flow_api_base}/process-groups/root"
    assert requests.get(root, timeout=5).status_code == 401
    login = requests.post(f"{emulator.flow_api_base}/access/token",
                          data={"username": emulator.client_id,
                                "password": emulator.client_secret}, timeout=5)
    group = requests.get(root, headers={"Authorization": f"Bearer {login.text}"}, timeout=5)
    assert group.status_code == 200
    assert group.json()["component"]["name"] == "NiFi Flow"
    # Tokens the identity provider issued for other resources (the platform's, the
    # management address) are not the flow controller's: 401, as an unknown token.
    for resource in (emulator.resource, emulator.management_resource):
        token = fetch_token(emulator, resource=resource)
        refused = requests.get(root, headers={"Authorization": f"Bearer {token}"}, timeout=5)
        assert refused.status_code == 401, resource
        assert refused.headers["www-authenticate"].startswith('Bearer error="invalid_token"')
    bad = requests.get(root, headers={"Authorization": "Bearer nope"}, timeout=5)
    assert bad.status_code == 401


def test_flow_login_with_registered_applications(emulator):
    login = f"{emulator.flow_api_base}/access/token"
    for client_id, secret in [(emulator.client_id, emulator.client_secret),
                              *((a["client_id"], a["client_secret"])
                                for a in initial_applications()[:2])]:
        response = requests.post(login, data={"username": client_id, "password": secret},
                                 timeout=5)
        assert response.status_code == 201, response.text
        group = requests.get(f"{emulator.flow_api_base}/process-groups/root",
                             headers={"Authorization": f"Bearer {response.text}"}, timeout=5)
        assert group.status_code == 200
    refused = requests.post(login, data={"username": emulator.client_id, "password": "wrong"},
                            timeout=5)
    assert refused.status_code == 400


def test_flow_port_serves_only_the_mount(emulator):
    flow_root = emulator.flow_api_base.removesuffix("/nifi-api")
    response = requests.get(f"{flow_root}/elsewhere", timeout=5)
    assert response.status_code == 404
    assert response.json()["error_code"] == "ENDPOINT_NOT_FOUND"
