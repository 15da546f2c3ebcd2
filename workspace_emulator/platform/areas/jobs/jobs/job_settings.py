"""Job settings as a client sends them: the two nestings of the legacy single-task shape
(docs/api.md#wire-forms) and the checks of every value, naming the field.

The seed form keeps `timeout_seconds`, `max_retries` and `spark_python_task` inside
`new_cluster`, and `spark_env_vars` inside `new_cluster.cluster_log_conf`; the public form
has the first three at job level and `spark_env_vars` directly in `new_cluster`. How a
legacy job becomes the canonical multi-task form is job_format's business; the rules that
tie tasks together (keys, dependencies) are job_graph's.
"""

from __future__ import annotations

import math
from typing import Any

from workspace_emulator.errors import InvalidParameter

SEED_FORM = "seed"
PUBLIC_FORM = "public"
SEED_CLUSTER_FIELDS = ("timeout_seconds", "max_retries", "spark_python_task")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
RUN_IF_CONDITIONS = ("ALL_SUCCESS", "AT_LEAST_ONE_SUCCESS", "NONE_FAILED", "ALL_DONE",
                     "AT_LEAST_ONE_FAILED", "ALL_FAILED")
RUN_AS_FIELDS = ("user_name", "service_principal_name", "group_name")


def detect_form(settings: dict[str, Any]) -> str:
    cluster = settings.get("new_cluster")
    if isinstance(cluster, dict):
        if any(name in cluster for name in SEED_CLUSTER_FIELDS):
            return SEED_FORM
        log_conf = cluster.get("cluster_log_conf")
        if isinstance(log_conf, dict) and "spark_env_vars" in log_conf:
            return SEED_FORM
    return PUBLIC_FORM


def _move(source: dict, target: dict, name: str, where: str) -> None:
    value = source.pop(name)
    if name in target and target[name] != value:
        raise InvalidParameter(
            f"'{name}' is given twice with different values (at {where} and in its seed-form "
            "place); give it once."
        )
    target[name] = value


def to_public_form(settings: dict[str, Any]) -> dict[str, Any]:
    """Settings in either form, as the public form. Does not change its argument: only the
    three objects whose keys move are copied."""
    public = dict(settings)
    cluster = public.get("new_cluster")
    if not isinstance(cluster, dict):
        return public
    cluster = public["new_cluster"] = dict(cluster)
    for name in SEED_CLUSTER_FIELDS:
        if name in cluster:
            _move(cluster, public, name, "job level")
    log_conf = cluster.get("cluster_log_conf")
    if isinstance(log_conf, dict) and "spark_env_vars" in log_conf:
        log_conf = cluster["cluster_log_conf"] = dict(log_conf)
        _move(log_conf, cluster, "spark_env_vars", "new_cluster")
    return public


def to_seed_form(public: dict[str, Any]) -> dict[str, Any]:
    seed = dict(public)
    cluster = seed.get("new_cluster")
    if not isinstance(cluster, dict):
        return seed
    cluster = seed["new_cluster"] = dict(cluster)
    for name in SEED_CLUSTER_FIELDS:
        if name in seed:
            cluster[name] = seed.pop(name)
    if "spark_env_vars" in cluster:
        log_conf = cluster["cluster_log_conf"] = dict(cluster.get("cluster_log_conf") or {})
        log_conf["spark_env_vars"] = cluster.pop("spark_env_vars")
    return seed


def render(public: dict[str, Any], form: str) -> dict[str, Any]:
    return to_seed_form(public) if form == SEED_FORM else dict(public)


# validation (of the public form)

def field_error(field: str, problem: str) -> InvalidParameter:
    return InvalidParameter(f"Invalid value for '{field}': {problem}")


def expect(value: Any, kind: type | tuple[type, ...], field: str) -> Any:
    if isinstance(value, bool) and kind is int:
        raise field_error(field, "expected an integer")
    if not isinstance(value, kind):
        name = {int: "an integer", str: "a string", dict: "an object", list: "a list"}.get(
            kind if isinstance(kind, type) else object, "a value of another type")
        raise field_error(field, f"expected {name}")
    return value


