"""providers.jobs.job_settings: the job settings model, its legacy shapes, and every check rule."""

from __future__ import annotations

import copy
import timeit
from typing import Any

import pytest

from providers.jobs.job_settings import (
    LEGACY_TASK_KEY,
    JobSettingsModel,
    LegacyShapeError,
    check_settings,
    cron_problem,
    error_path,
    is_legacy,
    lift_legacy,
    problems,
    timezone_problem,
)

# --- builders --------------------------------------------------------------------------

CLUSTER = {"spark_version": "15.4.x-scala2.12", "node_type_id": "i3.xlarge", "num_workers": 2}
JOB_CLUSTERS = [{"job_cluster_key": "etl", "new_cluster": CLUSTER}]


def job(*tasks: dict, **fields: Any) -> dict:
    settings = {"name": "sales", "tasks": list(tasks) or [notebook("ingest")]}
    settings.setdefault("job_clusters", copy.deepcopy(JOB_CLUSTERS))
    settings.update(fields)
    return settings


def notebook(key: str, path: str = "/Workspace/Shared/etl/nb", **fields: Any) -> dict:
    return {"task_key": key, "notebook_task": {"notebook_path": path}, **fields}


def python(key: str, python_file: str = "/Workspace/Shared/etl/run.py", **fields: Any) -> dict:
    fields.setdefault("job_cluster_key", "etl")
    return {"task_key": key, "spark_python_task": {"python_file": python_file}, **fields}


def after(task: dict, *keys: str) -> dict:
    return {**task, "depends_on": [{"task_key": key} for key in keys]}


def schedule(cron: str = "0 30 2 * * ?", tz: str = "UTC", **fields: Any) -> dict:
    return {"quartz_cron_expression": cron, "timezone_id": tz, **fields}


def found(settings: dict) -> list[tuple[str, str]]:
    return check_settings(settings)[1]


# --- valid, realistic jobs -------------------------------------------------------------

NOTEBOOK_CHAIN = {
    "name": "daily-sales",
    "email_notifications": {"on_failure": ["data@example.com"], "no_alert_for_skipped_runs": False},
    "webhook_notifications": {},
    "notification_settings": {"no_alert_for_skipped_runs": False,
                              "no_alert_for_canceled_runs": False},
    "timeout_seconds": 0,
    "max_concurrent_runs": 1,
    "health": {"rules": [{"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN",
                          "value": 3600}]},
    "schedule": {"quartz_cron_expression": "0 30 2 ? * MON-FRI", "timezone_id": "Europe/Amsterdam",
                 "pause_status": "UNPAUSED"},
    "tasks": [
        {"task_key": "ingest", "run_if": "ALL_SUCCESS",
         "notebook_task": {"notebook_path": "/Workspace/Users/ana@example.com/ingest",
                           "base_parameters": {"day": "{{job.start_time.iso_date}}"},
                           "source": "WORKSPACE"},
         "existing_cluster_id": "0923-164208-meows279", "timeout_seconds": 0,
         "email_notifications": {}, "webhook_notifications": {},
         "notification_settings": {"no_alert_for_skipped_runs": False,
                                   "no_alert_for_canceled_runs": False,
                                   "alert_on_last_attempt": False}},
        {"task_key": "clean", "depends_on": [{"task_key": "ingest"}], "run_if": "ALL_SUCCESS",
         "notebook_task": {"notebook_path": "/Users/ana@example.com/clean", "source": "WORKSPACE"},
         "existing_cluster_id": "0923-164208-meows279", "max_retries": 3,
         "min_retry_interval_millis": 120000, "retry_on_timeout": True},
        {"task_key": "report", "depends_on": [{"task_key": "clean"}, {"task_key": "ingest"}],
         "run_if": "ALL_DONE",
         "notebook_task": {"notebook_path": "/Repos/ana@example.com/etl/report"},
         "existing_cluster_id": "0923-164208-meows279",
         "health": {"rules": [{"metric": "RUN_DURATION_SECONDS", "op": "GREATER_THAN",
                               "value": 600}]}},
    ],
    "format": "MULTI_TASK",
    "queue": {"enabled": True},
    "run_as": {"user_name": "ana@example.com"},
    "tags": {"team": "sales", "cost-center": "42"},
    "parameters": [{"name": "env", "default": "prod"}, {"name": "run.day", "default": ""}],
}  # fmt: skip

WHEEL_ON_SHARED_POLICY_CLUSTERS = {
    "name": "sales-wheel",
    "job_clusters": [
        {"job_cluster_key": "small", "new_cluster": {
            "spark_version": "15.4.x-scala2.12", "node_type_id": "Standard_DS3_v2",
            "policy_id": "E0631F5C0D0004F1", "apply_policy_default_values": True,
            "autoscale": {"min_workers": 1, "max_workers": 4},
            "spark_env_vars": {"PYSPARK_PYTHON": "/databricks/python3/bin/python3"},
            "azure_attributes": {"first_on_demand": 1, "availability": "ON_DEMAND_AZURE",
                                 "spot_bid_max_price": -1},
            "data_security_mode": "SINGLE_USER", "runtime_engine": "PHOTON",
            "enable_elastic_disk": True,
            "cluster_log_conf": {"volumes": {"destination": "/Volumes/main/ops/logs"}},
            "init_scripts": [{"workspace": {"destination": "/Shared/init/base.sh"}},
                             {"volumes": {"destination": "/Volumes/main/ops/init/ca.sh"}},
                             {"abfss": {"destination":
                                        "abfss://init@acct.dfs.core.windows.net/x.sh"}}]}},
        {"job_cluster_key": "policy_only", "new_cluster": {"policy_id": "E0631F5C0D0004F2",
                                                          "apply_policy_default_values": True}},
    ],
    "tasks": [
        {"task_key": "transform", "job_cluster_key": "small",
         "python_wheel_task": {"package_name": "sales", "entry_point": "transform",
                               "named_parameters": {"env": "prod"}},
         "libraries": [{"whl": "/Volumes/main/libs/wheels/sales-1.4.0-py3-none-any.whl"},
                       {"pypi": {"package": "pandas[performance]==2.2.2", "repo":
                                 "https://pypi.example.com/simple"}},
                       {"jar": "s3://libs/udfs-1.0.jar"},
                       {"maven": {"coordinates": "org.jsoup:jsoup:1.7.2",
                                  "exclusions": ["slf4j:slf4j"]}},
                       {"requirements": "/Workspace/Shared/etl/requirements.txt"},
                       {"cran": {"package": "ada"}}]},
        {"task_key": "jar", "depends_on": [{"task_key": "transform"}],
         "job_cluster_key": "policy_only",
         "spark_jar_task": {"jar_uri": "", "main_class_name": "com.acme.Sessionize",
                            "parameters": ["--full"], "run_as_repl": True}},
        {"task_key": "submit", "depends_on": [{"task_key": "jar"}],
         "new_cluster": {"spark_version": "15.4.x-scala2.12", "node_type_id": "i3.xlarge",
                         "num_workers": 0, "aws_attributes": {
                             "availability": "SPOT_WITH_FALLBACK", "zone_id": "auto",
                             "first_on_demand": 1, "spot_bid_price_percent": 100,
                             "ebs_volume_count": 0},
                         "spark_conf": {"spark.master": "local[*]"},
                         "custom_tags": {"ResourceClass": "SingleNode"}},
         "spark_submit_task": {"parameters": ["--class", "com.acme.Main", "dbfs:/x.jar"]}},
    ],
}  # fmt: skip

