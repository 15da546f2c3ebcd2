"""A data directory written before jobs were stored canonically still serves its jobs and
runs: job documents with legacy-shaped settings and `settings_form`, runs with `fails`."""

from __future__ import annotations

import json
import sqlite3

from tests.emulator.support import Api, create_job, legacy_form_job_body, unique
from workspace_emulator.platform.models.job_settings import to_public_form
from workspace_emulator.storage import DATABASE_FILE
from workspace_emulator.testing import EmulatorProcess, fetch_token


def _rewrite_as_before(database, job_id: int, run_id: int, body: dict) -> None:
    """The documents as the emulator wrote them before (settings in the public nesting with
    the stored defaults, the form used; a run's one outcome as `fails`)."""
    with sqlite3.connect(database) as conn:
        job = json.loads(conn.execute("SELECT doc FROM jobs WHERE job_id = ?",
                                      (job_id,)).fetchone()[0])
        old_job = {name: job[name] for name in ("job_id", "created_time",
                                                "creator_user_name", "acl")}
        old_job["settings"] = {**to_public_form(body), "max_concurrent_runs": 1,
                               "email_notifications": {}, "format": "SINGLE_TASK"}
        old_job["settings_form"] = "seed"  # the emulator's name of the legacy form
        run = json.loads(conn.execute("SELECT doc FROM runs WHERE run_id = ?",
                                      (run_id,)).fetchone()[0])
        old_run = {name: run[name] for name in (
            "run_id", "job_id", "number_in_job", "run_name", "creator_user_name",
            "start_time", "transition_ms", "overriding_parameters")}
        old_run["fails"] = True
        conn.execute("UPDATE jobs SET doc = ? WHERE job_id = ?", (json.dumps(old_job), job_id))
        conn.execute("UPDATE runs SET doc = ? WHERE run_id = ?", (json.dumps(old_run), run_id))


def test_jobs_and_runs_stored_before_are_still_served(tmp_path):
    body = legacy_form_job_body(unique("before"))
    first = EmulatorProcess(data_dir=tmp_path)
    try:
        info = first.start()
        api = Api(info.base_url, fetch_token(info))
        job_id = create_job(api, body)
        run_id = api.post("/api/2.0/jobs/run-now", json={
            "job_id": job_id, "python_params": ["--fail"]}).json()["run_id"]
    finally:
        assert first.stop() == 0
        first.close()
    _rewrite_as_before(tmp_path / DATABASE_FILE, job_id, run_id, body)

    second = EmulatorProcess(data_dir=tmp_path)
    try:
        info = second.start()
        api = Api(info.base_url, fetch_token(info))
        legacy = api.get("/api/2.0/jobs/get", params={"job_id": job_id}).json()["settings"]
        assert legacy == {**body, "max_concurrent_runs": 1, "email_notifications": {},
                          "format": "SINGLE_TASK"}
        canonical = api.get("/api/2.2/jobs/get", params={"job_id": job_id}).json()["settings"]
        assert [task["task_key"] for task in canonical["tasks"]] == ["main"]
        run = api.get("/api/2.2/jobs/runs/get", params={"run_id": run_id}).json()
        assert run["state"]["result_state"] == "FAILED" and run["tasks"] == []
        assert "python_params contained '--fail'" in run["state"]["state_message"]
        response = api.post("/api/2.0/jobs/update", json={"job_id": job_id,
                                                          "new_settings": {"tags": {"a": "b"}}})
        assert response.status_code == 200, response.text
        assert api.get("/api/2.0/jobs/get", params={"job_id": job_id}).json()["settings"] == {
            **legacy, "tags": {"a": "b"}}
    finally:
        second.close()