def _expect_int(value: Any, field: str, minimum: int) -> int:
    expect(value, int, field)
    if value < minimum:
        raise field_error(field, f"must be at least {minimum}")
    return value


def _check_json_values(value: Any, field: str) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise field_error(field, "integer out of the 64-bit range")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise field_error(field, "numbers must be finite")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_json_values(item, f"{field}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_json_values(item, f"{field}[{index}]")


def _check_dbfs(destination: Any, field: str) -> None:
    expect(destination, str, field)
    if not destination.startswith("dbfs:/"):
        raise field_error(field, "must start with 'dbfs:/'")


def _check_string_map(value: Any, field: str) -> None:
    expect(value, dict, field)
    for key, item in value.items():
        expect(item, str, f"{field}.{key}")


def _check_cluster(cluster: Any, field: str) -> None:
    expect(cluster, dict, field)
    # A cluster policy may supply the runtime and the node type, a pool the node type.
    if "policy_id" not in cluster:
        expect(cluster.get("spark_version"), str, f"{field}.spark_version")
    if not {"instance_pool_id", "policy_id"} & cluster.keys():
        expect(cluster.get("node_type_id"), str, f"{field}.node_type_id")
    if "autoscale" in cluster:
        autoscale = expect(cluster["autoscale"], dict, f"{field}.autoscale")
        low = _expect_int(autoscale.get("min_workers"), f"{field}.autoscale.min_workers", 0)
        high = _expect_int(autoscale.get("max_workers"), f"{field}.autoscale.max_workers", 1)
        if low > high:
            raise field_error(f"{field}.autoscale", "min_workers must not exceed max_workers")
    elif "num_workers" in cluster:
        _expect_int(cluster["num_workers"], f"{field}.num_workers", 0)
    else:
        raise field_error(field, "give either num_workers or autoscale")
    for index, script in enumerate(expect(cluster.get("init_scripts", []), list,
                                          f"{field}.init_scripts")):
        where = f"{field}.init_scripts[{index}]"
        expect(script, dict, where)
        if len(script) != 1:
            raise field_error(where, "give exactly one destination kind (e.g. dbfs)")
        if "dbfs" in script:
            _check_dbfs(expect(script["dbfs"], dict, f"{where}.dbfs").get("destination"),
                        f"{where}.dbfs.destination")
    if "cluster_log_conf" in cluster:
        log_conf = expect(cluster["cluster_log_conf"], dict, f"{field}.cluster_log_conf")
        if "dbfs" in log_conf:
            dbfs = expect(log_conf["dbfs"], dict, f"{field}.cluster_log_conf.dbfs")
            _check_dbfs(dbfs.get("destination"), f"{field}.cluster_log_conf.dbfs.destination")
    if "spark_env_vars" in cluster:
        _check_string_map(cluster["spark_env_vars"], f"{field}.spark_env_vars")
    if "spark_conf" in cluster:
        _check_string_map(cluster["spark_conf"], f"{field}.spark_conf")
    if "libraries" in cluster:  # the seed form nests libraries in new_cluster
        _check_libraries(cluster["libraries"], f"{field}.libraries")


def _check_libraries(libraries: Any, field: str) -> None:
    for index, library in enumerate(expect(libraries, list, field)):
        where = f"{field}[{index}]"
        expect(library, dict, where)
        if "pypi" in library:
            pypi = expect(library["pypi"], dict, f"{where}.pypi")
            package = expect(pypi.get("package"), str, f"{where}.pypi.package")
            if not package.strip():
                raise field_error(f"{where}.pypi.package", "must not be empty")


def _check_python_task(task: Any, field: str) -> None:
    expect(task, dict, field)
    expect(task.get("python_file"), str, f"{field}.python_file")
    for index, parameter in enumerate(expect(task.get("parameters", []), list,
                                             f"{field}.parameters")):
        expect(parameter, str, f"{field}.parameters[{index}]")


def _check_dependencies(depends_on: Any, field: str) -> None:
    for index, dependency in enumerate(expect(depends_on, list, field)):
        where = f"{field}[{index}]"
        expect(dependency, dict, where)
        key = expect(dependency.get("task_key"), str, f"{where}.task_key")
        if not key:
            raise field_error(f"{where}.task_key", "must not be empty")


def _check_task(task: Any, field: str) -> None:
    """One entry of `tasks`; how tasks refer to each other is checked by job_graph."""
    expect(task, dict, field)
    key = expect(task.get("task_key"), str, f"{field}.task_key")
    if not key:
        raise field_error(f"{field}.task_key", "must not be empty")
    if "new_cluster" in task:
        _check_cluster(task["new_cluster"], f"{field}.new_cluster")
    for name in ("existing_cluster_id", "job_cluster_key", "environment_key"):
        if name in task:
            expect(task[name], str, f"{field}.{name}")
    if "spark_python_task" in task:
        _check_python_task(task["spark_python_task"], f"{field}.spark_python_task")
    if "libraries" in task:
        _check_libraries(task["libraries"], f"{field}.libraries")
    if "timeout_seconds" in task:
        _expect_int(task["timeout_seconds"], f"{field}.timeout_seconds", 0)
    if "max_retries" in task:
        _expect_int(task["max_retries"], f"{field}.max_retries", -1)
    if "min_retry_interval_millis" in task:
        _expect_int(task["min_retry_interval_millis"], f"{field}.min_retry_interval_millis", 0)
    if "depends_on" in task:
        _check_dependencies(task["depends_on"], f"{field}.depends_on")
    if "run_if" in task and task["run_if"] not in RUN_IF_CONDITIONS:
        raise field_error(f"{field}.run_if", f"must be one of {', '.join(RUN_IF_CONDITIONS)}")


def _check_job_cluster(job_cluster: Any, field: str) -> None:
    expect(job_cluster, dict, field)
    key = expect(job_cluster.get("job_cluster_key"), str, f"{field}.job_cluster_key")
    if not key:
        raise field_error(f"{field}.job_cluster_key", "must not be empty")
    _check_cluster(job_cluster.get("new_cluster"), f"{field}.new_cluster")


def _check_run_as(run_as: Any) -> None:
    expect(run_as, dict, "run_as")
    named = [name for name in RUN_AS_FIELDS if run_as.get(name) is not None]
    if len(named) != 1:
        raise field_error("run_as", f"give exactly one of {', '.join(RUN_AS_FIELDS)}")
    expect(run_as[named[0]], str, f"run_as.{named[0]}")


def _check_queue(queue: Any) -> None:
    expect(queue, dict, "queue")
    if not isinstance(queue.get("enabled"), bool):
        raise field_error("queue.enabled", "required, true or false")


def validate(settings: Any) -> dict[str, Any]:
    """Checks settings (public nesting, legacy or multi-task); returns them unchanged or
    raises InvalidParameter naming the field."""
    expect(settings, dict, "settings")
    _check_json_values(settings, "settings")
    if "name" in settings:
        expect(settings["name"], str, "name")
    if "new_cluster" in settings:
        _check_cluster(settings["new_cluster"], "new_cluster")
    if "existing_cluster_id" in settings:
        expect(settings["existing_cluster_id"], str, "existing_cluster_id")
    if "libraries" in settings:
        _check_libraries(settings["libraries"], "libraries")
    if "timeout_seconds" in settings:
        _expect_int(settings["timeout_seconds"], "timeout_seconds", 0)
    if "max_retries" in settings:
        _expect_int(settings["max_retries"], "max_retries", -1)
    if "max_concurrent_runs" in settings:
        _expect_int(settings["max_concurrent_runs"], "max_concurrent_runs", 0)
    if "spark_python_task" in settings:
        _check_python_task(settings["spark_python_task"], "spark_python_task")
    if "tags" in settings:
        _check_string_map(settings["tags"], "tags")
    if "run_as" in settings:
        _check_run_as(settings["run_as"])
    if "queue" in settings:
        _check_queue(settings["queue"])
    for index, task in enumerate(expect(settings.get("tasks", []), list, "tasks")):
        _check_task(task, f"tasks[{index}]")
    for index, job_cluster in enumerate(expect(settings.get("job_clusters", []), list,
                                               "job_clusters")):
        _check_job_cluster(job_cluster, f"job_clusters[{index}]")
    return settings