GIT_SOURCED_DBT_AND_SQL = {
    "name": "analytics",
    "git_source": {"git_url": "https://github.com/acme/analytics", "git_provider": "gitHub",
                   "git_branch": "main"},
    "tasks": [
        {"task_key": "dbt", "dbt_task": {"commands": ["dbt deps", "dbt run --select sales"],
                                         "project_directory": "", "warehouse_id": "a1b2c3d4",
                                         "schema": "analytics", "catalog": "main",
                                         "source": "GIT"},
         "job_cluster_key": "etl", "libraries": [{"pypi": {"package": "dbt-databricks==1.8.0"}}]},
        {"task_key": "nb", "notebook_task": {"notebook_path": "notebooks/refresh"},
         "job_cluster_key": "etl"},
        {"task_key": "ws_nb", "notebook_task": {"notebook_path": "/Workspace/Shared/x",
                                                "source": "WORKSPACE"}, "job_cluster_key": "etl"},
        {"task_key": "py_git", "spark_python_task": {"python_file": "jobs/load.py"},
         "job_cluster_key": "etl"},
        {"task_key": "py_cloud", "spark_python_task": {"python_file": "s3://bucket/load.py"},
         "job_cluster_key": "etl"},
        {"task_key": "sql_file", "depends_on": [{"task_key": "dbt"}],
         "sql_task": {"file": {"path": "queries/refresh.sql"}, "warehouse_id": "a1b2c3d4"}},
        {"task_key": "sql_query", "sql_task": {"query": {"query_id": "5c8e2a4f"},
                                               "parameters": {"day": "today"},
                                               "warehouse_id": "a1b2c3d4"}},
        {"task_key": "sql_alert", "sql_task": {"alert": {"alert_id": "77", "subscriptions": [
            {"user_name": "ana@example.com"}]}, "warehouse_id": "a1b2c3d4"}},
        {"task_key": "pipeline", "pipeline_task": {"pipeline_id": "1b2c", "full_refresh": False}},
    ],
    "job_clusters": JOB_CLUSTERS,
}  # fmt: skip

FOR_EACH_RUN_JOB_CONDITION = {
    "name": "fan-out",
    "parameters": [{"name": "regions", "default": "[\"eu\", \"us\"]"}],
    "tasks": [
        {"task_key": "count", "notebook_task": {"notebook_path": "/Workspace/etl/count"}},
        {"task_key": "has_rows", "depends_on": [{"task_key": "count"}],
         "condition_task": {"op": "GREATER_THAN", "left": "{{tasks.count.values.rows}}",
                            "right": "0"}},
        {"task_key": "same_env", "condition_task": {"op": "EQUAL_TO",
                                                   "left": "{{job.parameters.env}}",
                                                   "right": "prod"}},
        {"task_key": "per_region", "depends_on": [{"task_key": "has_rows", "outcome": "true"}],
         "for_each_task": {"inputs": "{{job.parameters.regions}}", "concurrency": 4,
                           "task": {"task_key": "per_region_iteration",
                                    "notebook_task": {"notebook_path": "/Workspace/etl/region",
                                                      "base_parameters": {"r": "{{input}}"}},
                                    "job_cluster_key": "etl"}}},
        {"task_key": "literal_loop", "for_each_task": {"inputs": "[1, 2, 3]", "task": {
            "task_key": "literal_iteration", "python_wheel_task": {"package_name": "p",
                                                                   "entry_point": "e"},
            "environment_key": "default"}}},
        {"task_key": "skip", "depends_on": [{"task_key": "has_rows", "outcome": "false"}],
         "run_job_task": {"job_id": 912345678, "job_parameters": {"source": "fan-out"}}},
    ],
    "job_clusters": JOB_CLUSTERS,
    "environments": [{"environment_key": "default", "spec": {
        "environment_version": "2", "dependencies": ["pandas==2.2.2", "/Volumes/main/w/x.whl"]}}],
}  # fmt: skip

SERVERLESS_ON_FILE_ARRIVAL = {
    "name": "landing",
    "trigger": {"pause_status": "UNPAUSED", "file_arrival": {
        "url": "s3://acme-landing/orders/", "min_time_between_triggers_seconds": 60,
        "wait_after_last_change_seconds": 120}},
    "environments": [{"environment_key": "default", "spec": {"client": "1",
                                                            "dependencies": ["requests"]}},
                     {"environment_key": "jvm", "spec": {
                         "environment_version": "3",
                         "java_dependencies": ["/Volumes/main/libs/udf.jar"]}}],
    "environment_variables": [{"environment_variables_key": "common", "spec": {
        "variables": {"LOG_LEVEL": "info", "_TOKEN_FILE": "/tmp/t"},
        "files": ["/Workspace/Shared/common.env"]}}],
    "tasks": [
        {"task_key": "load", "spark_python_task": {"python_file": "/Workspace/etl/load.py"},
         "environment_key": "default", "environment_variables_key": "common"},
        {"task_key": "nb", "notebook_task": {"notebook_path": "/Workspace/etl/nb"}},
        {"task_key": "jar", "spark_jar_task": {"main_class_name": "com.acme.Main"},
         "environment_key": "jvm"},
    ],
    "performance_target": "PERFORMANCE_OPTIMIZED",
    "budget_policy_id": "7d2f",
}  # fmt: skip

CONTINUOUS = {
    "name": "stream",
    "continuous": {"pause_status": "UNPAUSED", "task_retry_mode": "ON_FAILURE",
                   "maintenance_window": {"start_hour": 3, "day_of_week": "SUNDAY",
                                          "timezone_id": "America/New_York"}},
    "max_concurrent_runs": 1,
    "tasks": [{"task_key": "stream", "notebook_task": {"notebook_path": "/Workspace/s"},
               "job_cluster_key": "etl"}],
    "job_clusters": JOB_CLUSTERS,
    "deployment": {"kind": "BUNDLE", "metadata_file_path": "/Workspace/b/state/metadata.json"},
    "edit_mode": "UI_LOCKED",
}  # fmt: skip

OTHER_TRIGGERS = {
    "name": "triggers",
    "triggers": [
        {"table_update": {"table_names": ["main.sales.orders"], "condition": "ANY_UPDATED",
                          "min_time_between_triggers_seconds": 300}},
        {"periodic": {"interval": 4, "unit": "HOURS"}},
        {"schedule": {"quartz_cron_expression": "0 0 0/6 L * ?", "timezone_id": "GMT+05:30"}},
    ],
    "tasks": [{"task_key": "t", "notebook_task": {"notebook_path": "/Workspace/t"}}],
}  # fmt: skip

