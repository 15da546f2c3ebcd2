"""jobs/update and jobs/reset of multi-task and single-task jobs: top-level fields replace,
tasks and job clusters merge by key, fields_to_remove, and how the format follows."""

from __future__ import annotations

import pytest

from tests.emulator.jobs_support import (
    SMALL_CLUSTER,
    create,
    job_body,
    notebook,
    python_script,
    settings,
)
from tests.emulator.support import create_job, expect_error, legacy_form_job_body, unique


def _update(api, job_id: int, version: str = "2.2", **body) -> None:
    response = api.post(f"/api/{version}/jobs/update", json={"job_id": job_id, **body})
    assert response.status_code == 200, response.text
    assert response.json() == {}


def _keys(shown: dict, array: str = "tasks", key: str = "task_key") -> list[str]:
    return [item[key] for item in shown.get(array, [])]


def _cluster(key: str, workers: int = 1) -> dict:
    return {"job_cluster_key": key, "new_cluster": {**SMALL_CLUSTER, "num_workers": workers}}


@pytest.fixture
def job(api) -> int:
    return create(api, job_body(notebook("a"), notebook("b", "a"), notebook("c", "b"),
                                tags={"team": "data"}, max_concurrent_runs=2,
                                job_clusters=[_cluster("x"), _cluster("y")]))


def test_top_level_fields_replace_the_jobs(api, job):
    _update(api, job, new_settings={"tags": {"owner": "ops"}, "name": "renamed"})
    shown = settings(api, job)
    assert shown["tags"] == {"owner": "ops"}  # replaced whole, not merged
    assert shown["name"] == "renamed"
    assert shown["max_concurrent_runs"] == 2 and _keys(shown) == ["a", "b", "c"]


def test_tasks_merge_by_key(api, job):
    changed_b = notebook("b", "a", timeout_seconds=30)
    _update(api, job, new_settings={"tasks": [notebook("d", "c"), changed_b]})
    shown = settings(api, job)
    assert _keys(shown) == ["a", "b", "c", "d"]  # kept in place, new keys appended
    b = shown["tasks"][1]
    assert b["timeout_seconds"] == 30 and b["notebook_task"] == changed_b["notebook_task"]


def test_a_task_with_a_known_key_is_replaced_whole(api, job):
    _update(api, job, new_settings={"tasks": [python_script("c", depends_on=[
        {"task_key": "a"}])]})
    c = settings(api, job)["tasks"][2]
    assert "notebook_task" not in c and c["spark_python_task"]["python_file"] == "dbfs:/jobs/c.py"
    assert c["depends_on"] == [{"task_key": "a"}]


def test_job_clusters_merge_by_key(api, job):
    _update(api, job, new_settings={"job_clusters": [_cluster("y", workers=4), _cluster("z")]})
    shown = settings(api, job)
    assert _keys(shown, "job_clusters", "job_cluster_key") == ["x", "y", "z"]
    assert shown["job_clusters"][1]["new_cluster"]["num_workers"] == 4


def test_fields_to_remove_takes_top_level_names_and_keyed_entries(api, job):
    _update(api, job, fields_to_remove=["tags", "tasks/c", "job_clusters/x",
                                        "max_concurrent_runs", "not_there", "tasks/ghost"])
    shown = settings(api, job)
    assert "tags" not in shown
    assert shown["max_concurrent_runs"] == 1  # back to the default
    assert _keys(shown) == ["a", "b"]
    assert _keys(shown, "job_clusters", "job_cluster_key") == ["y"]


def test_removals_happen_before_new_settings(api, job):
    _update(api, job, fields_to_remove=["tasks/b", "tasks/c"],
            new_settings={"tasks": [notebook("b")]})
    assert _keys(settings(api, job)) == ["a", "b"]


@pytest.mark.parametrize("entry", ["tasks/", "environments/e", "tasks/a/b", "", 7])
def test_a_bad_fields_to_remove_entry_is_refused(api, job, entry):
    response = api.post("/api/2.2/jobs/update", json={"job_id": job,
                                                      "fields_to_remove": [entry]})
    expect_error(response, 400, "INVALID_PARAMETER_VALUE")


