"""Jobs: both create forms, validation, list pagination, reset/update/delete, runs."""

from __future__ import annotations

from typing import Any

import pytest

from tests.emulator.conftest import MANUAL_TRANSITION_SECONDS
from tests.emulator.support import (
    Api,
    add_service_principal,
    api_as,
    create_job,
    expect_error,
    legacy_form_job_body,
    public_job_body,
    unique,
)
from workspace_emulator.testing import advance_clock


def _get(api: Api, job_id: int, version: str = "2.0") -> dict:
    response = api.get(f"/api/{version}/jobs/get", params={"job_id": job_id})
    assert response.status_code == 200, response.text
    return response.json()


def _without_defaults(settings: dict) -> dict:
    return {k: v for k, v in settings.items()
            if k not in ("max_concurrent_runs", "email_notifications", "format")}


def test_legacy_form_is_echoed_in_legacy_form(api, emulator):
    body = legacy_form_job_body(unique("legacy"))
    job = _get(api, create_job(api, body))
    assert _without_defaults(job["settings"]) == body
    assert job["creator_user_name"] == emulator.client_id
    assert isinstance(job["created_time"], int)


def test_public_form_is_echoed_in_public_form(api):
    body = public_job_body(unique("public"))
    job = _get(api, create_job(api, body), version="2.0")
    assert _without_defaults(job["settings"]) == body


def test_server_fills_defaults(api):
    settings = _get(api, create_job(api))["settings"]
    assert settings["max_concurrent_runs"] == 1
    assert settings["format"] == "SINGLE_TASK"
    assert settings["email_notifications"] == {}


@pytest.mark.parametrize("version", ["2.0", "2.1", "2.2"])
def test_a_schedule_trigger_or_continuous_run_is_unpaused_unless_said(api, version):
    schedule = {"quartz_cron_expression": "0 0 6 * * ?", "timezone_id": "UTC"}
    trigger = {"file_arrival": {"url": "/Volumes/main/raw/landing/"}}
    scheduled = _get(api, create_job(api, {**public_job_body(unique("cron")),
                                            "schedule": schedule}), version)["settings"]
    assert scheduled["schedule"] == {**schedule, "pause_status": "UNPAUSED"}
    triggered = _get(api, create_job(api, {**public_job_body(unique("arrival")),
                                            "trigger": {**trigger, "pause_status": "PAUSED"}}),
                     version)["settings"]
    assert triggered["trigger"] == {**trigger, "pause_status": "PAUSED"}
    continuous = _get(api, create_job(api, {**public_job_body(unique("stream")),
                                             "continuous": {}}), version)["settings"]
    assert continuous["continuous"] == {"pause_status": "UNPAUSED"}


@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_both_forms_describe_the_same_job(api, version):
    # Read through the newer paths, a job of either create form is the same multi-task job:
    # the single task, keyed "main", holds the cluster and everything the legacy form keeps
    # in it; the job-level timeout is the service's default.
    name = unique("same")
    expected = {
        "name": name, "format": "MULTI_TASK", "max_concurrent_runs": 1,
        "email_notifications": {}, "webhook_notifications": {}, "timeout_seconds": 0,
        "tasks": [{
            "task_key": "main",
            "new_cluster": {
                "name": f"{name}-cluster",
                "spark_version": "13.3.x-scala2.12",
                "node_type_id": "Standard_DS3_v2",
                "autoscale": {"min_workers": 1, "max_workers": 3},
                "init_scripts": [{"dbfs": {"destination": "dbfs:/init/setup.sh"}}],
                "cluster_log_conf": {"dbfs": {"destination": "dbfs:/mnt/logs"}},
                "spark_env_vars": {"ENV": "test"},
            },
            "libraries": [{"pypi": {"package": "requests==2.31.0"}}],
            "timeout_seconds": 3600,
            "max_retries": 2,
            "spark_python_task": {"python_file": "dbfs:/jobs/main.py", "parameters": ["--x"]},
        }],
    }
    legacy = _get(api, create_job(api, legacy_form_job_body(name)), version)["settings"]
    public = _get(api, create_job(api, public_job_body(name)), version)["settings"]
    assert legacy == expected
    assert public == expected