VALID_JOBS = {
    "notebook chain (as jobs/get returns it)": NOTEBOOK_CHAIN,
    "wheel, jar, submit on shared job clusters with policies": WHEEL_ON_SHARED_POLICY_CLUSTERS,
    "dbt and sql from git source": GIT_SOURCED_DBT_AND_SQL,
    "for-each, run-job, condition outcomes": FOR_EACH_RUN_JOB_CONDITION,
    "serverless environments on a file-arrival trigger": SERVERLESS_ON_FILE_ARRIVAL,
    "continuous with a maintenance window": CONTINUOUS,
    "table-update, periodic and cron triggers": OTHER_TRIGGERS,
}


@pytest.mark.parametrize("settings", VALID_JOBS.values(), ids=VALID_JOBS.keys())
def test_realistic_jobs_are_valid_and_read_back_unchanged(settings):
    model, reported = check_settings(settings)
    assert reported == []
    assert model is not None
    assert model.model_dump(mode="json", exclude_none=True) == settings


def test_jobs_get_output_is_taken_as_is():
    # Verbatim shape of a `jobs/get` answer's settings (server-filled fields included).
    got = {
        "name": "Untitled", "email_notifications": {}, "webhook_notifications": {},
        "timeout_seconds": 0, "max_concurrent_runs": 1, "format": "MULTI_TASK",
        "queue": {"enabled": True}, "run_as": {"service_principal_name": "9f0b6a8e-1c2d"},
        "tasks": [{"task_key": "Untitled", "run_if": "ALL_SUCCESS", "timeout_seconds": 0,
                   "notebook_task": {"notebook_path": "/Workspace/Users/a@b.c/nb",
                                     "source": "WORKSPACE"},
                   "email_notifications": {}, "webhook_notifications": {},
                   "notification_settings": {"no_alert_for_skipped_runs": False,
                                             "no_alert_for_canceled_runs": False,
                                             "alert_on_last_attempt": False}}],
    }  # fmt: skip
    assert check_settings(got)[1] == []


def test_pulumi_numbers_come_as_floats():
    settings = job(python("a", max_retries=2.0, timeout_seconds=60.0), max_concurrent_runs=3.0)
    model, reported = check_settings(settings)
    assert reported == [] and model is not None
    assert model.max_concurrent_runs == 3 and model.tasks[0].max_retries == 2


# --- legacy shapes ---------------------------------------------------------------------

LEGACY_FORM: dict[str, Any] = {
    "name": "nightly-etl",
    "new_cluster": {
        "name": "etl",
        "spark_version": "13.3.x-scala2.12",
        "node_type_id": "Standard_DS3_v2",
        "autoscale": {"min_workers": 1, "max_workers": 4},
        "init_scripts": [{"dbfs": {"destination": "dbfs:/init/install-deps.sh"}}],
        "cluster_log_conf": {
            "dbfs": {"destination": "dbfs:/mnt/logs/nightly-etl"},
            "spark_env_vars": {"ENVIRONMENT": "local"},
        },
        "libraries": [{"pypi": {"package": "requests==2.32.3"}}],
        "timeout_seconds": 3600,
        "max_retries": 2,
        "spark_python_task": {"python_file": "dbfs:/jobs/nightly_etl.py", "parameters": ["-v"]},
    },
    "tags": {"team": "data"},
}

PUBLIC_2_0: dict[str, Any] = {
    "name": "nightly-etl",
    "existing_cluster_id": "0923-164208-meows279",
    "notebook_task": {"notebook_path": "/Workspace/etl/nightly"},
    "libraries": [{"whl": "/Volumes/main/libs/etl.whl"}],
    "max_retries": 1,
    "min_retry_interval_millis": 60000,
    "retry_on_timeout": True,
    "timeout_seconds": 1800,
    "max_concurrent_runs": 2,
    "email_notifications": {"on_failure": ["ops@example.com"]},
    "schedule": {"quartz_cron_expression": "0 0 1 * * ?", "timezone_id": "UTC"},
    "tags": {"team": "data"},
}

LIFTED_LEGACY_FORM = {
    "name": "nightly-etl",
    "tags": {"team": "data"},
    "tasks": [
        {
            "task_key": LEGACY_TASK_KEY,
            "libraries": [{"pypi": {"package": "requests==2.32.3"}}],
            "max_retries": 2,
            "new_cluster": {
                "cluster_name": "etl",
                "spark_version": "13.3.x-scala2.12",
                "node_type_id": "Standard_DS3_v2",
                "autoscale": {"min_workers": 1, "max_workers": 4},
                "init_scripts": [{"dbfs": {"destination": "dbfs:/init/install-deps.sh"}}],
                "cluster_log_conf": {"dbfs": {"destination": "dbfs:/mnt/logs/nightly-etl"}},
                "spark_env_vars": {"ENVIRONMENT": "local"},
            },
            "spark_python_task": {"python_file": "dbfs:/jobs/nightly_etl.py", "parameters": ["-v"]},
            "timeout_seconds": 3600,
        }
    ],
}

LIFTED_PUBLIC_2_0 = {
    "name": "nightly-etl",
    "max_concurrent_runs": 2,
    "email_notifications": {"on_failure": ["ops@example.com"]},
    "schedule": {"quartz_cron_expression": "0 0 1 * * ?", "timezone_id": "UTC"},
    "tags": {"team": "data"},
    "tasks": [
        {
            "task_key": LEGACY_TASK_KEY,
            "existing_cluster_id": "0923-164208-meows279",
            "notebook_task": {"notebook_path": "/Workspace/etl/nightly"},
            "libraries": [{"whl": "/Volumes/main/libs/etl.whl"}],
            "max_retries": 1,
            "min_retry_interval_millis": 60000,
            "retry_on_timeout": True,
            "timeout_seconds": 1800,
        }
    ],
}


@pytest.mark.parametrize(
    ("legacy", "lifted"),
    [(LEGACY_FORM, LIFTED_LEGACY_FORM), (PUBLIC_2_0, LIFTED_PUBLIC_2_0)],
    ids=["legacy", "2.0"],
)
def test_legacy_shapes_lift_to_one_task(legacy, lifted):
    before = copy.deepcopy(legacy)
    assert is_legacy(legacy) and not is_legacy(lifted)
    assert lift_legacy(legacy) == lifted
    model, reported = check_settings(legacy)
    assert reported == [] and model is not None
    assert model.model_dump(mode="json", exclude_none=True) == lifted
    # The lifted form is itself valid, and the same job.
    assert JobSettingsModel.model_validate(lifted) == model
    assert legacy == before


def test_the_legacy_form_nesting_and_the_job_level_may_agree():
    settings = copy.deepcopy(LEGACY_FORM)
    settings["timeout_seconds"] = 3600
    settings["new_cluster"]["spark_env_vars"] = {"ENVIRONMENT": "local"}
    assert lift_legacy(settings) == LIFTED_LEGACY_FORM


