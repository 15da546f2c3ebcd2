"""job_diff: the normal form of job settings, field-level changes, update and reset bodies."""

from __future__ import annotations

import copy
import json
import random
import typing
from dataclasses import is_dataclass
from pathlib import Path
from typing import Any

import pytest
from databricks.sdk.service import compute, jobs

from providers.client.sdk_shapes import SdkClass
from providers.core.create_or_adopt import DEPLOYMENT_TAG_KEY
from providers.jobs.job_diff import (
    DEFAULTS,
    KEYED_LISTS,
    SET_ITEMS,
    SOURCE_BY_GIT,
    Change,
    canonical,
    changes,
    removed_by_reset,
    update_request,
)

CORPUS = sorted((Path(__file__).parent.parent / "fixtures" / "jobs").glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def notebook(path: str = "/Workspace/n") -> dict[str, Any]:
    return {"notebook_path": path}


def job(*tasks: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"name": "j", **fields, "tasks": list(tasks)}


# --- the normal form -----------------------------------------------------------------


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_canonical_is_idempotent_and_valid_settings(path):
    settings = load(path)
    once = canonical(settings)
    assert canonical(once) == once
    # Still settings the SDK reads: nothing is renamed or restructured.
    assert canonical(jobs.JobSettings.from_dict(once).as_dict()) == once


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_the_sdk_round_trip_of_a_corpus_job_is_no_change(path):
    settings = load(path)
    assert changes(settings, jobs.JobSettings.from_dict(settings).as_dict()) == []


def test_reordering_tasks_clusters_libraries_and_dependencies_is_no_change():
    a = {"task_key": "a", "notebook_task": notebook(), "job_cluster_key": "x"}
    b = {
        "task_key": "b",
        "depends_on": [{"task_key": "a"}, {"task_key": "c"}],
        "notebook_task": notebook(),
        "libraries": [{"pypi": {"package": "x==1"}}, {"whl": "/Volumes/w.whl"}],
    }
    c = {"task_key": "c", "notebook_task": notebook()}
    clusters = [
        {"job_cluster_key": "x", "new_cluster": {"spark_version": "15.4.x", "num_workers": 1}},
        {"job_cluster_key": "y", "new_cluster": {"spark_version": "15.4.x", "num_workers": 2}},
    ]
    params = [{"name": "p", "default": "1"}, {"name": "q", "default": "2"}]
    before = job(a, b, c, job_clusters=clusters, parameters=params)
    b_reordered = {
        **b,
        "depends_on": [{"task_key": "c"}, {"task_key": "a"}, {"task_key": "a"}],
        "libraries": [{"whl": "/Volumes/w.whl"}, {"pypi": {"package": "x==1"}}],
    }
    after = job(c, b_reordered, a, job_clusters=clusters[::-1], parameters=params[::-1])
    assert canonical(before) == canonical(after)
    assert changes(before, after) == []


def test_ordered_lists_keep_their_order():
    first = job({"task_key": "t", "spark_python_task": {"python_file": "/f.py",
                                                       "parameters": ["a", "b"]}})
    second = copy.deepcopy(first)
    second["tasks"][0]["spark_python_task"]["parameters"] = ["b", "a"]
    assert changes(first, second) == [
        Change("tasks[t].spark_python_task.parameters", "update", ["a", "b"], ["b", "a"])
    ]


# One object of every type that DEFAULTS names, at a known place in one job.
BASE: dict[str, Any] = {
    "name": "defaults",
    "schedule": {"quartz_cron_expression": "0 0 3 * * ?", "timezone_id": "UTC"},
    "trigger": {"file_arrival": {"url": "s3://landing/in/"}},
    "continuous": {},
    "email_notifications": {"on_failure": ["a@example.com"]},
    "notification_settings": {},
    "tasks": [
        {
            "task_key": "nb",
            "notebook_task": notebook(),
            "email_notifications": {"on_start": ["b@example.com"]},
            "notification_settings": {},
        },
        {
            "task_key": "sql",
            "sql_task": {
                "warehouse_id": "w1",
                "file": {"path": "q.sql"},
                "alert": {"alert_id": "a1"},
                "dashboard": {"dashboard_id": "d1"},
            },
        },
        {"task_key": "dbt", "dbt_task": {"commands": ["dbt run"]}},
        {"task_key": "dlt", "pipeline_task": {"pipeline_id": "p1"}},
        {
            "task_key": "each",
            "for_each_task": {
                "inputs": "[1, 2]",
                "task": {"task_key": "each_one", "notebook_task": notebook()},
            },
        },
    ],
}
def handle(cls: Any) -> SdkClass | None:
    """The job_diff tables' name of an SDK class (they hold its shape, not the class)."""
    if not (isinstance(cls, type) and is_dataclass(cls)):
        return None
    return SdkClass(cls.__module__.rsplit(".", 1)[-1], cls.__name__)


SITES_OF_CLASSES: dict[type, list[tuple[str | int, ...]]] = {
    jobs.JobSettings: [()],
    jobs.Task: [("tasks", 0), ("tasks", 4, "for_each_task", "task")],
    jobs.CronSchedule: [("schedule",)],
    jobs.TriggerSettings: [("trigger",)],
    jobs.Continuous: [("continuous",)],
    jobs.NotebookTask: [("tasks", 0, "notebook_task")],
    jobs.SqlTaskFile: [("tasks", 1, "sql_task", "file")],
    jobs.SqlTaskAlert: [("tasks", 1, "sql_task", "alert")],
    jobs.SqlTaskDashboard: [("tasks", 1, "sql_task", "dashboard")],
    jobs.DbtTask: [("tasks", 2, "dbt_task")],
    jobs.PipelineTask: [("tasks", 3, "pipeline_task")],
    jobs.JobEmailNotifications: [("email_notifications",)],
    jobs.TaskEmailNotifications: [("tasks", 0, "email_notifications")],
    jobs.JobNotificationSettings: [("notification_settings",)],
    jobs.TaskNotificationSettings: [("tasks", 0, "notification_settings")],
}
SITES = {handle(cls): sites for cls, sites in SITES_OF_CLASSES.items()}


def at(settings: dict[str, Any], site: tuple[str | int, ...]) -> dict[str, Any]:
    node: Any = settings
    for step in site:
        node = node[step]
    return node


@pytest.mark.parametrize("git", [False, True], ids=["workspace", "git"])
@pytest.mark.parametrize("default", DEFAULTS, ids=lambda d: f"{d.owner.name}.{d.field}")
def test_every_dropped_default_is_no_change_against_absent(default, git):
    base = copy.deepcopy(BASE)
    if git:
        base["git_source"] = {"git_url": "https://example.com/r.git", "git_provider": "gitHub",
                              "git_branch": "main"}
    value = default.value
    if value is SOURCE_BY_GIT:
        value = "GIT" if git else "WORKSPACE"
    for site in SITES[default.owner]:
        with_default = copy.deepcopy(base)
        at(with_default, site)[default.field] = copy.deepcopy(value)
        assert canonical(with_default) == canonical(base), site
        assert changes(base, with_default) == []


@pytest.mark.parametrize(
    ("site", "field", "value"),
    [
        ((), "max_concurrent_runs", 4),
        ((), "timeout_seconds", 60),
        ((), "queue", {"enabled": False}),
        (("tasks", 0), "run_if", "ALL_DONE"),
        (("tasks", 0), "max_retries", 3),
        (("tasks", 4, "for_each_task", "task"), "disabled", True),
        (("schedule",), "pause_status", "PAUSED"),
        (("tasks", 0, "notebook_task"), "source", "GIT"),
        (("tasks", 2, "dbt_task"), "schema", "marts"),
    ],
)
def test_a_value_other_than_the_default_is_a_change(site, field, value):
    changed = copy.deepcopy(BASE)
    at(changed, site)[field] = value
    found = changes(BASE, changed)
    assert [(c.kind, c.new) for c in found] == [("add", value)]


def test_the_source_default_follows_git_source():
    with_git = {**BASE, "git_source": {"git_url": "https://example.com/r.git",
                                       "git_provider": "gitHub", "git_tag": "v1"}}
    explicit_workspace = copy.deepcopy(with_git)
    explicit_workspace["tasks"][0]["notebook_task"]["source"] = "WORKSPACE"
    assert [c.path for c in changes(with_git, explicit_workspace)] == [
        "tasks[nb].notebook_task.source"
    ]


def test_empty_containers_and_notification_objects_are_absent():
    lean = job({"task_key": "t", "notebook_task": notebook()})
    padded = job(
        {
            "task_key": "t",
            "notebook_task": {**notebook(), "base_parameters": {}},
            "depends_on": [],
            "libraries": [],
            "email_notifications": {},
            "webhook_notifications": {"on_start": []},
            "notification_settings": {},
            "health": {"rules": []},
            "new_cluster": None,
        },
        tags={},
        email_notifications={"on_failure": []},
        webhook_notifications={},
        notification_settings={},
        parameters=[],
        job_clusters=[],
        format="MULTI_TASK",
    )
    assert canonical(padded) == canonical(lean)


def test_an_empty_continuous_block_is_not_absent():
    # `continuous: {}` makes the job continuous; only its default pause status goes.
    assert canonical(job(continuous={"pause_status": "UNPAUSED"}))["continuous"] == {}
    assert changes(job(), job(continuous={})) == [Change("continuous", "add", None, {})]


def test_the_deployment_tag_is_never_part_of_the_normal_form():
    tagged = job(tags={DEPLOYMENT_TAG_KEY: "proj/dev/etl", "team": "data"})
    assert canonical(tagged)["tags"] == {"team": "data"}
    assert "tags" not in canonical(job(tags={DEPLOYMENT_TAG_KEY: "proj/dev/etl"}))
    assert changes(job(tags={DEPLOYMENT_TAG_KEY: "a"}), job(tags={DEPLOYMENT_TAG_KEY: "b"})) == []


def test_numbers_and_strings_compare_as_the_schema_types_them():
    as_written = job(
        {"task_key": "run", "run_job_task": {"job_id": "881204513370125"}},
        {"task_key": "c", "new_cluster": {"spark_version": "15.4.x", "num_workers": 2.0}},
        parameters=[{"name": "n", "default": 5}],
        health={"rules": [{"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN",
                           "value": "1800"}]},
    )
    as_echoed = job(
        {"task_key": "run", "run_job_task": {"job_id": 881204513370125}},
        {"task_key": "c", "new_cluster": {"spark_version": "15.4.x", "num_workers": 2}},
        parameters=[{"name": "n", "default": "5"}],
        health={"rules": [{"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN",
                           "value": 1800}]},
    )
    assert changes(as_written, as_echoed) == []
    assert canonical(as_written)["tasks"][1]["run_job_task"]["job_id"] == 881204513370125


def test_a_boolean_is_not_a_number():
    # true == 1 in Python; in the normal form a true max_concurrent_runs is not the default 1.
    assert canonical(job(max_concurrent_runs=True))["max_concurrent_runs"] is True


def test_a_legacy_single_task_shape_is_lifted_first():
    legacy = {
        "name": "j",
        "existing_cluster_id": "0101-abc",
        "spark_python_task": {"python_file": "dbfs:/a.py"},
        "max_retries": 1,
    }
    lifted = job({"task_key": "main", "existing_cluster_id": "0101-abc",
                  "spark_python_task": {"python_file": "dbfs:/a.py"}, "max_retries": 1})
    assert canonical(legacy) == canonical(lifted)


# --- a read compared with its declaration ----------------------------------------------


def test_server_filled_values_are_no_change_where_the_declaration_leaves_them_out():
    declared = job(
        {"task_key": "t", "notebook_task": notebook(),
         "new_cluster": {"spark_version": "15.4.x", "node_type_id": "D4", "num_workers": 1,
                         "azure_attributes": {"availability": "SPOT_AZURE"}}},
        {"task_key": "p", "spark_python_task": {"python_file": "/p.py"},
         "new_cluster": {"spark_version": "15.4.x", "policy_id": "ABC", "num_workers": 1,
                         "apply_policy_default_values": True}},
    )
    live = copy.deepcopy(declared)
    live.update(run_as={"user_name": "creator@example.com"}, edit_mode="EDITABLE")
    live["tasks"][0]["new_cluster"].update(
        enable_elastic_disk=True,
        data_security_mode="SINGLE_USER",
        driver_node_type_id="D4",
        azure_attributes={"availability": "SPOT_AZURE", "first_on_demand": 1,
                          "spot_bid_max_price": -1},
    )
    live["tasks"][1]["spark_python_task"]["source"] = "WORKSPACE"
    policy_cluster = live["tasks"][1]["new_cluster"]
    del policy_cluster["apply_policy_default_values"]  # never returned
    policy_cluster.update(node_type_id="E8", autotermination_minutes=0,
                          custom_tags={"cost": "policy"})
    assert changes(canonical(live, declared=declared), declared) == []
    # On its own, the read shows what the service filled in.
    assert {c.path for c in changes(live, declared)} >= {"run_as", "edit_mode"}


def test_a_declared_server_filled_value_is_compared():
    declared = job({"task_key": "t", "notebook_task": notebook()},
                   run_as={"service_principal_name": "sp-1"})
    live = job({"task_key": "t", "notebook_task": notebook()},
               run_as={"user_name": "someone@example.com"})
    found = changes(canonical(live, declared=declared), declared)
    assert [c.path for c in found] == ["run_as.service_principal_name", "run_as.user_name"]


def test_a_declared_field_of_a_completed_object_is_compared():
    cluster = {"spark_version": "15.4.x", "num_workers": 1,
               "azure_attributes": {"availability": "SPOT_AZURE"}}
    declared = job({"task_key": "t", "notebook_task": notebook(), "new_cluster": cluster})
    live = copy.deepcopy(declared)
    live["tasks"][0]["new_cluster"]["azure_attributes"] = {"availability": "ON_DEMAND_AZURE",
                                                           "first_on_demand": 1}
    assert changes(canonical(live, declared=declared), declared) == [
        Change("tasks[t].new_cluster.azure_attributes.availability", "update",
               "ON_DEMAND_AZURE", "SPOT_AZURE")
    ]


def test_a_declared_field_of_a_policy_cluster_is_compared_and_input_only_ones_diff():
    cluster = {"policy_id": "ABC", "spark_version": "15.4.x", "num_workers": 2,
               "apply_policy_default_values": True}
    declared = job({"task_key": "t", "notebook_task": notebook(), "new_cluster": cluster})
    live = copy.deepcopy(declared)
    live_cluster = live["tasks"][0]["new_cluster"]
    del live_cluster["apply_policy_default_values"]
    live_cluster.update(num_workers=3, autotermination_minutes=0)
    assert changes(canonical(live, declared=declared), declared) == [
        Change("tasks[t].new_cluster.num_workers", "update", 3, 2)
    ]
    # Between two declarations the input-only field is an ordinary change.
    flipped = copy.deepcopy(declared)
    flipped["tasks"][0]["new_cluster"]["apply_policy_default_values"] = False
    assert [c.path for c in changes(declared, flipped)] == [
        "tasks[t].new_cluster.apply_policy_default_values"
    ]


def test_nothing_changes_its_arguments():
    declared = load(CORPUS[0])
    live = _server_filled(declared)
    before = copy.deepcopy((declared, live))
    canonical(live, declared=declared)
    changes(live, declared)
    update_request(live, declared)
    removed_by_reset(live, declared)
    assert (declared, live) == before


# --- changes -----------------------------------------------------------------------------


def test_changes_name_the_leaf():
    before = job(
        {"task_key": "ingest", "notebook_task": notebook(), "max_retries": 2,
         "new_cluster": {"spark_version": "15.4.x", "autoscale": {"min_workers": 1,
                                                                  "max_workers": 4}}},
        tags={"team": "data"},
        parameters=[{"name": "day", "default": "today"}],
        job_clusters=[{"job_cluster_key": "etl", "new_cluster": {
            "spark_version": "15.4.x", "num_workers": 1,
            "spark_conf": {"spark.sql.shuffle.partitions": "8"}}}],
    )
    after = copy.deepcopy(before)
    after["tasks"][0]["max_retries"] = 5
    after["tasks"][0]["new_cluster"]["autoscale"]["max_workers"] = 8
    after["tags"] = {"team": "ml", "tier": "gold"}
    after["parameters"][0]["default"] = "yesterday"
    after["job_clusters"][0]["new_cluster"]["spark_conf"]["spark.sql.shuffle.partitions"] = "16"
    found = changes(before, after)
    assert found == [
        Change("job_clusters[etl].new_cluster.spark_conf[spark.sql.shuffle.partitions]",
               "update", "8", "16"),
        Change("parameters[day].default", "update", "today", "yesterday"),
        Change("tags[team]", "update", "data", "ml"),
        Change("tags[tier]", "add", None, "gold"),
        Change("tasks[ingest].max_retries", "update", 2, 5),
        Change("tasks[ingest].new_cluster.autoscale.max_workers", "update", 4, 8),
    ]
    assert str(found[4]) == "tasks[ingest].max_retries: 2 → 5"


def test_a_whole_task_added_or_removed_is_one_change():
    kept = {"task_key": "kept", "notebook_task": notebook()}
    extra = {"task_key": "extra", "notebook_task": notebook("/x"), "max_retries": 1}
    assert changes(job(kept), job(kept, extra)) == [
        Change("tasks[extra]", "add", None, {"task_key": "extra",
                                             "notebook_task": {"notebook_path": "/x"},
                                             "max_retries": 1})
    ]
    assert [(c.path, c.kind) for c in changes(job(kept, extra), job(kept))] == [
        ("tasks[extra]", "delete")
    ]


def test_a_renamed_task_key_is_a_delete_and_an_add():
    before = job({"task_key": "load", "notebook_task": notebook()},
                 {"task_key": "use", "depends_on": [{"task_key": "load"}],
                  "notebook_task": notebook()})
    after = job({"task_key": "ingest", "notebook_task": notebook()},
                {"task_key": "use", "depends_on": [{"task_key": "ingest"}],
                 "notebook_task": notebook()})
    assert [(c.path, c.kind) for c in changes(before, after)] == [
        ("tasks[ingest]", "add"),
        ("tasks[load]", "delete"),
        ("tasks[use].depends_on[ingest]", "add"),
        ("tasks[use].depends_on[load]", "delete"),
    ]


def test_set_members_are_named_by_what_they_are():
    before = job({"task_key": "t", "notebook_task": notebook(),
                  "libraries": [{"pypi": {"package": "a==1"}}, {"jar": "/Volumes/x.jar"}]})
    after = job({"task_key": "t", "notebook_task": notebook(),
                 "libraries": [{"pypi": {"package": "a==1", "repo": "https://mirror"}},
                               {"maven": {"coordinates": "g:a:1"}}]})
    assert [(c.path, c.kind) for c in changes(before, after)] == [
        ("tasks[t].libraries[jar:/Volumes/x.jar]", "delete"),
        ("tasks[t].libraries[maven:g:a:1]", "add"),
        ("tasks[t].libraries[pypi:a==1].pypi.repo", "add"),
    ]


# --- update and reset --------------------------------------------------------------------

INGEST = {"task_key": "ingest", "notebook_task": notebook("/ingest")}
CLEAN = {"task_key": "clean", "depends_on": [{"task_key": "ingest"}],
         "notebook_task": notebook("/clean")}
TAGS = {DEPLOYMENT_TAG_KEY: "proj/dev/etl"}


def test_an_added_task_is_sent_alone():
    body = update_request(job(INGEST, tags=TAGS), job(INGEST, CLEAN, tags=TAGS))
    assert body == {"new_settings": {"name": "j", "tags": TAGS, "tasks": [CLEAN]},
                    "fields_to_remove": []}


def test_a_removed_task_is_removed_by_key():
    body = update_request(job(INGEST, CLEAN), job(INGEST))
    assert body == {"new_settings": {"name": "j"}, "fields_to_remove": ["tasks/clean"]}


def test_a_changed_task_is_sent_whole():
    changed = {**CLEAN, "max_retries": 3, "notebook_task": notebook("/clean_v2")}
    body = update_request(job(INGEST, CLEAN), job(changed, INGEST))
    assert body["new_settings"]["tasks"] == [changed]
    assert body["fields_to_remove"] == []


def test_reordered_or_defaulted_tasks_are_not_sent():
    defaulted = {**INGEST, "run_if": "ALL_SUCCESS", "timeout_seconds": 0}
    body = update_request(job(INGEST, CLEAN), job(CLEAN, defaulted))
    assert "tasks" not in body["new_settings"]


def test_job_clusters_merge_by_key_too():
    small = {"job_cluster_key": "small", "new_cluster": {"spark_version": "15.4.x",
                                                         "num_workers": 1}}
    big = {"job_cluster_key": "big", "new_cluster": {"spark_version": "15.4.x",
                                                     "num_workers": 8}}
    body = update_request(job(INGEST, job_clusters=[small]), job(INGEST, job_clusters=[big]))
    assert body["new_settings"]["job_clusters"] == [big]
    assert body["fields_to_remove"] == ["job_clusters/small"]


def test_a_field_declared_before_and_no_longer_is_removed():
    old = job(INGEST, schedule={"quartz_cron_expression": "0 0 1 * * ?", "timezone_id": "UTC"},
              max_concurrent_runs=4)
    body = update_request(old, job(INGEST))
    assert body["fields_to_remove"] == ["schedule", "max_concurrent_runs"]
    assert "schedule" not in body["new_settings"]


def test_a_field_never_declared_is_never_removed():
    # A schedule added in the UI: the stack declared none before and declares none now.
    body = update_request(job(INGEST, max_concurrent_runs=2), job(INGEST, max_concurrent_runs=3))
    assert body == {"new_settings": {"name": "j", "max_concurrent_runs": 3},
                    "fields_to_remove": []}


def test_every_declared_top_level_field_is_sent_to_converge_drift():
    declared = job(INGEST, timeout_seconds=600, tags=TAGS)
    body = update_request(declared, declared)
    assert body == {"new_settings": {"name": "j", "timeout_seconds": 600, "tags": TAGS},
                    "fields_to_remove": []}


def test_no_tasks_declared_any_more_removes_the_field():
    body = update_request(job(INGEST), {"name": "j"})
    assert body == {"new_settings": {"name": "j"}, "fields_to_remove": ["tasks"]}


def test_a_legacy_recorded_declaration_updates_as_its_lifted_form():
    old = {"name": "j", "existing_cluster_id": "0101-abc",
           "spark_python_task": {"python_file": "dbfs:/a.py"}, "max_retries": 1}
    new = job({"task_key": "main", "existing_cluster_id": "0101-abc",
               "spark_python_task": {"python_file": "dbfs:/a.py"}, "max_retries": 2})
    body = update_request(old, new)
    assert body == {"new_settings": {"name": "j", "tasks": new["tasks"]}, "fields_to_remove": []}


def test_authoritative_is_a_reset_of_everything_declared():
    new = job(INGEST, tags=TAGS, schedule=None)
    assert update_request(job(INGEST, CLEAN), new, authoritative=True) == {
        "new_settings": {"name": "j", "tags": TAGS, "tasks": [INGEST]}
    }


def test_removed_by_reset_names_every_live_setting_the_reset_drops():
    declared = job(INGEST, CLEAN, tags=TAGS)
    live = job(
        {**INGEST, "run_if": "ALL_SUCCESS", "libraries": [{"pypi": {"package": "x==1"}}]},
        CLEAN,
        {"task_key": "ui_added", "notebook_task": notebook("/ui")},
        tags={**TAGS, "owner": "someone"},
        schedule={"quartz_cron_expression": "0 0 1 * * ?", "timezone_id": "UTC"},
        run_as={"user_name": "creator@example.com"},
        format="MULTI_TASK",
        max_concurrent_runs=1,
    )
    assert removed_by_reset(live, declared) == [
        "schedule",
        "tags",
        "tasks[ingest].libraries",
        "tasks[ui_added]",
    ]
    assert removed_by_reset(declared, declared) == []


def test_removed_by_reset_names_members_of_declared_maps_and_sets():
    declared = job({**INGEST, "libraries": [{"pypi": {"package": "y==1"}}]},
                   tags={**TAGS, "team": "data"})
    live = job({**INGEST, "libraries": [{"pypi": {"package": "x==1"}},
                                        {"pypi": {"package": "y==1"}}]},
               tags={**TAGS, "team": "data", "owner": "someone"})
    assert removed_by_reset(live, declared) == ["tags[owner]", "tasks[ingest].libraries[pypi:x==1]"]


# --- the corpus --------------------------------------------------------------------------


def _with_server_defaults(node: Any, owner: Any, git: bool, rng: random.Random) -> Any:
    """What the service might echo: every DEFAULTS value filled in, lists shuffled."""
    if isinstance(node, list):
        item = typing.get_args(owner)[0] if typing.get_origin(owner) is list else None
        entries = [_with_server_defaults(entry, item, git, rng) for entry in node]
        if handle(item) in KEYED_LISTS or handle(item) in SET_ITEMS:
            rng.shuffle(entries)
        if item in (compute.Library, jobs.TaskDependency):
            entries.append(copy.deepcopy(entries[0]))  # a duplicate of a set member
        return entries
    if not (isinstance(node, dict) and isinstance(owner, type) and is_dataclass(owner)):
        return copy.deepcopy(node)
    hints = typing.get_type_hints(owner)
    result = {name: _with_server_defaults(value, _unwrap(hints.get(name)), git, rng)
              for name, value in node.items()}
    for default in DEFAULTS:
        if default.owner == handle(owner) and default.field not in result:
            value = default.value
            if value is SOURCE_BY_GIT:
                value = "GIT" if git else "WORKSPACE"
            result[default.field] = copy.deepcopy(value)
    if owner is jobs.JobSettings:
        result.setdefault("email_notifications", {})
        result.setdefault("webhook_notifications", {})
        result.setdefault("format", "MULTI_TASK")
        result["tags"] = {**result.get("tags", {}), DEPLOYMENT_TAG_KEY: "proj/stack/job"}
    if owner is jobs.Task:
        result.setdefault("email_notifications", {})
        result.setdefault("webhook_notifications", {})
        result.setdefault("libraries", [])
    if owner is compute.ClusterSpec:
        result.setdefault("spark_conf", {})
        result.setdefault("custom_tags", {})
    return result


def _unwrap(hint: Any) -> Any:
    if typing.get_origin(hint) is typing.Union:
        return next(arg for arg in typing.get_args(hint) if arg is not type(None))
    return hint


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_a_corpus_job_echoed_with_defaults_and_shuffled_is_no_change(path):
    settings = load(path)
    echoed = _with_server_defaults(settings, jobs.JobSettings, "git_source" in settings,
                                   random.Random(path.stem))
    assert echoed != settings
    assert canonical(echoed) == canonical(settings)
    assert changes(echoed, settings) == []
    body = update_request(settings, echoed)
    assert "tasks" not in body["new_settings"] and "job_clusters" not in body["new_settings"]
    assert body["fields_to_remove"] == []


def _server_filled(settings: dict[str, Any]) -> dict[str, Any]:
    """What the service adds on its own to a declaration, and drops of it."""
    live = copy.deepcopy(settings)
    live.setdefault("run_as", {"user_name": "creator@example.com"})
    live.setdefault("edit_mode", "EDITABLE")
    clusters = [t["new_cluster"] for t in live.get("tasks", []) if "new_cluster" in t]
    clusters += [c["new_cluster"] for c in live.get("job_clusters", [])]
    for cluster in clusters:
        cluster.setdefault("enable_elastic_disk", True)
        cluster.setdefault("data_security_mode", "SINGLE_USER")
        cluster["azure_attributes"] = {**cluster.get("azure_attributes", {}),
                                       "spot_bid_max_price": -1}
        if "policy_id" in cluster:
            cluster.pop("apply_policy_default_values", None)
            cluster.setdefault("autotermination_minutes", 0)
            cluster.setdefault("node_type_id", "Standard_D4ds_v5")
    for task in live.get("tasks", []):
        if "spark_python_task" in task:
            task["spark_python_task"].setdefault("source", "WORKSPACE")
    trigger = live.get("trigger", {})
    if "table_update" in trigger:
        trigger["table_update"].pop("condition", None)
    return live


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_a_corpus_job_read_back_with_server_filled_values_is_no_change(path):
    declared = load(path)
    live = _server_filled(declared)
    assert changes(canonical(live, declared=declared), declared) == []
    assert removed_by_reset(live, declared) == []


def test_the_corpus_covers_the_settings_the_brief_lists():
    text = " ".join(path.read_text() for path in CORPUS)
    for field in ["notebook_task", "python_wheel_task", "dbt_task", '"query"', '"file"',
                  '"alert"', '"dashboard"', "for_each_task", "run_job_task", "file_arrival",
                  "continuous", "git_source", "environments", "policy_id", "health",
                  "webhook_notifications", "email_notifications", "parameters", "run_as",
                  "queue", "job_clusters"]:
        assert field in text, field
    assert len(CORPUS) >= 10


def test_a_repeated_normal_form_is_a_fresh_copy_of_the_same_form():
    # A diff asks for the same settings' form more than once; the second answer comes from
    # a cache, and changing one answer must not change the next.
    settings = {
        "name": "nightly",
        "max_concurrent_runs": 1,
        "tasks": [
            {"task_key": "b", "notebook_task": {"notebook_path": "/b"}, "max_retries": "2"},
            {"task_key": "a", "notebook_task": {"notebook_path": "/a"}},
        ],
    }
    first = canonical(settings)
    assert [t["task_key"] for t in first["tasks"]] == ["a", "b"]
    assert "max_concurrent_runs" not in first and first["tasks"][1]["max_retries"] == 2
    first["tasks"].clear()
    first["authoritative"] = True
    second = canonical(copy.deepcopy(settings))
    assert second == canonical(settings) and len(second["tasks"]) == 2
    assert "authoritative" not in second
    # The declaration is part of the key: a read drops the server-filled run_as it lacks.
    read = {**settings, "run_as": {"user_name": "someone@example.com"}}
    assert "run_as" in canonical(read)
    assert "run_as" not in canonical(read, declared=settings)
