"""Multi-task jobs through Jobs 2.0, 2.1 and 2.2: storage and views per version, defaults,
the rules between tasks, references to clusters and principals, paging of long arrays."""

from __future__ import annotations

import pytest
from databricks.sdk.service import jobs as sdk_jobs

from tests.emulator.jobs_support import (
    ETL_CLUSTER,
    SMALL_CLUSTER,
    create,
    get_job,
    job_body,
    notebook,
    python_script,
    settings,
)
from tests.emulator.support import (
    add_service_principal,
    create_job,
    expect_error,
    legacy_form_job_body,
    make_user_of,
    public_job_body,
    unique,
)

CANONICAL_DEFAULTS = {"max_concurrent_runs": 1, "email_notifications": {}, "timeout_seconds": 0,
                      "webhook_notifications": {}, "format": "MULTI_TASK"}


def _refused(api, body: dict, *words: str, version: str = "2.2") -> str:
    error = expect_error(api.post(f"/api/{version}/jobs/create", json=body), 400,
                         "INVALID_PARAMETER_VALUE")
    for word in words:
        assert word in error["message"], error["message"]
    return error["message"]


# storage and views

@pytest.mark.parametrize("version", ["2.1", "2.2"])
def test_a_legacy_job_shows_one_task_keyed_main_through_2_1_and_2_2(api, version):
    name = unique("legacy")
    job_id = create_job(api, legacy_form_job_body(name))
    shown = settings(api, job_id, version)
    public = public_job_body(name)
    cluster = {k: v for k, v in public["new_cluster"].items() if k != "libraries"}
    assert shown["tasks"] == [{
        "task_key": "main", "new_cluster": cluster,
        "libraries": public["new_cluster"]["libraries"],
        "spark_python_task": public["spark_python_task"],
        "timeout_seconds": 3600, "max_retries": 2,
    }]
    assert shown["format"] == "MULTI_TASK"
    assert "new_cluster" not in shown and "spark_python_task" not in shown
    assert shown["timeout_seconds"] == 0  # the job's own timeout; 3600 is the task's


def test_a_legacy_job_reads_back_in_its_shape_through_2_0(api):
    for body in (legacy_form_job_body(unique("legacy")), public_job_body(unique("public"))):
        shown = settings(api, create_job(api, body), "2.0")
        assert shown == {**body, "max_concurrent_runs": 1, "email_notifications": {},
                         "format": "SINGLE_TASK"}


def test_a_multi_task_job_shows_tasks_through_2_0_too(api):
    body = job_body(notebook("a"), notebook("b", "a"))
    job_id = create(api, body, version="2.0")
    assert settings(api, job_id, "2.0") == settings(api, job_id, "2.2")
    assert settings(api, job_id, "2.0")["format"] == "MULTI_TASK"


def test_a_legacy_shape_sent_through_2_2_is_lifted_to_a_multi_task_job(api):
    body = {"name": unique("lifted"), "existing_cluster_id": ETL_CLUSTER,
            "notebook_task": {"notebook_path": "/Shared/x"}, "max_retries": 1}
    job_id = create(api, body, version="2.2")
    for version in ("2.0", "2.2"):
        shown = settings(api, job_id, version)
        assert shown["format"] == "MULTI_TASK"
        assert shown["tasks"] == [{"task_key": "main", "existing_cluster_id": ETL_CLUSTER,
                                   "notebook_task": {"notebook_path": "/Shared/x"},
                                   "max_retries": 1}]


def test_server_defaults_of_the_multi_task_view(api):
    body = job_body(notebook("a"), notebook("b", "a"), notebook("c", "a", run_if="ALL_DONE"))
    shown = settings(api, create(api, body, version="2.1"), "2.1")
    assert {k: shown[k] for k in CANONICAL_DEFAULTS} == CANONICAL_DEFAULTS
    assert "queue" not in shown  # queueing is on by default only for jobs made with 2.2
    assert [t.get("run_if") for t in shown["tasks"]] == [None, "ALL_SUCCESS", "ALL_DONE"]
    assert [{k: v for k, v in t.items() if k != "run_if"} for t in shown["tasks"]] == [
        {k: v for k, v in t.items() if k != "run_if"} for t in body["tasks"]]


def test_jobs_created_through_2_2_queue_unless_told_not_to(api):
    queued = settings(api, create(api, job_body(notebook("a"))))
    assert queued["queue"] == {"enabled": True}
    not_queued = create(api, job_body(notebook("a"), queue={"enabled": False}))
    assert settings(api, not_queued)["queue"] == {"enabled": False}


def test_given_values_win_over_defaults_and_format_is_ignored(api):
    body = job_body(notebook("a"), max_concurrent_runs=3, timeout_seconds=60,
                    email_notifications={"on_failure": ["ops@example.com"]},
                    format="SINGLE_TASK")
    shown = settings(api, create(api, body))
    assert shown["max_concurrent_runs"] == 3 and shown["timeout_seconds"] == 60
    assert shown["email_notifications"] == {"on_failure": ["ops@example.com"]}
    assert shown["format"] == "MULTI_TASK"