@pytest.mark.parametrize(
    ("change", "places"),
    [
        (lambda s: s.update(timeout_seconds=60), "timeout_seconds and new_cluster.timeout_seconds"),
        (
            lambda s: s.update(libraries=[{"pypi": {"package": "six==1.16.0"}}]),
            "libraries and new_cluster.libraries",
        ),
        (
            lambda s: s["new_cluster"].update(spark_env_vars={"ENVIRONMENT": "dev"}),
            "new_cluster.spark_env_vars and new_cluster.cluster_log_conf.spark_env_vars",
        ),
        (
            lambda s: s["new_cluster"].update(cluster_name="other"),
            "new_cluster.cluster_name and new_cluster.name",
        ),
    ],
    ids=["timeout", "libraries", "spark_env_vars", "cluster name"],
)
def test_a_value_given_in_two_places_differently_names_both(change, places):
    settings = copy.deepcopy(LEGACY_FORM)
    change(settings)
    with pytest.raises(LegacyShapeError, match=places):
        lift_legacy(settings)
    [(path, reason)] = found(settings)
    assert path == "new_cluster"  # where the legacy form nests it
    assert places in reason and "give it once" in reason


def test_a_legacy_job_may_have_no_task_type():
    # Jobs 2.0 single-task jobs may be a cluster and settings only; stacks declare such jobs.
    legacy = {"name": "n", "new_cluster": CLUSTER, "max_retries": 1}
    assert found(legacy) == []
    # Its lifted form is the multi-task shape, where every task says what it runs.
    assert [path for path, _ in found(lift_legacy(legacy))] == [f"tasks[{LEGACY_TASK_KEY}]"]


def test_legacy_fields_beside_tasks_say_where_they_go():
    [(path, reason)] = found(job(notebook("a"), new_cluster=CLUSTER))
    assert path == "new_cluster"
    assert "new_cluster is a single-task field, and this job has tasks" in reason
    assert "job_clusters" in reason
    [(_, reason)] = found(job(notebook("a"), max_retries=3))
    assert "tasks[].max_retries" in reason


def test_errors_in_a_legacy_shape_are_named_where_they_were_given():
    settings = copy.deepcopy(LEGACY_FORM)
    settings["new_cluster"]["spark_python_task"]["python_file"] = "jobs/etl.py"
    assert found(settings) == [
        (
            "new_cluster.spark_python_task.python_file",
            "a workspace path is absolute, e.g. '/Workspace/Users/me@example.com/etl' or a URI "
            "such as 'dbfs:/jobs/etl.py'; a relative path needs source: GIT and git_source on "
            "the job",
        )
    ]
    settings = copy.deepcopy(LEGACY_FORM)
    settings["new_cluster"]["cluster_log_conf"]["spark_env_vars"] = {"A": 1}
    settings["new_cluster"]["name"] = 7
    settings["new_cluster"]["libraries"][0]["pypi"]["package"] = "requests"
    settings["new_cluster"]["autoscale"]["min_workers"] = 9
    assert {path for path, _ in found(settings)} == {
        "new_cluster.cluster_log_conf.spark_env_vars.A",
        "new_cluster.name",
        "new_cluster.libraries[0].pypi.package",
        "new_cluster.autoscale",
    }
    public = copy.deepcopy(PUBLIC_2_0)
    public["notebook_task"]["notebook_path"] = "etl/nightly"
    public["max_retries"] = -5
    assert {path for path, _ in found(public)} == {
        "notebook_task.notebook_path",
        "max_retries",
    }


# --- our own input rules ---------------------------------------------------------------


def test_a_job_needs_a_name_that_is_not_blank():
    assert found({"tasks": [notebook("a")]}) == [("name", "Field required")]
    assert found(job(name="  ")) == [("name", "must not be blank: give the job a name")]


def test_the_deployment_tag_key_is_reserved():
    [(path, reason)] = found(job(tags={"team": "x", "pulumi-deployment": "p/s/r"}))
    assert path == "tags"
    assert "'pulumi-deployment' is reserved" in reason


@pytest.mark.parametrize("package", ["requests", "requests>=2", "requests==2.*", "==1.0", ""])
def test_pypi_libraries_pin_one_exact_version(package):
    settings = job(python("a", libraries=[{"pypi": {"package": package}}]))
    assert found(settings) == [
        (
            "tasks[a].libraries[0].pypi.package",
            "must pin one exact version as name==version (e.g. 'requests==2.32.3')",
        )
    ]


def test_unknown_fields_suggest_the_field_meant():
    settings = job({"task_key": "a", "notebok_task": {"notebook_path": "/x"}}, max_concurrent_run=2)
    assert set(found(settings)) == {
        ("max_concurrent_run", "unknown key (did you mean 'max_concurrent_runs'?)"),
        ("tasks[a].notebok_task", "unknown key (did you mean 'notebook_task'?)"),
    }
    assert found(job(python("a", new_cluster={**CLUSTER, "zzz": 1}, job_cluster_key=None))) == [
        ("tasks[a].new_cluster.zzz", "unknown key (not a field of ClusterSpec)")
    ]


def test_pydantic_errors_name_keyed_items_by_key():
    settings = job(notebook("ingest"), {"task_key": "transform", "notebook_task": {}})
    assert found(settings) == [("tasks[transform].notebook_task.notebook_path", "Field required")]
    [(path, reason)] = found(job(schedule=schedule(pause_status="STOPPED")))
    assert path == "schedule.pause_status"
    assert reason == "Input should be 'PAUSED' or 'UNPAUSED'"


# --- the cross-field rules, one invalid input each -------------------------------------

ALL_TYPES_HINT = "no task type: give one of "

