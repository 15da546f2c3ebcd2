"""Runs of multi-task jobs: run-now parameters, the tasks of a run, the failure trigger and
how a failure travels along depends_on and run_if, runs/list, runs/cancel and cancel-all,
and the states a run passes through over the transition time."""

from __future__ import annotations

import pytest

from tests.emulator.conftest import MANUAL_TRANSITION_SECONDS
from tests.emulator.jobs_support import (
    create,
    get_run,
    job_body,
    notebook,
    python_script,
    results,
    run_job,
    start_run,
)
from tests.emulator.support import (
    Api,
    add_service_principal,
    api_as,
    create_job,
    expect_error,
    legacy_form_job_body,
)
from workspace_emulator.testing import advance_clock

EVERY_PARAMETER_KIND = {
    "job_parameters": {"table": "users"}, "python_params": ["--date", "2024-06-01"],
    "jar_params": ["a"], "spark_submit_params": ["--class", "X"],
    "notebook_params": {"mode": "full"}, "python_named_params": {"n": "1"},
    "sql_params": {"day": "monday"}, "dbt_commands": ["dbt run"],
}


def _state(task_or_run: dict) -> tuple[str, str | None]:
    state = task_or_run["state"]
    return state["life_cycle_state"], state.get("result_state")


# run-now and the tasks of a run

def test_run_now_takes_every_parameter_kind(api):
    job_id = create(api, job_body(notebook("a")))
    run = run_job(api, job_id, **EVERY_PARAMETER_KIND, idempotency_token="every-kind-1")
    assert run["overriding_parameters"] == EVERY_PARAMETER_KIND
    assert _state(run) == ("TERMINATED", "SUCCESS")


@pytest.mark.parametrize("parameters", [
    {"notebook_params": ["a"]}, {"jar_params": [1]}, {"job_parameters": {"a": 1}},
    {"sql_params": "x"},
])
def test_run_now_refuses_parameters_of_the_wrong_shape(api, parameters):
    job_id = create(api, job_body(notebook("a")))
    response = api.post("/api/2.2/jobs/run-now", json={"job_id": job_id, **parameters})
    expect_error(response, 400, "INVALID_PARAMETER_VALUE")


def test_a_run_lists_its_tasks_with_their_own_run_ids_and_states(api):
    body = job_body(notebook("a"), python_script("b"), notebook("c", "a", "b"))
    run = run_job(api, create(api, body))
    assert [t["task_key"] for t in run["tasks"]] == ["a", "b", "c"]
    run_ids = {t["run_id"] for t in run["tasks"]}
    assert len(run_ids) == 3 and run["run_id"] not in run_ids
    for task, given in zip(run["tasks"], body["tasks"], strict=True):
        assert _state(task) == ("TERMINATED", "SUCCESS")
        assert task["existing_cluster_id"] == given["existing_cluster_id"]
        assert isinstance(task["start_time"], int) and isinstance(task["end_time"], int)
    assert run["format"] == "MULTI_TASK"


def test_a_legacy_job_runs_its_one_task_main(api):
    run = run_job(api, create_job(api, legacy_form_job_body("legacy-run")))
    assert results(run) == {"main": "SUCCESS"}
    assert run["format"] == "SINGLE_TASK"


# the failure trigger and how failures travel

def test_a_task_with_the_trigger_in_its_parameters_fails_and_its_dependants_do_not_run(api):
    body = job_body(notebook("ok"), python_script("bad", "--x", "--fail"),
                    notebook("after", "bad"), notebook("later", "after"),
                    notebook("beside", "ok"))
    run = run_job(api, create(api, body))
    assert results(run) == {"ok": "SUCCESS", "bad": "FAILED", "after": "UPSTREAM_FAILED",
                            "later": "UPSTREAM_FAILED", "beside": "SUCCESS"}
    bad = run["tasks"][1]
    assert "spark_python_task.parameters[1] contained '--fail'" in bad["state"]["state_message"]
    assert "'bad'" in run["tasks"][2]["state"]["state_message"]
    assert _state(run) == ("TERMINATED", "FAILED")
    assert "task 'bad' failed" in run["state"]["state_message"]


