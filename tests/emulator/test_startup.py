"""Start-up: the JSON line, the info file, ports, options from the environment, SIGTERM."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import requests

from tests.conftest import emulator_client, fresh_emulator
from workspace_emulator.initial_data import load_initial_data
from workspace_emulator.testing import (
    INFO_FIELDS,
    EmulatorProcess,
    auth_headers,
    clear_request_log,
    free_port_block,
    request_log,
    running_emulator,
)


def test_prints_one_json_line_with_every_service(emulator):
    assert emulator.base_url.startswith("http://127.0.0.1:")
    assert emulator.flow_api_base.endswith("/nifi-api")
    ports = {url.rsplit(":", 1)[1].split("/")[0] for url in (
        emulator.base_url, emulator.auth_url, emulator.app_url, emulator.admin_url,
        emulator.flow_api_base)}
    assert len(ports) == 5
    assert emulator.resource and emulator.management_resource.startswith("https://")


def test_info_file_holds_the_same_line_and_sigterm_exits_zero(tmp_path):
    info_file = tmp_path / "out" / "emulator.json"
    process = EmulatorProcess(info_file=info_file)
    try:
        info = process.start()
        written = json.loads(info_file.read_text())
        assert list(written) == list(INFO_FIELDS)
        assert written["base_url"] == info.base_url
        assert written["client_secret"] == info.client_secret
        assert written["admin_token"] == info.admin_token
        assert info_file.stat().st_mode & 0o077 == 0  # secrets in it: the owner's only
        health = requests.get(f"{info.base_url}/_emulator/health", timeout=5).json()
        assert health["status"] == "ok"
        assert health["services"]["workspace_id"] == "1234567890123456"
    finally:
        assert process.stop() == 0
        process.close()


def test_fixed_port_puts_services_on_consecutive_ports():
    port = free_port_block()
    with running_emulator(port=port) as info:
        assert info.base_url == f"http://127.0.0.1:{port}"
        assert info.auth_url == f"http://127.0.0.1:{port + 1}"
        assert info.app_url == f"http://127.0.0.1:{port + 2}"
        assert info.admin_url == f"http://127.0.0.1:{port + 3}"
        assert info.flow_api_base == f"http://127.0.0.1:{port + 4}/nifi-api"


def test_options_can_come_from_the_environment():
    env = {"EMULATOR_FAULT_RATE_503": "0.25", "EMULATOR_FAULT_RANDOM_STATE": "5",
           "EMULATOR_FAULT_PATHS": "/api/2.0/jobs/*"}
    with running_emulator(env=env) as info:
        faults = requests.get(f"{info.base_url}/_emulator/faults", headers=info.admin_headers(),
                              timeout=5).json()
    assert faults["rate_503"] == 0.25 and faults["random_state"] == 5
    assert faults["paths"] == ["/api/2.0/jobs/*"]


@pytest.mark.parametrize("args", [
    ["--fault-rate-500", "1.5"],
    ["--fault-rate-500", "0.6", "--fault-rate-503", "0.6"],
    ["--transition-seconds", "-1"],
    ["--port", "abc"],
])
def test_bad_options_are_refused(args):
    result = subprocess.run([sys.executable, "-m", "workspace_emulator", "--in-memory", *args],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "error" in result.stderr


def test_an_unreadable_initial_data_file_is_reported(tmp_path):
    path = tmp_path / "initial_data.json"
    path.write_text("{not json")
    result = subprocess.run(
        [sys.executable, "-m", "workspace_emulator", "--in-memory", "--port", "0",
         "--initial-data", str(path)],
        capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert "not valid JSON" in result.stderr


def test_a_replacement_initial_data_file_is_used(tmp_path):
    data = load_initial_data(None)
    data["clusters"] = data["clusters"][:1]
    data["catalogs"].append({"name": "extra", "owner": "admins"})
    path = tmp_path / "initial_data.json"
    path.write_text(json.dumps(data))
    with running_emulator(initial_data=path) as info:
        headers = auth_headers(info)
        clusters = requests.get(f"{info.base_url}/api/2.0/clusters/list", headers=headers,
                                timeout=5).json()["clusters"]
        extra = requests.get(f"{info.base_url}/api/2.1/unity-catalog/catalogs/extra",
                             headers=headers, timeout=5)
    assert len(clusters) == 1
    assert extra.status_code == 200


def test_an_emulator_for_tests_on_an_address_an_earlier_one_had_gets_no_stale_token():
    # The client caches tokens by the identity provider's address; the tests' emulators must
    # not inherit one from an earlier emulator there (a 401 and a retry in the request log).
    port = free_port_block()
    with fresh_emulator(port=port) as first:
        emulator_client(first).get("/api/2.0/jobs/list")
    with fresh_emulator(port=port) as second:
        clear_request_log(second)
        emulator_client(second).get("/api/2.0/jobs/list")
        calls = [(entry["path"], entry["status"]) for entry in request_log(second)
                 if entry["path"].startswith("/api/")]
    assert calls == [("/api/2.0/jobs/list", 200)]