def test_multi_task_jobs_are_kept_as_given(api):
    body: dict[str, Any] = {"name": unique("tasks"), "tasks": [
        {"task_key": "a", "spark_python_task": {"python_file": "dbfs:/a.py"},
         "existing_cluster_id": "0101-120000-shared01"},
        {"task_key": "b", "depends_on": [{"task_key": "a"}],
         "notebook_task": {"notebook_path": "/x"},
         "existing_cluster_id": "0101-120000-etl00002"}]}
    settings = _get(api, create_job(api, body), version="2.2")["settings"]
    assert settings["tasks"] == [body["tasks"][0], {**body["tasks"][1], "run_if": "ALL_SUCCESS"}]
    assert settings["format"] == "MULTI_TASK"


@pytest.mark.parametrize(("mutate", "field"), [
    (lambda b: b["new_cluster"]["autoscale"].update(min_workers=5), "autoscale"),
    (lambda b: b["new_cluster"]["init_scripts"][0]["dbfs"].update(destination="/x"),
     "init_scripts[0].dbfs.destination"),
    (lambda b: b["new_cluster"]["cluster_log_conf"]["dbfs"].update(destination="s3://x"),
     "cluster_log_conf.dbfs.destination"),
    (lambda b: b["new_cluster"].update(timeout_seconds=-1), "timeout_seconds"),
    (lambda b: b["new_cluster"].update(max_retries="two"), "max_retries"),
    (lambda b: b["new_cluster"].pop("spark_version"), "spark_version"),
    (lambda b: b["new_cluster"]["spark_python_task"].pop("python_file"), "python_file"),
    (lambda b: b["new_cluster"]["libraries"][0]["pypi"].update(package=""), "package"),
    (lambda b: b.update(name=7), "name"),
    (lambda b: b.update(timeout_seconds=10), "timeout_seconds"),
    (lambda b: b["new_cluster"].update(num_workers=2**64), "num_workers"),
])
def test_invalid_settings_name_the_field(api, mutate, field):
    body = legacy_form_job_body(unique("bad"))
    mutate(body)
    error = expect_error(api.post("/api/2.0/jobs/create", json=body), 400,
                         "INVALID_PARAMETER_VALUE")
    assert field in error["message"]


def test_duplicate_task_keys_are_invalid(api):
    body = {"name": "x", "tasks": [{"task_key": "a"}, {"task_key": "a"}]}
    expect_error(api.post("/api/2.0/jobs/create", json=body), 400, "INVALID_PARAMETER_VALUE")


def test_get_unknown_job_is_not_found(api):
    expect_error(api.get("/api/2.0/jobs/get", params={"job_id": 1}), 404,
                 "RESOURCE_DOES_NOT_EXIST")


@pytest.mark.parametrize("job_id", ["abc", "-1", str(2**64)])
def test_get_with_a_bad_job_id_is_invalid(api, job_id):
    expect_error(api.get("/api/2.0/jobs/get", params={"job_id": job_id}), 400,
                 "INVALID_PARAMETER_VALUE")


def test_list_pages_with_limit_offset_and_tokens(api):
    name = unique("paged")
    ids = [create_job(api, legacy_form_job_body(name)) for _ in range(5)]
    first = api.get("/api/2.0/jobs/list", params={"name": name, "limit": 2}).json()
    assert [j["job_id"] for j in first["jobs"]] == ids[::-1][:2]
    assert first["has_more"] is True
    second = api.get("/api/2.0/jobs/list",
                     params={"name": name, "limit": 2, "offset": 2}).json()
    assert [j["job_id"] for j in second["jobs"]] == ids[::-1][2:4]
    by_token = api.get("/api/2.2/jobs/list", params={
        "name": name, "limit": 2, "page_token": first["next_page_token"]}).json()
    assert [j["job_id"] for j in by_token["jobs"]] == [j["job_id"] for j in second["jobs"]]
    last = api.get("/api/2.0/jobs/list", params={"name": name, "limit": 2, "offset": 4}).json()
    assert len(last["jobs"]) == 1 and last["has_more"] is False
    assert "next_page_token" not in last