def test_fields_the_emulator_does_not_know_are_kept(api):
    task = notebook("a", description="first", health={"rules": [
        {"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN", "value": 10}]},
        some_future_task_field={"x": 1})
    body = job_body(task, git_source={"git_url": "https://example.com/r.git",
                                      "git_provider": "gitHub", "git_branch": "main"},
                    parameters=[{"name": "table", "default": "users"}],
                    deployment={"kind": "BUNDLE"}, some_future_field=[1, 2])
    shown = settings(api, create(api, body))
    for name in ("git_source", "parameters", "deployment", "some_future_field"):
        assert shown[name] == body[name]
    assert shown["tasks"] == [task]


def test_every_task_type_of_the_sdk_is_a_task_type(api):
    types = [name for name in sdk_jobs.Task.__dataclass_fields__ if name.endswith("_task")]
    assert {"notebook_task", "spark_python_task", "sql_task", "run_job_task"} <= set(types)
    values = {"spark_python_task": {"python_file": "dbfs:/x.py"}}
    tasks = [{"task_key": name, name: values.get(name, {})} for name in types]
    shown = settings(api, create(api, job_body(*tasks)))
    assert [t["task_key"] for t in shown["tasks"]] == types


def test_list_shows_tasks_only_when_expanded(api):
    name = unique("listed")
    job_id = create(api, {**job_body(notebook("a")), "name": name,
                          "job_clusters": [{"job_cluster_key": "c",
                                            "new_cluster": SMALL_CLUSTER}]})
    for version in ("2.0", "2.1", "2.2"):
        plain = api.get(f"/api/{version}/jobs/list", params={"name": name}).json()["jobs"]
        assert [j["job_id"] for j in plain] == [job_id]
        assert "tasks" not in plain[0]["settings"]
        assert "job_clusters" not in plain[0]["settings"]
        expanded = api.get(f"/api/{version}/jobs/list",
                           params={"name": name, "expand_tasks": "true"}).json()["jobs"]
        assert expanded[0]["settings"]["tasks"] == settings(api, job_id)["tasks"]
        assert expanded[0]["settings"]["job_clusters"][0]["job_cluster_key"] == "c"


# rules between tasks

def test_a_dependency_on_an_unknown_task_is_refused(api):
    _refused(api, job_body(notebook("a"), notebook("b", "ghost")),
             "Invalid dependency graph", "'b'", "'ghost'", "tasks[1].depends_on[0].task_key")


def test_a_task_depending_on_itself_is_refused(api):
    _refused(api, job_body(notebook("a", "a")), "Invalid dependency graph",
             "can not reference itself")


def test_a_dependency_cycle_is_refused(api):
    message = _refused(api, job_body(notebook("a", "c"), notebook("b", "a"), notebook("c", "b"),
                                     notebook("d")), "Invalid dependency graph", "cycle")
    assert "'a' -> 'c' -> 'b' -> 'a'" in message


def test_a_duplicate_task_key_is_refused(api):
    _refused(api, job_body(notebook("a"), notebook("b"), notebook("a")),
             "task_key 'a' is not unique", "tasks[0]", "tasks[2]")


def test_a_duplicate_job_cluster_key_is_refused(api):
    clusters = [{"job_cluster_key": "c", "new_cluster": SMALL_CLUSTER}] * 2
    _refused(api, job_body(notebook("a"), job_clusters=clusters),
             "job_cluster_key 'c' is not unique")


def test_a_job_cluster_key_no_job_cluster_defines_is_refused(api):
    task = {**notebook("a"), "job_cluster_key": "missing"}
    del task["existing_cluster_id"]
    _refused(api, job_body(task, job_clusters=[{"job_cluster_key": "c",
                                                "new_cluster": SMALL_CLUSTER}]),
             "Job cluster 'missing' is not defined in field 'job_clusters'",
             "tasks[0].job_cluster_key")


def test_a_task_without_a_task_type_is_refused(api):
    _refused(api, job_body(notebook("a"), {"task_key": "b", "existing_cluster_id": ETL_CLUSTER}),
             "Task 'b'", "tasks[1]", "no task type")


def test_task_settings_next_to_tasks_are_refused(api):
    _refused(api, job_body(notebook("a"), new_cluster=SMALL_CLUSTER), "'new_cluster'",
             "inside each task")


@pytest.mark.parametrize(("change", "field"), [
    ({"run_if": "SOMETIMES"}, "tasks[0].run_if"),
    ({"depends_on": "a"}, "tasks[0].depends_on"),
    ({"timeout_seconds": -1}, "tasks[0].timeout_seconds"),
    ({"task_key": ""}, "tasks[0].task_key"),
    ({"new_cluster": {"spark_version": "13.3.x-scala2.12"}}, "tasks[0].new_cluster"),
])
def test_bad_task_values_name_the_field(api, change, field):
    _refused(api, job_body({**notebook("a"), **change}), field)


def test_a_job_cluster_without_a_cluster_is_refused(api):
    _refused(api, job_body(notebook("a"), job_clusters=[{"job_cluster_key": "c"}]),
             "job_clusters[0].new_cluster")