@pytest.mark.parametrize("task", [
    {**python_script("t"), "spark_python_task": {"python_file": "dbfs:/jobs/--fail.py"}},
    notebook("t", notebook_task={"notebook_path": "/Shared/--fail"}),
    notebook("t", notebook_task={"notebook_path": "/Shared/t",
                                 "base_parameters": {"mode": "--fail"}}),
])
def test_the_trigger_in_a_path_or_a_task_parameter_fails_the_task(api, task):
    run = run_job(api, create(api, job_body(task)))
    assert results(run) == {"t": "FAILED"}


def test_a_look_alike_is_not_the_trigger(api):
    run = run_job(api, create(api, job_body(python_script("t", "--failures=3"))))
    assert results(run) == {"t": "SUCCESS"}


@pytest.mark.parametrize(("parameters", "failed"), [
    ({"notebook_params": {"x": "--fail"}}, {"nb"}),
    ({"python_params": ["--fail"]}, {"py"}),
    ({"job_parameters": {"x": "--fail"}}, {"nb", "py"}),
    ({"jar_params": ["--fail"]}, set()),
])
def test_run_now_parameters_reach_their_task_types(api, parameters, failed):
    job_id = create(api, job_body(notebook("nb"), python_script("py")))
    run = run_job(api, job_id, **parameters)
    assert {key for key, result in results(run).items() if result == "FAILED"} == failed


@pytest.mark.parametrize(("run_if", "upstream", "expected"), [
    ("ALL_SUCCESS", ["ok", "bad"], "UPSTREAM_FAILED"),
    ("ALL_SUCCESS", ["ok"], "SUCCESS"),
    ("ALL_DONE", ["ok", "bad"], "SUCCESS"),
    ("AT_LEAST_ONE_SUCCESS", ["ok", "bad"], "SUCCESS"),
    ("AT_LEAST_ONE_SUCCESS", ["bad"], "UPSTREAM_FAILED"),
    ("NONE_FAILED", ["ok", "bad"], "UPSTREAM_FAILED"),
    ("NONE_FAILED", ["ok"], "SUCCESS"),
    ("AT_LEAST_ONE_FAILED", ["ok", "bad"], "SUCCESS"),
    ("AT_LEAST_ONE_FAILED", ["ok"], "EXCLUDED"),
    ("ALL_FAILED", ["bad"], "SUCCESS"),
    ("ALL_FAILED", ["ok", "bad"], "EXCLUDED"),
])
def test_run_if_decides_whether_a_dependant_runs(api, run_if, upstream, expected):
    body = job_body(notebook("ok"), python_script("bad", "--fail"),
                    notebook("t", *upstream, run_if=run_if))
    assert results(run_job(api, create(api, body)))["t"] == expected


def test_excluded_tasks_count_as_succeeded_and_exclude_tasks_that_only_follow_them(api):
    body = job_body(notebook("ok"), notebook("on_failure", "ok", run_if="AT_LEAST_ONE_FAILED"),
                    notebook("after_excluded", "on_failure"),
                    notebook("after_both", "ok", "on_failure"))
    assert results(run_job(api, create(api, body))) == {
        "ok": "SUCCESS", "on_failure": "EXCLUDED", "after_excluded": "EXCLUDED",
        "after_both": "SUCCESS"}


def test_a_failure_handled_by_a_leaf_leaves_the_run_successful_with_failures(api):
    body = job_body(python_script("bad", "--fail"), notebook("cleanup", "bad",
                                                             run_if="ALL_DONE"))
    run = run_job(api, create(api, body))
    assert results(run) == {"bad": "FAILED", "cleanup": "SUCCESS"}
    assert _state(run) == ("TERMINATED", "SUCCESS_WITH_FAILURES")