def test_list_name_filter_is_exact_and_case_insensitive(api):
    name = unique("Filter")
    job_id = create_job(api, legacy_form_job_body(name))
    found = api.get("/api/2.1/jobs/list", params={"name": name.upper()}).json()["jobs"]
    assert [j["job_id"] for j in found] == [job_id]
    assert api.get("/api/2.0/jobs/list", params={"name": name[:-1]}).json()["jobs"] == []


@pytest.mark.parametrize("params", [{"limit": 101}, {"limit": -1}, {"offset": -1},
                                    {"page_token": "garbage"}])
def test_list_with_bad_paging_is_invalid(api, params):
    expect_error(api.get("/api/2.0/jobs/list", params=params), 400, "INVALID_PARAMETER_VALUE")


def test_reset_replaces_settings_and_may_switch_form(api):
    job_id = create_job(api)
    new_settings = public_job_body(unique("reset"))
    response = api.post("/api/2.0/jobs/reset",
                        json={"job_id": job_id, "new_settings": new_settings})
    assert response.status_code == 200 and response.json() == {}
    assert _without_defaults(_get(api, job_id)["settings"]) == new_settings


def test_reset_unknown_job_is_not_found(api):
    response = api.post("/api/2.0/jobs/reset",
                        json={"job_id": 5, "new_settings": {"name": "x"}})
    expect_error(response, 404, "RESOURCE_DOES_NOT_EXIST")


def test_update_changes_named_fields(api):
    job_id = create_job(api)
    api.post("/api/2.1/jobs/update", json={"job_id": job_id, "new_settings": {
        "tags": {"deployment": "abc"}}, "fields_to_remove": ["max_concurrent_runs"]})
    settings = _get(api, job_id)["settings"]
    assert settings["tags"] == {"deployment": "abc"}
    assert settings["max_concurrent_runs"] == 1  # a removed field takes its default again


def test_delete_then_gone(api):
    job_id = create_job(api)
    assert api.post("/api/2.0/jobs/delete", json={"job_id": job_id}).json() == {}
    expect_error(api.get("/api/2.0/jobs/get", params={"job_id": job_id}), 404,
                 "RESOURCE_DOES_NOT_EXIST")
    expect_error(api.post("/api/2.0/jobs/delete", json={"job_id": job_id}), 404,
                 "RESOURCE_DOES_NOT_EXIST")


def test_run_now_succeeds(api):
    job_id = create_job(api)
    started = api.post("/api/2.0/jobs/run-now", json={"job_id": job_id, "python_params": ["a"]})
    assert started.status_code == 200, started.text
    run_id = started.json()["run_id"]
    assert started.json()["number_in_job"] == 1
    run = api.get("/api/2.0/jobs/runs/get", params={"run_id": run_id}).json()
    assert run["state"]["life_cycle_state"] == "TERMINATED"
    assert run["state"]["result_state"] == "SUCCESS"
    assert run["job_id"] == job_id and run["run_id"] == run_id
    assert run["trigger"] == "ONE_TIME" and run["run_type"] == "JOB_RUN"
    assert run["overriding_parameters"] == {"python_params": ["a"]}
    for field in ("start_time", "end_time", "setup_duration", "execution_duration",
                  "cleanup_duration"):
        assert isinstance(run[field], int)
    assert run["run_page_url"].startswith(api.base_url)


def test_fail_parameter_makes_the_run_fail(api):
    job_id = create_job(api)
    run_id = api.post("/api/2.0/jobs/run-now",
                      json={"job_id": job_id, "python_params": ["--fail"]}).json()["run_id"]
    state = api.get("/api/2.0/jobs/runs/get", params={"run_id": run_id}).json()["state"]
    assert state["life_cycle_state"] == "TERMINATED"
    assert state["result_state"] == "FAILED"
    assert "--fail" in state["state_message"]


def test_idempotency_token_returns_the_same_run(api):
    job_id = create_job(api)
    body = {"job_id": job_id, "idempotency_token": unique("token")}
    first = api.post("/api/2.1/jobs/run-now", json=body).json()
    second = api.post("/api/2.1/jobs/run-now", json=body).json()
    third = api.post("/api/2.1/jobs/run-now", json={"job_id": job_id}).json()
    assert first == second
    assert third["run_id"] != first["run_id"] and third["number_in_job"] == 2