def test_a_valid_graph_with_job_clusters_is_accepted(api):
    a = {**notebook("a"), "job_cluster_key": "c"}
    del a["existing_cluster_id"]
    body = job_body(a, notebook("b", "a"), notebook("c", "a", "b", run_if="NONE_FAILED"),
                    job_clusters=[{"job_cluster_key": "c", "new_cluster": SMALL_CLUSTER}])
    assert settings(api, create(api, body))["job_clusters"] == body["job_clusters"]


# references to the rest of the workspace

def test_an_unknown_existing_cluster_is_refused(api):
    _refused(api, job_body(notebook("a", existing_cluster_id="0000-000000-nothere")),
             "Cluster 0000-000000-nothere does not exist", "task 'a'")


def test_an_unknown_existing_cluster_of_a_legacy_job_is_refused(api):
    body = {"name": unique("legacy"), "existing_cluster_id": "0000-000000-nothere",
            "spark_python_task": {"python_file": "dbfs:/x.py"}}
    _refused(api, body, "Cluster 0000-000000-nothere does not exist", version="2.0")


@pytest.mark.parametrize(("run_as", "label"), [
    ({"user_name": "ghost@example.com"}, "UserName(ghost@example.com)"),
    ({"service_principal_name": "00000000-0000-0000-0000-000000000000"},
     "ServicePrincipalName(00000000-0000-0000-0000-000000000000)"),
    ({"group_name": "no-such-group"}, "GroupName(no-such-group)"),
])
def test_an_unknown_run_as_principal_is_refused(api, run_as, label):
    _refused(api, job_body(notebook("a"), run_as=run_as), f"Principal: {label} does not exist")


def test_run_as_needs_exactly_one_principal(api):
    _refused(api, job_body(notebook("a"), run_as={"user_name": "alice@example.com",
                                                  "group_name": "admins"}), "run_as")


def test_a_known_run_as_principal_is_who_the_job_runs_as(api, emulator):
    application, _ = add_service_principal(api, emulator)
    make_user_of(api, application["client_id"], emulator.client_id)
    for run_as, expected in (({"user_name": "alice@example.com"}, "alice@example.com"),
                             ({"service_principal_name": application["client_id"]},
                              application["client_id"])):
        job = get_job(api, create(api, job_body(notebook("a"), run_as=run_as)))
        assert job["settings"]["run_as"] == run_as
        assert job["run_as_user_name"] == expected
    job = get_job(api, create(api, job_body(notebook("a"))))
    assert job["run_as_user_name"] == emulator.client_id


# paging of long arrays

def _long_job(api, tasks: int, job_clusters: int) -> tuple[int, dict]:
    clusters = [{"job_cluster_key": f"c{i:03}", "new_cluster": SMALL_CLUSTER}
                for i in range(job_clusters)]
    body = job_body(*(python_script(f"t{i:03}") for i in range(tasks)), job_clusters=clusters)
    return create(api, body), body


def test_2_2_get_pages_tasks_and_job_clusters_beyond_100(api):
    job_id, body = _long_job(api, tasks=250, job_clusters=120)
    first = get_job(api, job_id)
    assert [t["task_key"] for t in first["settings"]["tasks"]] == [
        t["task_key"] for t in body["tasks"][:100]]
    assert len(first["settings"]["job_clusters"]) == 100
    second = get_job(api, job_id, page_token=first["next_page_token"])
    assert [t["task_key"] for t in second["settings"]["tasks"]] == [
        t["task_key"] for t in body["tasks"][100:200]]
    assert second["settings"]["job_clusters"] == body["job_clusters"][100:]
    assert second["settings"]["name"] == body["name"]
    third = get_job(api, job_id, page_token=second["next_page_token"])
    assert len(third["settings"]["tasks"]) == 50
    assert "job_clusters" not in third["settings"]  # nothing left on this page
    assert "next_page_token" not in third


def test_2_1_and_2_0_get_return_every_task(api):
    job_id, _ = _long_job(api, tasks=150, job_clusters=0)
    for version in ("2.0", "2.1"):
        job = get_job(api, job_id, version)
        assert len(job["settings"]["tasks"]) == 150
        assert "next_page_token" not in job


def test_a_short_job_has_no_next_page(api):
    assert "next_page_token" not in get_job(api, create(api, job_body(notebook("a"))))


def test_2_2_list_shows_the_first_100_tasks_and_has_more(api):
    job_id, _ = _long_job(api, tasks=101, job_clusters=0)
    name = settings(api, job_id)["name"]
    listed = api.get("/api/2.2/jobs/list", params={"name": name, "expand_tasks": "true"})
    job = listed.json()["jobs"][0]
    assert len(job["settings"]["tasks"]) == 100 and job["has_more"] is True
    listed = api.get("/api/2.1/jobs/list", params={"name": name, "expand_tasks": "true"})
    assert len(listed.json()["jobs"][0]["settings"]["tasks"]) == 101


def test_a_bad_page_token_is_refused(api):
    job_id = create(api, job_body(notebook("a")))
    expect_error(api.get("/api/2.2/jobs/get", params={"job_id": job_id, "page_token": "x"}),
                 400, "INVALID_PARAMETER_VALUE")