def test_disabled_tasks_do_not_run(api):
    body = job_body(python_script("off", "--fail", disabled=True), notebook("next", "off"))
    run = run_job(api, create(api, body))
    assert results(run) == {"off": "DISABLED", "next": "EXCLUDED"}
    assert _state(run) == ("TERMINATED", "SUCCESS")


# runs/list

def test_runs_list_filters_by_job_newest_first_and_pages(api):
    job_id = create(api, job_body(notebook("a")))
    other = create(api, job_body(notebook("a")))
    run_ids = [start_run(api, job_id) for _ in range(5)]
    start_run(api, other)
    first = api.get("/api/2.2/jobs/runs/list", params={"job_id": job_id, "limit": 2}).json()
    assert [r["run_id"] for r in first["runs"]] == run_ids[::-1][:2]
    assert first["has_more"] is True and "tasks" not in first["runs"][0]
    second = api.get("/api/2.1/jobs/runs/list", params={
        "job_id": job_id, "limit": 2, "page_token": first["next_page_token"]}).json()
    assert [r["run_id"] for r in second["runs"]] == run_ids[::-1][2:4]
    by_offset = api.get("/api/2.0/jobs/runs/list", params={
        "job_id": job_id, "limit": 2, "offset": 4}).json()
    assert [r["run_id"] for r in by_offset["runs"]] == run_ids[:1]
    assert by_offset["has_more"] is False and "next_page_token" not in by_offset
    everything = api.get("/api/2.2/jobs/runs/list", params={"limit": 25}).json()["runs"]
    assert {r["job_id"] for r in everything} >= {job_id, other}


def test_runs_list_expands_tasks_and_filters_completed_runs(api):
    job_id = create(api, job_body(notebook("a"), notebook("b", "a")))
    run_id = start_run(api, job_id)
    listed = api.get("/api/2.2/jobs/runs/list", params={
        "job_id": job_id, "expand_tasks": "true", "completed_only": "true"}).json()["runs"]
    assert [r["run_id"] for r in listed] == [run_id]
    assert [t["task_key"] for t in listed[0]["tasks"]] == ["a", "b"]
    assert listed[0]["has_more"] is False
    active = api.get("/api/2.2/jobs/runs/list", params={"job_id": job_id,
                                                        "active_only": "true"}).json()
    assert active["runs"] == []


@pytest.mark.parametrize("params", [
    {"active_only": "true", "completed_only": "true"}, {"limit": 26}, {"limit": -1},
    {"page_token": "garbage"}, {"offset": -1},
])
def test_runs_list_refuses_bad_filters(api, params):
    expect_error(api.get("/api/2.2/jobs/runs/list", params=params), 400,
                 "INVALID_PARAMETER_VALUE")


def test_runs_list_of_an_unknown_job_is_not_found(api):
    expect_error(api.get("/api/2.2/jobs/runs/list", params={"job_id": 1}), 404,
                 "RESOURCE_DOES_NOT_EXIST")


def test_runs_of_jobs_a_caller_may_not_view_are_hidden_and_stay_uncancellable(api, emulator):
    application, _ = add_service_principal(api, emulator)
    member = api_as(emulator, application)
    others = create(api, job_body(notebook("a")))
    others_run = start_run(api, others)
    own_run = start_run(member, create(member, job_body(notebook("a"))))
    listed = {r["run_id"] for r in member.get("/api/2.2/jobs/runs/list",
                                              params={"limit": 25}).json()["runs"]}
    assert own_run in listed and others_run not in listed
    expect_error(member.get("/api/2.2/jobs/runs/list", params={"job_id": others}), 403)
    expect_error(member.post("/api/2.2/jobs/runs/cancel", json={"run_id": others_run}), 403)
    expect_error(member.post("/api/2.2/jobs/runs/cancel-all", json={"job_id": others}), 403)


# cancelling, on the manual-clock emulator: a run stays active until the clock moves

def _active_ids(api: Api, job_id: int) -> list[int]:
    runs = api.get("/api/2.2/jobs/runs/list", params={"job_id": job_id,
                                                      "active_only": "true"}).json()["runs"]
    return [r["run_id"] for r in runs]