def test_run_now_of_an_unknown_job_is_not_found(api):
    error = expect_error(api.post("/api/2.0/jobs/run-now", json={"job_id": 1}), 404,
                         "RESOURCE_DOES_NOT_EXIST")
    assert error["message"] == "Job 1 does not exist."


@pytest.mark.parametrize(("body", "field"), [
    (lambda job_id: {"job_id": "x"}, "job_id"),
    (lambda job_id: {"python_params": []}, "job_id"),
    (lambda job_id: {"job_id": job_id, "python_params": "a"}, "python_params"),
    (lambda job_id: {"job_id": job_id, "idempotency_token": "x" * 65}, "idempotency_token"),
])
def test_run_now_with_bad_input_is_invalid_naming_the_field(api, body, field):
    # Where a job is named, it exists: the bad field is the one fault.
    response = api.post("/api/2.0/jobs/run-now", json=body(create_job(api)))
    error = expect_error(response, 400, "INVALID_PARAMETER_VALUE")
    assert field in error["message"]


def test_runs_get_unknown_is_not_found(api):
    expect_error(api.get("/api/2.0/jobs/runs/get", params={"run_id": 42}), 404,
                 "RESOURCE_DOES_NOT_EXIST")


def test_run_phases_follow_the_transition_time(manual, manual_api):
    api = manual_api
    run_id = api.post("/api/2.0/jobs/run-now",
                      json={"job_id": create_job(api)}).json()["run_id"]

    def phase():
        return api.get("/api/2.0/jobs/runs/get",
                       params={"run_id": run_id}).json()["state"]["life_cycle_state"]

    assert phase() == "PENDING"
    advance_clock(manual, MANUAL_TRANSITION_SECONDS / 2 - 1)
    assert phase() == "PENDING"
    advance_clock(manual, 1)
    assert phase() == "RUNNING"
    advance_clock(manual, MANUAL_TRANSITION_SECONDS / 2)
    assert phase() == "TERMINATED"


def test_non_admin_sees_only_jobs_it_may_view(api, emulator):
    application, _ = add_service_principal(api, emulator)
    member = api_as(emulator, application)
    others = create_job(api)
    own = create_job(member)
    visible = {j["job_id"] for j in member.get("/api/2.0/jobs/list",
                                               params={"limit": 100}).json()["jobs"]}
    assert own in visible and others not in visible
    expect_error(member.get("/api/2.0/jobs/get", params={"job_id": others}), 403,
                 "PERMISSION_DENIED")
    expect_error(member.post("/api/2.0/jobs/run-now", json={"job_id": others}), 403,
                 "PERMISSION_DENIED")
    assert member.post("/api/2.0/jobs/run-now", json={"job_id": own}).status_code == 200


def test_a_listed_page_follows_every_change_to_the_jobs(api, emulator):
    # A page is kept between writes; each kind of write must show in the next listing.
    application, _ = add_service_principal(api, emulator)
    member = api_as(emulator, application)
    name, renamed = unique("kept"), unique("renamed")

    def listed(client: Api, job_name: str) -> list[int]:
        response = client.get("/api/2.1/jobs/list", params={"name": job_name})
        assert response.status_code == 200, response.text
        return [j["job_id"] for j in response.json()["jobs"]]

    assert listed(api, name) == []
    job_id = create_job(api, legacy_form_job_body(name))
    assert listed(api, name) == [job_id]
    assert listed(member, name) == []  # the same page, asked by someone who may not view it
    assert api.patch(f"/api/2.0/permissions/jobs/{job_id}", json={"access_control_list": [
        {"service_principal_name": application["client_id"], "permission_level": "CAN_VIEW"},
    ]}).status_code == 200
    assert listed(member, name) == [job_id]
    assert api.post("/api/2.1/jobs/update", json={
        "job_id": job_id, "new_settings": {"name": renamed}}).status_code == 200
    assert listed(api, name) == [] and listed(api, renamed) == [job_id]
    assert api.post("/api/2.1/jobs/delete", json={"job_id": job_id}).status_code == 200
    assert listed(api, renamed) == [] and listed(member, renamed) == []
