"""State survives restarts: a clean SIGTERM, and a SIGKILL right after an acknowledged write.
The initial data goes only into a new database, never again into one an earlier version
filled. One emulator at a time on a data directory: a second fails at start-up."""

from __future__ import annotations

import sqlite3

import pytest

from tests.emulator.support import Api, create_job, legacy_form_job_body, unique
from workspace_emulator.storage import DATABASE_FILE, INITIALISED_KEY, LEGACY_INITIALISED_KEY
from workspace_emulator.testing import EmulatorProcess, fetch_token, running_emulator


def _client(process: EmulatorProcess) -> Api:
    info = process.start()
    return Api(info.base_url, fetch_token(info))


def test_state_survives_sigterm_and_restart(tmp_path):
    first = EmulatorProcess(data_dir=tmp_path)
    try:
        api = _client(first)
        name = unique("durable")
        job_id = create_job(api, legacy_form_job_body(name))
        api.patch(f"/api/2.0/permissions/jobs/{job_id}", json={"access_control_list": [
            {"group_name": "analysts", "permission_level": "CAN_VIEW"}]})
        api.post("/api/2.0/secrets/scopes/create", json={"scope": name})
        api.post("/api/2.0/secrets/scopes/delete", json={"scope": "platform-shared"})
        api.patch("/api/2.1/unity-catalog/catalogs/main", json={"isolation_mode": "ISOLATED"})
        api.post("/api/2.0/clusters/start", json={"cluster_id": "0101-120000-etl00002"})
        run = api.post("/api/2.0/jobs/run-now", json={"job_id": job_id}).json()
        before = api.get("/api/2.0/jobs/get", params={"job_id": job_id}).json()
    finally:
        assert first.stop() == 0
        first.close()

    second = EmulatorProcess(data_dir=tmp_path)
    try:
        api = _client(second)
        assert api.get("/api/2.0/jobs/get", params={"job_id": job_id}).json() == before
        acl = api.get(f"/api/2.0/permissions/jobs/{job_id}").json()["access_control_list"]
        assert any(e.get("group_name") == "analysts" for e in acl)
        scopes = {s["name"] for s in api.get("/api/2.0/secrets/scopes/list").json()["scopes"]}
        assert name in scopes
        assert "platform-shared" not in scopes  # the initial data was not applied again
        assert api.get("/api/2.1/unity-catalog/catalogs/main").json()[
            "isolation_mode"] == "ISOLATED"
        assert api.get("/api/2.0/clusters/get", params={"cluster_id": "0101-120000-etl00002"}
                       ).json()["state"] == "RUNNING"
        assert api.get("/api/2.0/jobs/runs/get", params={"run_id": run["run_id"]}).json()[
            "run_id"] == run["run_id"]
        assert create_job(api) > job_id  # ids keep counting
    finally:
        second.close()


def test_acknowledged_write_survives_sigkill(tmp_path):
    first = EmulatorProcess(data_dir=tmp_path)
    try:
        api = _client(first)
        name = unique("killed")
        response = api.post("/api/2.0/jobs/create", json=legacy_form_job_body(name))
        assert response.status_code == 200
        first.kill()
    finally:
        first.close()

    second = EmulatorProcess(data_dir=tmp_path)
    try:
        api = _client(second)
        jobs = api.get("/api/2.0/jobs/list", params={"name": name}).json()["jobs"]
        assert [j["job_id"] for j in jobs] == [response.json()["job_id"]]
    finally:
        second.close()


def test_tokens_and_credentials_survive_restart(tmp_path):
    first = EmulatorProcess(data_dir=tmp_path)
    try:
        info = first.start()
        token = fetch_token(info)
    finally:
        first.close()
    second = EmulatorProcess(data_dir=tmp_path)
    try:
        info2 = second.start()
        assert info2.client_secret == info.client_secret
        assert Api(info2.base_url, token).get("/api/2.0/clusters/list").status_code == 200
    finally:
        second.close()


def test_a_database_marked_with_the_legacy_key_is_not_filled_again(tmp_path):
    first = EmulatorProcess(data_dir=tmp_path)
    try:
        _client(first).post("/api/2.0/secrets/scopes/delete", json={"scope": "platform-shared"})
    finally:
        assert first.stop() == 0
        first.close()
    with sqlite3.connect(tmp_path / DATABASE_FILE) as conn:  # as earlier versions marked it
        changed = conn.execute("UPDATE meta SET key = ? WHERE key = ?",
                               (LEGACY_INITIALISED_KEY, INITIALISED_KEY)).rowcount
    assert changed == 1

    second = EmulatorProcess(data_dir=tmp_path)
    try:
        api = _client(second)
        scopes = {s["name"] for s in api.get("/api/2.0/secrets/scopes/list").json()["scopes"]}
        assert "platform-shared" not in scopes
    finally:
        second.close()


def test_a_second_emulator_on_the_same_data_dir_fails_naming_it_and_the_holder(tmp_path):
    first = EmulatorProcess(data_dir=tmp_path)
    try:
        info = first.start()
        assert first.process is not None
        second = EmulatorProcess(data_dir=tmp_path)
        try:
            with pytest.raises(RuntimeError) as refused:
                second.start()
            assert second.returncode == 1
            message = str(refused.value)
            assert str(tmp_path) in message and "already in use" in message
            assert f"pid {first.process.pid}" in message
        finally:
            second.close()
        # The first one is untouched and still serves.
        assert _client_of(info).get("/api/2.0/clusters/list").status_code == 200
    finally:
        assert first.stop() == 0
        first.close()
    # The lock goes with the process: the directory can be opened again.
    third = EmulatorProcess(data_dir=tmp_path)
    try:
        _client(third)
    finally:
        third.close()


def test_in_memory_emulators_need_no_lock(tmp_path):
    with running_emulator() as one, running_emulator() as other:
        assert one.base_url != other.base_url


def _client_of(info):
    return Api(info.base_url, fetch_token(info))
