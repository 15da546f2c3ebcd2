"""JobsApi and job_wire: paths per wire form, the one conversion to the wire, paging, errors."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import responses
from responses import matchers

from providers.client.connection import WireForm
from providers.client.errors import InvalidParameter, TemporarilyUnavailable
from providers.client.workspace import client_for
from providers.jobs.job_wire import (
    LEGACY_TASK_KEY,
    legacy_single_task,
    lift,
    to_wire,
)
from providers.jobs.jobs_api import JobsApi
from tests.unit.client_support import (
    BASE_URL,
    TOKEN_URL,
    connection,
    token_body,
)

PREFIX = {WireForm.PUBLIC: f"{BASE_URL}/api/2.2/jobs", WireForm.LEGACY: f"{BASE_URL}/api/2.0/jobs"}

# A lifted legacy job the legacy form's nesting can carry, in the canonical shape ...
LIFTED: dict[str, Any] = {
    "name": "nightly",
    "tags": {"team": "data"},
    "tasks": [
        {
            "task_key": LEGACY_TASK_KEY,
            "new_cluster": {
                "cluster_name": "nightly",
                "spark_version": "13.3.x-scala2.12",
                "node_type_id": "Standard_DS3_v2",
                "autoscale": {"min_workers": 1, "max_workers": 4},
                "init_scripts": [{"dbfs": {"destination": "dbfs:/init/setup.sh"}}],
                "cluster_log_conf": {"dbfs": {"destination": "dbfs:/mnt/logs/nightly"}},
                "spark_env_vars": {"ENV": "prod"},
            },
            "libraries": [{"pypi": {"package": "requests==2.32.3"}}],
            "timeout_seconds": 3600,
            "max_retries": 2,
            "spark_python_task": {"python_file": "dbfs:/jobs/main.py", "parameters": ["--x"]},
        }
    ],
}
# ... and the same job in the specification's create body.
LEGACY_FORM_BODY: dict[str, Any] = {
    "name": "nightly",
    "tags": {"team": "data"},
    "new_cluster": {
        "name": "nightly",
        "spark_version": "13.3.x-scala2.12",
        "node_type_id": "Standard_DS3_v2",
        "autoscale": {"min_workers": 1, "max_workers": 4},
        "init_scripts": [{"dbfs": {"destination": "dbfs:/init/setup.sh"}}],
        "cluster_log_conf": {
            "dbfs": {"destination": "dbfs:/mnt/logs/nightly"},
            "spark_env_vars": {"ENV": "prod"},
        },
        "libraries": [{"pypi": {"package": "requests==2.32.3"}}],
        "timeout_seconds": 3600,
        "max_retries": 2,
        "spark_python_task": {"python_file": "dbfs:/jobs/main.py", "parameters": ["--x"]},
    },
}
MULTI_TASK: dict[str, Any] = {
    "name": "chain",
    "tasks": [
        {"task_key": "a", "notebook_task": {"notebook_path": "/a"}, "existing_cluster_id": "c1"},
        {"task_key": "b", "depends_on": [{"task_key": "a"}],
         "notebook_task": {"notebook_path": "/b"}, "existing_cluster_id": "c1"},
    ],
}


@pytest.fixture(autouse=True)
def _clean(fresh_client_caches: None) -> None:
    """Every test starts with empty client caches (the root conftest's fixture)."""


@pytest.fixture(params=[WireForm.LEGACY, WireForm.PUBLIC], ids=lambda f: f.value)
def form(request) -> WireForm:
    return request.param


@pytest.fixture
def mocked(form):
    with responses.RequestsMock() as rsps:
        rsps.add("GET" if form is WireForm.LEGACY else "POST", TOKEN_URL, json=token_body())
        yield rsps


def api(form: WireForm) -> JobsApi:
    return JobsApi(client_for(connection(wire_form=form.value)))


def sent(mocked: responses.RequestsMock, index: int = -1) -> Any:
    body = mocked.calls[index].request.body
    assert isinstance(body, str | bytes)
    return json.loads(body)


# --- job_wire ------------------------------------------------------------------------


def test_the_legacy_form_nesting_round_trip():
    body = to_wire(LIFTED, WireForm.LEGACY)
    assert body == LEGACY_FORM_BODY
    assert lift(body) == LIFTED


def test_a_public_jobs_2_0_single_task_job_is_lifted():
    legacy = {
        "name": "j",
        "existing_cluster_id": "0101-abc",
        "notebook_task": {"notebook_path": "/n"},
        "libraries": [{"jar": "/Volumes/a.jar"}],
        "max_retries": 1,
        "min_retry_interval_millis": 1000,
        "retry_on_timeout": True,
        "timeout_seconds": 60,
        "max_concurrent_runs": 2,
        "email_notifications": {"on_failure": ["a@example.com"]},
        "format": "SINGLE_TASK",
    }
    assert lift(legacy) == {
        "name": "j",
        "max_concurrent_runs": 2,
        "email_notifications": {"on_failure": ["a@example.com"]},
        "tasks": [
            {
                "task_key": "main",
                "notebook_task": {"notebook_path": "/n"},
                "existing_cluster_id": "0101-abc",
                "libraries": [{"jar": "/Volumes/a.jar"}],
                "max_retries": 1,
                "min_retry_interval_millis": 1000,
                "retry_on_timeout": True,
                "timeout_seconds": 60,
            }
        ],
    }


def test_lift_leaves_the_canonical_shape_alone_and_copies_it():
    lifted = lift(MULTI_TASK)
    assert lifted == MULTI_TASK
    lifted["tasks"].clear()
    assert MULTI_TASK["tasks"]


@pytest.mark.parametrize(
    "settings",
    [
        MULTI_TASK,
        {**LIFTED, "tasks": [{**LIFTED["tasks"][0], "task_key": "ingest"}]},
        {**LIFTED, "tasks": [{**LIFTED["tasks"][0], "retry_on_timeout": True}]},
        {**LIFTED, "tasks": [{**LIFTED["tasks"][0], "notebook_task": {"notebook_path": "/n"}}]},
        {**LIFTED, "queue": {"enabled": True}},
        {**LIFTED, "timeout_seconds": 60},
    ],
    ids=["multi-task", "other-key", "retry-on-timeout", "two-types", "queue", "job-timeout"],
)
def test_anything_the_legacy_form_nesting_cannot_carry_goes_in_the_canonical_shape(settings):
    assert legacy_single_task(settings) is None
    assert to_wire(settings, WireForm.LEGACY) == settings


def test_the_public_form_always_sends_the_canonical_shape():
    assert to_wire(LIFTED, WireForm.PUBLIC) == LIFTED
    assert to_wire(LEGACY_FORM_BODY, WireForm.PUBLIC) == LIFTED


# --- paths per wire form ---------------------------------------------------------------


def test_every_call_uses_the_jobs_path_of_its_form(mocked, form):
    prefix = PREFIX[form]
    mocked.post(f"{prefix}/create", json={"job_id": 7})
    mocked.get(f"{prefix}/get", json={"job_id": 7, "settings": MULTI_TASK})
    mocked.get(f"{prefix}/list", json={"jobs": [{"job_id": 7, "settings": {"name": "chain"}}]})
    mocked.post(f"{prefix}/update", json={})
    mocked.post(f"{prefix}/reset", json={})
    mocked.post(f"{prefix}/delete", json={})
    mocked.post(f"{prefix}/run-now", json={"run_id": 11, "number_in_job": 1})
    mocked.get(f"{prefix}/runs/get", json={"run_id": 11, "state": {"life_cycle_state": "PENDING"}})
    mocked.get(f"{prefix}/runs/list", json={"runs": [{"run_id": 11}], "has_more": False})
    mocked.post(f"{prefix}/runs/cancel", json={})
    jobs = api(form)

    assert jobs.create(MULTI_TASK) == 7
    assert jobs.get(7)["settings"] == MULTI_TASK
    assert [job["job_id"] for job in jobs.list()] == [7]
    jobs.update(7, {"name": "x"}, ["schedule"])
    jobs.reset(7, MULTI_TASK)
    assert jobs.delete(7) is True
    assert jobs.run_now(7)["run_id"] == 11
    assert jobs.get_run(11)["state"]["life_cycle_state"] == "PENDING"
    assert [run["run_id"] for run in jobs.list_runs(7)] == [11]
    jobs.cancel_run(11)
    assert all(call.request.url.startswith(prefix) for call in mocked.calls[1:])


def test_create_in_the_legacy_form_sends_a_lifted_legacy_job_in_its_nesting():
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        mocked.post(f"{PREFIX[WireForm.LEGACY]}/create", json={"job_id": 3},
                    match=[matchers.json_params_matcher(LEGACY_FORM_BODY)])
        mocked.get(f"{PREFIX[WireForm.LEGACY]}/get",
                   json={"job_id": 3, "creator_user_name": "sp", "settings": LEGACY_FORM_BODY})
        jobs = api(WireForm.LEGACY)
        assert jobs.create(LIFTED) == 3
        assert jobs.get(3) == {"job_id": 3, "creator_user_name": "sp", "settings": LIFTED}


def test_reset_lowers_too_but_update_sends_the_canonical_shape():
    with responses.RequestsMock() as mocked:
        mocked.get(TOKEN_URL, json=token_body())
        body = {"job_id": 3, "new_settings": LEGACY_FORM_BODY}
        mocked.post(f"{PREFIX[WireForm.LEGACY]}/reset", json={},
                    match=[matchers.json_params_matcher(body)])
        mocked.post(f"{PREFIX[WireForm.LEGACY]}/update", json={})
        jobs = api(WireForm.LEGACY)
        jobs.reset(3, LIFTED)
        jobs.update(3, {"tasks": LIFTED["tasks"]})
        assert sent(mocked) == {"job_id": 3, "new_settings": {"tasks": LIFTED["tasks"]}}


def test_create_in_the_public_form_sends_the_canonical_shape():
    with responses.RequestsMock() as mocked:
        mocked.post(TOKEN_URL, json=token_body())
        mocked.post(f"{PREFIX[WireForm.PUBLIC]}/create", json={"job_id": 4},
                    match=[matchers.json_params_matcher(LIFTED)])
        assert api(WireForm.PUBLIC).create(LIFTED) == 4


# --- get: paging of the job's arrays -------------------------------------------------


def test_get_follows_the_pages_of_tasks_and_clusters(mocked, form):
    path = f"{PREFIX[form]}/get"
    task = {"notebook_task": {"notebook_path": "/n"}, "job_cluster_key": "k1"}
    first = {
        "job_id": 9,
        "settings": {
            "name": "big",
            "tasks": [{"task_key": "t1", **task}, {"task_key": "t2", **task}],
            "job_clusters": [{"job_cluster_key": "k1", "new_cluster": {"num_workers": 1}}],
            "parameters": [{"name": "p1", "default": "1"}],
        },
        "has_more": True,
        "next_page_token": "page-2",
    }
    second = {
        "job_id": 9,
        "settings": {
            "name": "big",
            "tasks": [{"task_key": "t3", **task}],
            "job_clusters": [{"job_cluster_key": "k2", "new_cluster": {"num_workers": 2}}],
            "environments": [{"environment_key": "e1", "spec": {"client": "2"}}],
        },
        "next_page_token": "page-3",
    }
    third = {"job_id": 9, "settings": {"name": "big", "tasks": [{"task_key": "t4", **task}]}}
    mocked.get(path, json=first, match=[matchers.query_param_matcher({"job_id": "9"})])
    mocked.get(path, json=second,
               match=[matchers.query_param_matcher({"job_id": "9", "page_token": "page-2"})])
    mocked.get(path, json=third,
               match=[matchers.query_param_matcher({"job_id": "9", "page_token": "page-3"})])

    job = api(form).get(9)

    settings = job["settings"]
    assert [t["task_key"] for t in settings["tasks"]] == ["t1", "t2", "t3", "t4"]
    assert [c["job_cluster_key"] for c in settings["job_clusters"]] == ["k1", "k2"]
    assert [p["name"] for p in settings["parameters"]] == ["p1"]
    assert [e["environment_key"] for e in settings["environments"]] == ["e1"]
    assert "next_page_token" not in job and "has_more" not in job


def test_get_run_follows_the_pages_of_a_for_each_runs_iterations(mocked, form):
    path = f"{PREFIX[form]}/runs/get"
    mocked.get(path, json={"run_id": 5, "tasks": [{"task_key": "each"}],
                           "iterations": [{"run_id": 51}], "next_page_token": "n"},
               match=[matchers.query_param_matcher({"run_id": "5"})])
    mocked.get(path, json={"run_id": 5, "tasks": [{"task_key": "each"}],
                           "iterations": [{"run_id": 52}]},
               match=[matchers.query_param_matcher({"run_id": "5", "page_token": "n"})])
    run = api(form).get_run(5)
    assert [i["run_id"] for i in run["iterations"]] == [51, 52]
    assert run["tasks"] == [{"task_key": "each"}]


def test_list_pages_by_token_and_lifts_legacy_settings(mocked, form):
    path = f"{PREFIX[form]}/list"
    mocked.get(path, json={"jobs": [{"job_id": 1, "settings": MULTI_TASK}], "has_more": True,
                           "next_page_token": "t2"},
               match=[matchers.query_param_matcher({"limit": "100", "name": "nightly"})])
    mocked.get(path, json={"jobs": [{"job_id": 2, "settings": LEGACY_FORM_BODY}]},
               match=[matchers.query_param_matcher({"limit": "100", "name": "nightly",
                                                    "page_token": "t2"})])
    listed = list(api(form).list("nightly"))
    assert [(job["job_id"], job["settings"]) for job in listed] == [(1, MULTI_TASK), (2, LIFTED)]


def test_list_pages_by_offset_without_a_token(mocked, form):
    path = f"{PREFIX[form]}/list"
    mocked.get(path, json={"jobs": [{"job_id": 1}], "has_more": True},
               match=[matchers.query_param_matcher({"limit": "100", "expand_tasks": "true"})])
    mocked.get(path, json={"jobs": [{"job_id": 2}], "has_more": False},
               match=[matchers.query_param_matcher({"limit": "100", "expand_tasks": "true",
                                                    "offset": "1"})])
    assert [job["job_id"] for job in api(form).list(expand_tasks=True)] == [1, 2]


def test_list_runs_filters_and_pages(mocked, form):
    path = f"{PREFIX[form]}/runs/list"
    mocked.get(path, json={"runs": [{"run_id": 3}], "next_page_token": "r2"},
               match=[matchers.query_param_matcher({"limit": "25", "job_id": "7",
                                                    "active_only": "true"})])
    mocked.get(path, json={"runs": [{"run_id": 2}]},
               match=[matchers.query_param_matcher({"limit": "25", "job_id": "7",
                                                    "active_only": "true", "page_token": "r2"})])
    assert [r["run_id"] for r in api(form).list_runs(7, active_only=True)] == [3, 2]


# --- writes ----------------------------------------------------------------------------


def test_update_body(mocked, form):
    task = {"task_key": "a", "notebook_task": {"notebook_path": "/a"}}
    new_settings = {"name": "n", "tasks": [task]}
    mocked.post(
        f"{PREFIX[form]}/update",
        json={},
        match=[matchers.json_params_matcher({
            "job_id": 12,
            "new_settings": new_settings,
            "fields_to_remove": ["schedule", "tasks/old"],
        })],
    )
    api(form).update(12, new_settings, ["schedule", "tasks/old"])


def test_update_without_removals_sends_no_fields_to_remove(mocked, form):
    mocked.post(f"{PREFIX[form]}/update", json={},
                match=[matchers.json_params_matcher({"job_id": 12, "new_settings": {"name": "n"}})])
    api(form).update(12, {"name": "n"})


@pytest.mark.parametrize(
    ("status", "body"),
    [
        (400, {"error_code": "INVALID_PARAMETER_VALUE", "message": "Job 5 does not exist."}),
        (404, {"error_code": "RESOURCE_DOES_NOT_EXIST", "message": "Job 5 does not exist."}),
    ],
    ids=["invalid-parameter", "not-found"],
)
def test_deleting_a_gone_job_is_not_an_error(mocked, form, status, body):
    mocked.post(f"{PREFIX[form]}/delete", status=status, json=body)
    assert api(form).delete(5) is False


def test_other_delete_errors_raise(mocked, form):
    mocked.post(f"{PREFIX[form]}/delete", status=400,
                json={"error_code": "INVALID_PARAMETER_VALUE", "message": "job_id is required"})
    with pytest.raises(InvalidParameter):
        api(form).delete(5)


def test_writes_that_are_safe_to_repeat_are_retried_and_create_is_not(mocked, form):
    prefix = PREFIX[form]
    unavailable = {"error_code": "TEMPORARILY_UNAVAILABLE", "message": "try again"}
    for name in ("update", "reset", "delete", "runs/cancel"):
        mocked.post(f"{prefix}/{name}", status=503, json=unavailable)
        mocked.post(f"{prefix}/{name}", json={})
    mocked.post(f"{prefix}/create", status=503, json=unavailable)
    jobs = api(form)
    jobs.update(1, {"name": "n"})
    jobs.reset(1, MULTI_TASK)
    assert jobs.delete(1) is True
    jobs.cancel_run(2)
    with pytest.raises(TemporarilyUnavailable):
        jobs.create(MULTI_TASK)
    creates = [c for c in mocked.calls if c.request.url.endswith("/create")]
    assert len(creates) == 1


def test_run_now_sends_only_the_parameters_given(mocked, form):
    path = f"{PREFIX[form]}/run-now"
    mocked.post(path, json={"run_id": 1, "number_in_job": 1},
                match=[matchers.json_params_matcher({"job_id": 4,
                                                     "job_parameters": {"day": "2024-01-01"},
                                                     "only": ["load"]})])
    mocked.post(path, json={"run_id": 2, "number_in_job": 2},
                match=[matchers.json_params_matcher({"job_id": 4, "python_params": ["a", "b"],
                                                     "idempotency_token": "tok-1"})])
    jobs = api(form)
    assert jobs.run_now(4, job_parameters={"day": "2024-01-01"}, only=("load",))["run_id"] == 1
    assert jobs.run_now(4, python_params=("a", "b"), idempotency_token="tok-1")["run_id"] == 2


def test_run_now_with_a_token_is_repeated_after_a_lost_answer(mocked, form):
    path = f"{PREFIX[form]}/run-now"
    mocked.post(path, status=503, json={"error_code": "TEMPORARILY_UNAVAILABLE", "message": "x"})
    mocked.post(path, json={"run_id": 1, "number_in_job": 1})
    assert api(form).run_now(4, idempotency_token="tok")["run_id"] == 1


def test_the_caller_s_settings_are_never_changed(mocked, form):
    mocked.post(f"{PREFIX[form]}/create", json={"job_id": 1})
    original = copy.deepcopy(LIFTED)
    api(form).create(LIFTED)
    assert LIFTED == original