INVALID = [
    # keys and references
    ("duplicate task key", job(notebook("a"), notebook("a")), "tasks[1].task_key",
     "task 'a' is given twice (tasks[0] and tasks[1]); each task_key must be unique"),
    ("task key pattern", job(notebook("bad key")), "tasks[bad key].task_key",
     "'bad key' is not a valid key"),
    ("task key length", job(notebook("k" * 101)), f"tasks[{'k' * 101}].task_key",
     "1 to 100 letters"),
    ("duplicate job cluster", job(job_clusters=JOB_CLUSTERS * 2), "job_clusters[1].job_cluster_key",
     "job cluster 'etl' is given twice"),
    ("job cluster key pattern", job(job_clusters=[{"job_cluster_key": "a/b"}]),
     "job_clusters[a/b].job_cluster_key", "not a valid key"),
    ("unknown job cluster", job(python("a", job_cluster_key="etI")), "tasks[a].job_cluster_key",
     "no job cluster 'etI' in this job (did you mean 'etl'?)"),
    ("no job clusters", job(python("a", job_cluster_key="etl"), job_clusters=[]),
     "tasks[a].job_cluster_key", "no job cluster 'etl' in this job: define it in job_clusters"),
    ("unknown dependency", job(notebook("ingest"), after(notebook("transform"), "ingst")),
     "tasks[transform].depends_on[0].task_key",
     "no task 'ingst' in this job (did you mean 'ingest'?)"),
    ("self dependency", job(after(notebook("a"), "a")), "tasks[a].depends_on[0].task_key",
     "a task cannot depend on itself"),
    ("two-task cycle", job(after(notebook("a"), "b"), after(notebook("b"), "a")),
     "tasks[b].depends_on[0].task_key", "dependency cycle: a -> b -> a"),
    ("three-task cycle", job(notebook("x"), after(notebook("a"), "x", "c"),
                             after(notebook("b"), "a"), after(notebook("c"), "b")),
     "tasks[b].depends_on[0].task_key", "dependency cycle: a -> c -> b -> a (each depends on"),
    ("outcome on a non-condition", job(notebook("a"),
                                       {**notebook("b"), "depends_on": [
                                           {"task_key": "a", "outcome": "true"}]}),
     "tasks[b].depends_on[0].outcome", "'a' is not one"),
    ("outcome value", job({"task_key": "c", "condition_task": {"op": "EQUAL_TO", "left": "1",
                                                                "right": "1"}},
                          {**notebook("b"), "depends_on": [{"task_key": "c", "outcome": "yes"}]}),
     "tasks[b].depends_on[0].outcome", "must be 'true' or 'false', got 'yes'"),
    ("duplicate parameter", job(parameters=[{"name": "env", "default": "a"},
                                            {"name": "env", "default": "b"}]),
     "parameters[1].name", "job parameter 'env' is given twice"),
    ("parameter name", job(parameters=[{"name": "run day", "default": ""}]),
     "parameters[run day].name", "only letters, digits, '_', '-' and '.'"),
    ("duplicate environment", job(environments=[{"environment_key": "e"}] * 2),
     "environments[1].environment_key", "environment 'e' is given twice"),
    ("unknown environment", job(python("a", job_cluster_key=None, environment_key="defualt"),
                                environments=[{"environment_key": "default"}]),
     "tasks[a].environment_key", "no environment 'defualt' in this job (did you mean 'default'?)"),
    ("no environments", job(python("a", job_cluster_key=None, environment_key="default")),
     "tasks[a].environment_key", "define it in environments"),
    ("unknown variables entry", job(notebook("a", environment_variables_key="common")),
     "tasks[a].environment_variables_key", "no environment variables entry 'common'"),
    # task types and compute
    ("no task type", job({"task_key": "a", "job_cluster_key": "etl"}), "tasks[a]",
     ALL_TYPES_HINT + "ai_runtime_task"),
    ("two task types", job({**notebook("a"), "sql_task": {"query": {"query_id": "q"},
                                                          "warehouse_id": "w"}}),
     "tasks[a].sql_task", "gives 2 task types (notebook_task, sql_task); a task has one"),
    ("python without compute", job(python("a", job_cluster_key=None)),
     "tasks[a].spark_python_task",
     "spark_python_task needs compute: give job_cluster_key, existing_cluster_id, new_cluster, "
     "or environment_key (serverless)"),
    ("wheel without compute", job({"task_key": "w", "python_wheel_task": {
        "package_name": "p", "entry_point": "e"}}), "tasks[w].python_wheel_task",
     "python_wheel_task needs compute"),
    ("jar without compute", job({"task_key": "j", "spark_jar_task": {"main_class_name": "M"}}),
     "tasks[j].spark_jar_task", "spark_jar_task needs compute"),
    ("dbt without compute", job({"task_key": "d", "dbt_task": {"commands": ["dbt run"]}}),
     "tasks[d].dbt_task", "dbt_task needs compute"),
    ("two computes", job(python("a", existing_cluster_id="0923-1")), "tasks[a].job_cluster_key",
     "gives 2 computes (existing_cluster_id, job_cluster_key); give one"),
    ("spark submit on an existing cluster", job({"task_key": "s", "spark_submit_task": {},
                                                 "existing_cluster_id": "0923-1"}),
     "tasks[s].spark_submit_task", "spark_submit_task runs only on a new cluster"),
    # paths
    ("relative notebook path", job(notebook("a", "etl/nb")), "tasks[a].notebook_task.notebook_path",
     "a workspace path is absolute, e.g. '/Workspace/Users/me@example.com/etl'; a relative path "
     "needs source: GIT"),
    ("absolute notebook path from git", job(notebook("a"), git_source={
        "git_url": "https://github.com/a/b", "git_provider": "gitHub", "git_tag": "v1"}),
     "tasks[a].notebook_task.notebook_path", "with source GIT (the default when the job has "
     "git_source) the path is relative"),
    ("git source missing", job({"task_key": "a", "notebook_task": {"notebook_path": "nb",
                                                                  "source": "GIT"}}),
     "tasks[a].notebook_task.source", "source GIT needs git_source on the job"),
    ("relative python file", job(python("a", "jobs/run.py")),
     "tasks[a].spark_python_task.python_file", "or a URI such as 'dbfs:/jobs/etl.py'"),
    ("absolute python file from git", job(
        {**python("a", "dbfs:/run.py"), "spark_python_task": {"python_file": "dbfs:/run.py",
                                                             "source": "GIT"}},
        git_source={"git_url": "https://github.com/a/b", "git_provider": "gitHub",
                    "git_commit": "abc"}),
     "tasks[a].spark_python_task.python_file", "the path is relative to the repository root"),
    ("relative sql file", job({"task_key": "q", "sql_task": {"file": {"path": "q.sql"},
                                                             "warehouse_id": "w"}}),
     "tasks[q].sql_task.file.path", "a workspace path is absolute"),
    ("absolute dbt project from git", job(
        {"task_key": "d", "job_cluster_key": "etl", "dbt_task": {
            "commands": ["dbt run"], "project_directory": "/Workspace/dbt"}},
        git_source={"git_url": "https://github.com/a/b", "git_provider": "gitHub",
                    "git_branch": "main"}),
     "tasks[d].dbt_task.project_directory", "relative to the repository root"),
    # libraries
    ("relative wheel", job(python("a", libraries=[{"whl": "dist/x.whl"}])),
     "tasks[a].libraries[0].whl", "give an absolute workspace or volume path"),
    ("relative jar", job(python("a", libraries=[{"jar": "x.jar"}])), "tasks[a].libraries[0].jar",
     "or a URI (e.g. 's3://bucket/x.jar'), got 'x.jar'"),
    ("requirements as a URI", job(python("a", libraries=[{"requirements": "s3://b/r.txt"}])),
     "tasks[a].libraries[0].requirements", "give a workspace or volume path"),
    ("maven coordinates", job(python("a", libraries=[{"maven": {"coordinates": "org.jsoup"}}])),
     "tasks[a].libraries[0].maven.coordinates", "give group:artifact:version"),
    ("two library kinds", job(python("a", libraries=[{"whl": "/x.whl", "jar": "/x.jar"}])),
     "tasks[a].libraries[0]", "gives 2 (jar, whl); give exactly one library kind"),
    ("empty library", job(python("a", libraries=[{}])), "tasks[a].libraries[0]",
     "give one library kind: cran, egg, jar, maven, pypi, requirements or whl"),
    # clusters
    ("negative workers", job(job_clusters=[{"job_cluster_key": "etl", "new_cluster": {
        **CLUSTER, "num_workers": -1}}]), "job_clusters[etl].new_cluster.num_workers",
     "must be at least 0, got -1"),
    ("autoscale out of order", job(python("a", job_cluster_key=None, new_cluster={
        **CLUSTER, "autoscale": {"min_workers": 8, "max_workers": 2}})),
     "tasks[a].new_cluster.autoscale", "min_workers (8) must not exceed max_workers (2)"),
    ("workspace init script", job(job_clusters=[{"job_cluster_key": "etl", "new_cluster": {
        **CLUSTER, "init_scripts": [{"workspace": {"destination": "Shared/init.sh"}}]}}]),
     "job_clusters[etl].new_cluster.init_scripts[0].workspace.destination",
     "a workspace destination starts with '/' or 'workspace:/'"),
    ("volumes init script", job(python("a", job_cluster_key=None, new_cluster={
        **CLUSTER, "init_scripts": [{"volumes": {"destination": "/Workspace/init.sh"}}]})),
     "tasks[a].new_cluster.init_scripts[0].volumes.destination",
     "a volumes destination starts with '/Volumes/' or 'dbfs:/Volumes/'"),
    ("dbfs init script", job(python("a", job_cluster_key=None, new_cluster={
        **CLUSTER, "init_scripts": [{"dbfs": {"destination": "/init.sh"}}]})),
     "tasks[a].new_cluster.init_scripts[0].dbfs.destination", "starts with 'dbfs:/'"),
    ("abfss init script", job(python("a", job_cluster_key=None, new_cluster={
        **CLUSTER, "init_scripts": [{"abfss": {"destination": "https://x/init.sh"}}]})),
     "tasks[a].new_cluster.init_scripts[0].abfss.destination", "starts with 'abfss://'"),
    ("two init script kinds", job(python("a", job_cluster_key=None, new_cluster={
        **CLUSTER, "init_scripts": [{"dbfs": {"destination": "dbfs:/a.sh"},
                                     "s3": {"destination": "s3://b/a.sh"}}]})),
     "tasks[a].new_cluster.init_scripts[0]", "give exactly one init script destination"),
    ("log destination", job(python("a", job_cluster_key=None, new_cluster={
        **CLUSTER, "cluster_log_conf": {"dbfs": {"destination": "dbfs:/"}}})),
     "tasks[a].new_cluster.cluster_log_conf.dbfs.destination", "starts with 'dbfs:/'"),
    # condition and for-each
    ("numeric condition on text", job({"task_key": "c", "condition_task": {
        "op": "LESS_THAN", "left": "{{tasks.a.values.n}}", "right": "ten"}}),
     "tasks[c].condition_task.right", "LESS_THAN compares numbers"),
    ("condition op", job({"task_key": "c", "condition_task": {"op": "BIGGER", "left": "1",
                                                              "right": "2"}}),
     "tasks[c].condition_task.op", "'EQUAL_TO', 'GREATER_THAN'"),
    ("for-each inputs", job({"task_key": "l", "for_each_task": {"inputs": "a, b",
                                                                "task": notebook("i")}}),
     "tasks[l].for_each_task.inputs", "must be a JSON array"),
    ("for-each inputs object", job({"task_key": "l", "for_each_task": {"inputs": "{\"a\": 1}",
                                                                       "task": notebook("i")}}),
     "tasks[l].for_each_task.inputs", "or a reference to an array"),
    ("for-each concurrency", job({"task_key": "l", "for_each_task": {
        "inputs": "[1]", "concurrency": 0, "task": notebook("i")}}),
     "tasks[l].for_each_task.concurrency", "must be at least 1, got 0"),
    ("for-each nested task type", job({"task_key": "l", "for_each_task": {
        "inputs": "[1]", "task": {"task_key": "i"}}}),
     "tasks[l].for_each_task.task", ALL_TYPES_HINT),
    ("for-each nested compute", job({"task_key": "l", "for_each_task": {
        "inputs": "[1]", "task": python("i", job_cluster_key="nope")}}),
     "tasks[l].for_each_task.task.job_cluster_key", "no job cluster 'nope'"),
    ("for-each nested path", job({"task_key": "l", "for_each_task": {
        "inputs": "[1]", "task": notebook("i", "nb")}}),
     "tasks[l].for_each_task.task.notebook_task.notebook_path", "a workspace path is absolute"),
    ("nested for-each", job({"task_key": "l", "for_each_task": {"inputs": "[1]", "task": {
        "task_key": "m", "for_each_task": {"inputs": "[2]", "task": notebook("n")}}}}),
     "tasks[l].for_each_task.task.for_each_task", "cannot run another for-each task"),
    # sql, dbt, run job
    ("two sql kinds", job({"task_key": "q", "sql_task": {"warehouse_id": "w", "query": {
        "query_id": "1"}, "dashboard": {"dashboard_id": "2"}}}),
     "tasks[q].sql_task", "gives 2 (dashboard, query); give exactly one SQL task kind"),
    ("no sql kind", job({"task_key": "q", "sql_task": {"warehouse_id": "w"}}), "tasks[q].sql_task",
     "give one SQL task kind: alert, dashboard, file or query"),
    ("no dbt commands", job({"task_key": "d", "job_cluster_key": "etl",
                             "dbt_task": {"commands": []}}),
     "tasks[d].dbt_task.commands", "give at least one dbt command"),
    ("too many dbt commands", job({"task_key": "d", "job_cluster_key": "etl",
                                   "dbt_task": {"commands": ["dbt run"] * 11}}),
     "tasks[d].dbt_task.commands", "has 11 commands; at most 10"),
    ("not a dbt command", job({"task_key": "d", "job_cluster_key": "etl",
                               "dbt_task": {"commands": ["dbt deps", "pip install x"]}}),
     "tasks[d].dbt_task.commands[1]", "a dbt command starts with 'dbt'"),
    ("dbt profiles with a warehouse", job({"task_key": "d", "job_cluster_key": "etl", "dbt_task": {
        "commands": ["dbt run"], "warehouse_id": "w", "profiles_directory": "profiles"}}),
     "tasks[d].dbt_task.profiles_directory", "profiles_directory or warehouse_id, not both"),
    ("dbt catalog without a warehouse", job({"task_key": "d", "job_cluster_key": "etl",
                                             "dbt_task": {"commands": ["dbt run"],
                                                          "catalog": "main"}}),
     "tasks[d].dbt_task.catalog", "a catalog needs warehouse_id"),
    ("run job id", job({"task_key": "r", "run_job_task": {"job_id": 0}}),
     "tasks[r].run_job_task.job_id", "must be the id of a job"),
    # ranges
    ("max concurrent runs high", job(max_concurrent_runs=1001), "max_concurrent_runs",
     "must be between 0 and 1000, got 1001"),
    ("max concurrent runs negative", job(max_concurrent_runs=-1), "max_concurrent_runs",
     "must be between 0 and 1000, got -1"),
    ("job timeout", job(timeout_seconds=-1), "timeout_seconds",
     "must be at least 0 (0 means none), got -1"),
    ("task timeout", job(notebook("a", timeout_seconds=-5)), "tasks[a].timeout_seconds",
     "must be at least 0 (0 means none), got -5"),
    ("task retries", job(notebook("a", max_retries=-2)), "tasks[a].max_retries",
     "must be at least -1 (-1 retries forever), got -2"),
    ("retry interval", job(notebook("a", min_retry_interval_millis=-1)),
     "tasks[a].min_retry_interval_millis", "must be at least 0, got -1"),
    ("health value", job(health={"rules": [{"metric": "RUN_DURATION_SECONDS",
                                             "op": "GREATER_THAN", "value": -1}]}),
     "health.rules[0].value", "must be at least 0, got -1"),
    ("task health metric", job(notebook("a", health={"rules": [
        {"metric": "RUN_SECONDS", "op": "GREATER_THAN", "value": 1}]})),
     "tasks[a].health.rules[0].metric", "'RUN_DURATION_SECONDS'"),
    ("too many tags", job(tags={f"t{i}": "x" for i in range(26)}), "tags",
     "has 26 tags; a job takes at most 25"),
    # run as, git source
    ("run as nobody", job(run_as={}), "run_as",
     "give one principal: group_name, service_principal_name or user_name"),
    ("run as two", job(run_as={"user_name": "a@b.c", "service_principal_name": "9f0b"}),
     "run_as", "gives 2 (service_principal_name, user_name); give exactly one principal"),
    ("git without a reference", job(notebook("a", "nb"), git_source={"git_url": "https://github.com/a/b",
                                                "git_provider": "gitHub"}),
     "git_source", "give one git reference: git_branch, git_tag or git_commit"),
    ("git with two references", job(notebook("a", "nb"), git_source={"git_url": "https://github.com/a/b",
                                                "git_provider": "gitHub", "git_branch": "main",
                                                "git_tag": "v1"}),
     "git_source", "gives 2 (git_branch, git_tag)"),
    ("git url", job(notebook("a", "nb"), git_source={
        "git_url": "git@github.com:a/b.git", "git_provider": "gitHub", "git_branch": "main"}),
     "git_source.git_url", "give the repository's https:// URL"),
    ("git provider", job(git_source={"git_url": "https://github.com/a/b", "git_branch": "main"}),
     "git_source.git_provider", "Field required"),
    # schedules and triggers
    ("unix cron", job(schedule=schedule("30 2 * * *")), "schedule.quartz_cron_expression",
     "has 5 fields; a Quartz expression has 6 or 7"),
    ("cron with both days", job(schedule=schedule("0 0 6 * * MON")),
     "schedule.quartz_cron_expression", "give '?' in exactly one of day-of-month and day-of-week"),
    ("cron with no days", job(schedule=schedule("0 0 6 ? * ?")),
     "schedule.quartz_cron_expression", "give '?' in exactly one"),
    ("cron seconds", job(schedule=schedule("60 0 6 * * ?")), "schedule.quartz_cron_expression",
     "seconds field '60': '60' is not a value here: 0-59"),
    ("cron sunday as 0", job(schedule=schedule("0 0 6 ? * 0")),
     "schedule.quartz_cron_expression", "day-of-week field '0': '0' is not a value here: 1-7 or "
     "SUN-SAT (1 = SUN)"),
    ("cron month name", job(schedule=schedule("0 0 6 1 JANUARY ?")),
     "schedule.quartz_cron_expression", "month field 'JANUARY'"),
    ("cron step", job(schedule=schedule("0 0/0 * * * ?")), "schedule.quartz_cron_expression",
     "the step after '/' is a number from 1 to 59"),
    ("cron question mark in hours", job(schedule=schedule("0 0 ? * * ?")),
     "schedule.quartz_cron_expression", "'?' is only for day-of-month and day-of-week"),
    ("cron last-day offset", job(schedule=schedule("0 0 6 L-31 * ?")),
     "schedule.quartz_cron_expression", "an offset from the last day is at most 30"),
    ("cron year", job(schedule=schedule("0 0 6 * * ? 1969")), "schedule.quartz_cron_expression",
     "year field '1969'"),
    ("time zone", job(schedule=schedule(tz="Europe/Amsterdm")), "schedule.timezone_id",
     "'Europe/Amsterdm' is not a time-zone id (did you mean 'Europe/Amsterdam'?)"),
    ("pause status", job(schedule=schedule(pause_status="OFF")), "schedule.pause_status",
     "'PAUSED' or 'UNPAUSED'"),
    ("schedule and continuous", job(schedule=schedule(), continuous={}), "continuous",
     "schedule and continuous are given together; a job runs on one of schedule, continuous "
     "and trigger"),
    ("schedule and trigger", job(schedule=schedule(), trigger={"periodic": {
        "interval": 1, "unit": "DAYS"}}), "trigger", "schedule and trigger are given together"),
    ("triggers beside trigger", job(trigger={"periodic": {"interval": 1, "unit": "DAYS"}},
                                    triggers=[{"periodic": {"interval": 1, "unit": "DAYS"}}]),
     "triggers", "triggers replaces trigger"),
    ("trigger without a kind", job(trigger={"pause_status": "PAUSED"}), "trigger",
     "give one trigger kind: file_arrival, model, periodic, sql_condition or table_update"),
    ("trigger with two kinds", job(trigger={"periodic": {"interval": 1, "unit": "DAYS"},
                                            "file_arrival": {"url": "s3://b/"}}),
     "trigger", "gives 2 (file_arrival, periodic); give exactly one trigger kind"),
    ("file arrival too often", job(trigger={"file_arrival": {
        "url": "s3://b/", "min_time_between_triggers_seconds": 30}}),
     "trigger.file_arrival.min_time_between_triggers_seconds", "must be at least 60, got 30"),
    ("file arrival url", job(trigger={"file_arrival": {"url": "landing/"}}),
     "trigger.file_arrival.url", "give the external location's URL"),
    ("periodic interval", job(trigger={"periodic": {"interval": 0, "unit": "HOURS"}}),
     "trigger.periodic.interval", "must be at least 1, got 0"),
    ("periodic unit", job(trigger={"periodic": {"interval": 1, "unit": "SECONDS"}}),
     "trigger.periodic.unit", "'DAYS', 'HOURS', 'MINUTES' or 'WEEKS'"),
    ("table update tables", job(triggers=[{"table_update": {"table_names": []}}]),
     "triggers[0].table_update.table_names", "give at least one table"),
    ("triggers schedule cron", job(triggers=[{"schedule": {"quartz_cron_expression": "* * * *",
                                                           "timezone_id": "UTC"}}]),
     "triggers[0].schedule.quartz_cron_expression", "has 4 fields"),
    ("maintenance hour", job(continuous={"maintenance_window": {
        "start_hour": 24, "day_of_week": "MONDAY", "timezone_id": "UTC"}}),
     "continuous.maintenance_window.start_hour", "must be between 0 and 23, got 24"),
    # environments
    ("environment version", job(environments=[{"environment_key": "e", "spec": {
        "dependencies": ["x==1"]}}]), "environments[e].spec", "give environment_version"),
    ("environment version and base", job(environments=[{"environment_key": "e", "spec": {
        "environment_version": "2", "base_environment": "/Workspace/env.yaml"}}]),
     "environments[e].spec", "not both"),
    ("variable name", job(environment_variables=[{"environment_variables_key": "v", "spec": {
        "variables": {"1BAD": "x"}}}]), "environment_variables[v].spec.variables.1BAD",
     "a variable name starts with a letter or '_'"),
    ("too many variables", job(environment_variables=[{"environment_variables_key": "v", "spec": {
        "variables": {f"V{i}": "x" for i in range(21)}}}]),
     "environment_variables[v].spec.variables", "has 21 variables; at most 20"),
    ("variables file", job(environment_variables=[{"environment_variables_key": "v", "spec": {
        "files": ["dbfs:/x.env"]}}]), "environment_variables[v].spec.files[0]",
     "give a /Workspace/... or /Volumes/... path"),
    ("too many variables entries", job(environment_variables=[
        {"environment_variables_key": f"v{i}"} for i in range(11)]),
     "environment_variables", "has 11 entries; a job takes at most 10"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("settings", "path", "fragment"),
    [pytest.param(settings, path, fragment, id=name) for name, settings, path, fragment in INVALID],
)
def test_each_rule_names_the_path_and_the_fix(settings, path, fragment):
    reported = found(settings)
    assert [p for p, _ in reported] == [path], reported
    assert fragment in reported[0][1]


def test_there_are_enough_rules_under_test():
    assert len(INVALID) >= 60


def test_every_problem_is_reported_not_just_the_first():
    settings = job(
        notebook("a", "rel"),
        after(python("b", job_cluster_key="etx"), "c"),
        max_concurrent_runs=5000,
        schedule=schedule("0 0 * * *"),
    )
    assert {path for path, _ in found(settings)} == {
        "tasks[a].notebook_task.notebook_path",
        "tasks[b].job_cluster_key",
        "tasks[b].depends_on[0].task_key",
        "max_concurrent_runs",
        "schedule.quartz_cron_expression",
    }


def test_problems_name_paths_in_the_model_without_inputs():
    model = JobSettingsModel.model_validate(job(notebook("x"), after(notebook("y"), "z")))
    assert problems(model) == [
        ("tasks[y].depends_on[0].task_key", "no task 'z' in this job"),
    ]


# --- error_path ------------------------------------------------------------------------


def test_error_path_names_keyed_items_by_key():
    inputs = job(notebook("ingest"), after(notebook("transform"), "ingest"))
    inputs["parameters"] = [{"name": "env", "default": "x"}]
    inputs["environments"] = [{"environment_key": "default"}]
    assert (
        error_path(("tasks", 1, "depends_on", 0, "task_key"), inputs)
        == "tasks[transform].depends_on[0].task_key"
    )
    assert error_path(["job_clusters", 0, "new_cluster"], inputs) == "job_clusters[etl].new_cluster"
    assert error_path(("parameters", 0, "default"), inputs) == "parameters[env].default"
    assert error_path(("environments", 0), inputs) == "environments[default]"
    assert error_path(("tags", "team"), inputs) == "tags.team"
    assert error_path((), inputs) == ""


def test_error_path_uses_the_index_when_the_key_is_missing_or_repeated():
    inputs = {"tasks": [{"task_key": "a"}, {"task_key": "a"}, {"notebook_task": {}}, "junk"]}
    assert error_path(("tasks", 0, "task_key"), inputs) == "tasks[0].task_key"
    assert error_path(("tasks", 2, "notebook_task"), inputs) == "tasks[2].notebook_task"
    assert error_path(("tasks", 3), inputs) == "tasks[3]"
    assert error_path(("tasks", 9, "x"), inputs) == "tasks[9].x"


def test_error_path_keys_only_the_jobs_own_lists():
    inputs = job(
        {"task_key": "op", "python_operator_task": {"parameters": [{"name": "n", "value": "v"}]}}
    )
    assert (
        error_path(("tasks", 0, "python_operator_task", "parameters", 0, "value"), inputs)
        == "tasks[op].python_operator_task.parameters[0].value"
    )


# --- the helpers the rules use ---------------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        "0 0 12 * * ?",
        "0 15 10 ? * *",
        "0 15 10 * * ? 2030",
        "0 0/5 14,18 * * ?",
        "0 0-5 14 * * ?",
        "0 10,44 14 ? 3 WED",
        "0 15 10 ? * MON-FRI",
        "0 15 10 15 * ?",
        "0 15 10 L * ?",
        "0 15 10 L-2 * ?",
        "0 15 10 ? * 6L",
        "0 15 10 ? * FRIL",
        "0 15 10 ? * 6#3",
        "0 0 12 1/5 * ?",
        "0 11 11 11 11 ?",
        "0 0 9 LW * ?",
        "0 0 9 15W * ?",
        "*/30 * * ? * *",
        "0 0 22-2 ? * sun-sat",
        "0 0 1 ? jan-mar,oct mon",
    ],
)
def test_cron_takes_quartz_expressions(expression):
    assert cron_problem(expression) is None