def test_an_update_that_breaks_the_graph_is_refused_and_changes_nothing(api, job):
    before = settings(api, job)
    response = api.post("/api/2.2/jobs/update", json={
        "job_id": job, "fields_to_remove": ["tasks/a"], "new_settings": {"tags": {}}})
    error = expect_error(response, 400, "INVALID_PARAMETER_VALUE")
    assert "Invalid dependency graph" in error["message"] and "'a'" in error["message"]
    response = api.post("/api/2.2/jobs/update", json={
        "job_id": job, "new_settings": {"tasks": [notebook("a", "c")]}})
    assert "cycle" in expect_error(response, 400)["message"]
    response = api.post("/api/2.2/jobs/update", json={
        "job_id": job, "new_settings": {"tasks": [{"task_key": "e"}]}})
    assert "no task type" in expect_error(response, 400)["message"]
    response = api.post("/api/2.2/jobs/update", json={
        "job_id": job, "new_settings": {"tasks": [notebook("e"), notebook("e")]}})
    assert "not unique" in expect_error(response, 400)["message"]
    assert settings(api, job) == before


def test_task_settings_at_job_level_of_a_multi_task_job_are_refused(api, job):
    response = api.post("/api/2.0/jobs/update", json={
        "job_id": job, "new_settings": {"spark_python_task": {"python_file": "dbfs:/x.py"}}})
    error = expect_error(response, 400, "INVALID_PARAMETER_VALUE")
    assert "new_settings.spark_python_task" in error["message"]


def test_reset_replaces_everything(api, job):
    response = api.post("/api/2.1/jobs/reset", json={"job_id": job, "new_settings": {
        "name": "fresh", "tasks": [notebook("only")]}})
    assert response.status_code == 200, response.text
    shown = settings(api, job, "2.1")
    assert _keys(shown) == ["only"] and "tags" not in shown and "job_clusters" not in shown
    assert shown["max_concurrent_runs"] == 1


def test_reset_through_2_2_turns_queueing_on_by_default(api):
    job_id = create(api, job_body(notebook("a")), version="2.1")
    assert "queue" not in settings(api, job_id)
    api.post("/api/2.2/jobs/reset", json={"job_id": job_id,
                                          "new_settings": job_body(notebook("a"))})
    assert settings(api, job_id)["queue"] == {"enabled": True}


# single-task jobs

def test_a_job_level_update_keeps_a_single_task_job_single_task(api):
    body = legacy_form_job_body(unique("legacy"))
    job_id = create_job(api, body)
    for version in ("2.0", "2.1", "2.2"):
        _update(api, job_id, version, new_settings={"tags": {"v": version}})
        shown = settings(api, job_id, "2.0")
        assert shown["format"] == "SINGLE_TASK"
        assert shown["new_cluster"] == body["new_cluster"]  # still in the legacy form's nesting
        assert shown["tags"] == {"v": version}


def test_a_legacy_update_through_2_0_changes_the_main_task(api):
    job_id = create_job(api, legacy_form_job_body(unique("legacy")))
    new_task = {"python_file": "dbfs:/jobs/other.py", "parameters": []}
    _update(api, job_id, "2.0", new_settings={"spark_python_task": new_task,
                                              "max_retries": 5})
    assert settings(api, job_id, "2.0")["format"] == "SINGLE_TASK"
    main = settings(api, job_id, "2.2")["tasks"][0]
    assert main["task_key"] == "main"
    assert main["spark_python_task"] == new_task and main["max_retries"] == 5


def test_an_update_of_tasks_makes_a_single_task_job_multi_task(api):
    job_id = create_job(api, legacy_form_job_body(unique("legacy")))
    _update(api, job_id, "2.2", new_settings={"tasks": [notebook("report", "main")]})
    shown = settings(api, job_id, "2.0")
    assert shown["format"] == "MULTI_TASK"
    assert _keys(shown) == ["main", "report"]
    assert shown["tasks"][0]["spark_python_task"]["python_file"] == "dbfs:/jobs/main.py"


def test_a_reset_through_2_0_in_the_legacy_shape_makes_a_job_single_task(api, job):
    body = legacy_form_job_body(unique("back"))
    api.post("/api/2.0/jobs/reset", json={"job_id": job, "new_settings": body})
    shown = settings(api, job, "2.0")
    assert shown["format"] == "SINGLE_TASK" and shown["new_cluster"] == body["new_cluster"]