def test_cancel_ends_an_active_run_and_its_tasks(manual_api):
    job_id = create(manual_api, job_body(notebook("a"), notebook("b", "a")))
    run_id = start_run(manual_api, job_id)
    run = get_run(manual_api, run_id)
    assert _state(run) == ("PENDING", None)
    assert [_state(t) for t in run["tasks"]] == [("PENDING", None), ("BLOCKED", None)]
    assert _active_ids(manual_api, job_id) == [run_id]

    response = manual_api.post("/api/2.2/jobs/runs/cancel", json={"run_id": run_id})
    assert response.status_code == 200 and response.json() == {}
    run = get_run(manual_api, run_id)
    assert _state(run) == ("TERMINATED", "CANCELED")
    assert run["state"]["user_cancelled_or_timedout"] is True
    assert results(run) == {"a": "CANCELED", "b": "UPSTREAM_CANCELED"}
    assert run["end_time"] >= run["start_time"] > 0
    assert _active_ids(manual_api, job_id) == []
    completed = manual_api.get("/api/2.2/jobs/runs/list", params={
        "job_id": job_id, "completed_only": "true"}).json()["runs"]
    assert [r["run_id"] for r in completed] == [run_id]

    again = manual_api.post("/api/2.2/jobs/runs/cancel", json={"run_id": run_id})
    assert again.status_code == 200
    assert get_run(manual_api, run_id) == run


def test_cancel_all_ends_every_active_run_of_the_job(manual_api):
    job_id = create(manual_api, job_body(notebook("a")))
    other_job = create(manual_api, job_body(notebook("a")))
    run_ids = [start_run(manual_api, job_id) for _ in range(2)]
    other_run = start_run(manual_api, other_job)
    response = manual_api.post("/api/2.1/jobs/runs/cancel-all", json={"job_id": job_id})
    assert response.status_code == 200, response.text
    assert {_state(get_run(manual_api, r))[1] for r in run_ids} == {"CANCELED"}
    assert _active_ids(manual_api, other_job) == [other_run]


def test_cancel_all_needs_a_job_or_all_queued_runs(manual_api):
    expect_error(manual_api.post("/api/2.2/jobs/runs/cancel-all", json={}), 400,
                 "INVALID_PARAMETER_VALUE")
    response = manual_api.post("/api/2.2/jobs/runs/cancel-all", json={"all_queued_runs": True})
    assert response.status_code == 200


def test_cancel_of_an_unknown_run_is_not_found(manual_api):
    expect_error(manual_api.post("/api/2.2/jobs/runs/cancel", json={"run_id": 7}), 404,
                 "RESOURCE_DOES_NOT_EXIST")


# states over time

def test_tasks_pass_through_their_states_level_by_level(manual, manual_api):
    # T = 60 s: pending until 30 s, then level 0 runs until 45 s and level 1 until 60 s.
    api = manual_api
    run_id = start_run(api, create(api, job_body(notebook("a"), notebook("b", "a"))))
    expected = [
        (15, ("PENDING", None), [("PENDING", None), ("BLOCKED", None)]),
        (37.5, ("RUNNING", None), [("RUNNING", None), ("BLOCKED", None)]),
        (52.5, ("RUNNING", None), [("TERMINATED", "SUCCESS"), ("RUNNING", None)]),
        (60, ("TERMINATED", "SUCCESS"),
         [("TERMINATED", "SUCCESS"), ("TERMINATED", "SUCCESS")]),
    ]
    assert MANUAL_TRANSITION_SECONDS == 60
    elapsed = 0.0
    for at, run_state, task_states in expected:
        advance_clock(manual, at - elapsed)
        elapsed = at
        seen = get_run(api, run_id)
        assert (_state(seen), [_state(t) for t in seen["tasks"]]) == (
            run_state, task_states), f"at {at} s"
    a, b = seen["tasks"]
    assert a["end_time"] <= b["start_time"] and b["end_time"] == seen["end_time"]