@pytest.mark.parametrize("zone", ["UTC", "GMT", "Etc/GMT+5", "America/New_York", "PST", "GMT+2"])
def test_time_zones_take_java_ids(zone):
    assert timezone_problem(zone) is None


def test_time_zone_problem_suggests_a_close_id():
    assert "did you mean 'America/New_York'" in (timezone_problem("America/NewYork") or "")


def test_validating_a_five_task_job_is_fast():
    settings = job(
        notebook("ingest", job_cluster_key="etl", libraries=[{"pypi": {"package": "x==1"}}]),
        after(python("clean"), "ingest"),
        after({"task_key": "wheel", "python_wheel_task": {"package_name": "p",
               "entry_point": "e"}, "job_cluster_key": "etl"}, "clean"),
        after({"task_key": "sql", "sql_task": {"query": {"query_id": "q"},
               "warehouse_id": "w"}}, "wheel"),
        after({"task_key": "next", "run_job_task": {"job_id": 7}}, "sql"),
        schedule=schedule("0 30 2 ? * MON-FRI", "Europe/Amsterdam"),
    )  # fmt: skip
    assert found(settings) == []
    best = min(timeit.repeat(lambda: check_settings(settings), number=20, repeat=5)) / 20
    assert best < 0.005, f"{best * 1000:.2f} ms per 5-task job"
