"""Job settings: the two wire forms of docs/api.md#wire-forms, defaults and validation.

Settings are stored in the public form. The seed form keeps `timeout_seconds`,
`max_retries` and `spark_python_task` inside `new_cluster`, and `spark_env_vars` inside
`new_cluster.cluster_log_conf`; the public form has the first three at job level and
`spark_env_vars` directly in `new_cluster`.
"""

from __future__ import annotations

import math
from typing import Any

from emulator.errors import InvalidParameter

SEED_FORM = "seed"
PUBLIC_FORM = "public"
SEED_CLUSTER_FIELDS = ("timeout_seconds", "max_retries", "spark_python_task")
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
DEFAULT_JOB_NAME = "Untitled"


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


def with_server_defaults(settings: dict[str, Any]) -> dict[str, Any]:
    """Fields the service fills in when a client leaves them out."""
    filled = dict(settings)
    filled.setdefault("name", DEFAULT_JOB_NAME)
    filled.setdefault("max_concurrent_runs", 1)
    filled.setdefault("email_notifications", {})
    filled.setdefault("format", "MULTI_TASK" if "tasks" in filled else "SINGLE_TASK")
    return filled


# validation (of the public form)

def _fail(field: str, problem: str) -> InvalidParameter:
    return InvalidParameter(f"Invalid value for '{field}': {problem}")


def _expect(value: Any, kind: type | tuple[type, ...], field: str) -> Any:
    if isinstance(value, bool) and kind is int:
        raise _fail(field, "expected an integer")
    if not isinstance(value, kind):
        name = {int: "an integer", str: "a string", dict: "an object", list: "a list"}.get(
            kind if isinstance(kind, type) else object, "a value of another type")
        raise _fail(field, f"expected {name}")
    return value


def _expect_int(value: Any, field: str, minimum: int) -> int:
    _expect(value, int, field)
    if value < minimum:
        raise _fail(field, f"must be at least {minimum}")
    return value


def _check_json_values(value: Any, field: str) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise _fail(field, "integer out of the 64-bit range")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise _fail(field, "numbers must be finite")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_json_values(item, f"{field}.{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _check_json_values(item, f"{field}[{index}]")


def _check_dbfs(destination: Any, field: str) -> None:
    _expect(destination, str, field)
    if not destination.startswith("dbfs:/"):
        raise _fail(field, "must start with 'dbfs:/'")


def _check_string_map(value: Any, field: str) -> None:
    _expect(value, dict, field)
    for key, item in value.items():
        _expect(item, str, f"{field}.{key}")


def _check_cluster(cluster: Any, field: str) -> None:
    _expect(cluster, dict, field)
    _expect(cluster.get("spark_version"), str, f"{field}.spark_version")
    if "instance_pool_id" not in cluster:
        _expect(cluster.get("node_type_id"), str, f"{field}.node_type_id")
    if "autoscale" in cluster:
        autoscale = _expect(cluster["autoscale"], dict, f"{field}.autoscale")
        low = _expect_int(autoscale.get("min_workers"), f"{field}.autoscale.min_workers", 0)
        high = _expect_int(autoscale.get("max_workers"), f"{field}.autoscale.max_workers", 1)
        if low > high:
            raise _fail(f"{field}.autoscale", "min_workers must not exceed max_workers")
    elif "num_workers" in cluster:
        _expect_int(cluster["num_workers"], f"{field}.num_workers", 0)
    else:
        raise _fail(field, "give either num_workers or autoscale")
    for index, script in enumerate(_expect(cluster.get("init_scripts", []), list,
                                           f"{field}.init_scripts")):
        where = f"{field}.init_scripts[{index}]"
        _expect(script, dict, where)
        if len(script) != 1:
            raise _fail(where, "give exactly one destination kind (e.g. dbfs)")
        if "dbfs" in script:
            _check_dbfs(_expect(script["dbfs"], dict, f"{where}.dbfs").get("destination"),
                        f"{where}.dbfs.destination")
    if "cluster_log_conf" in cluster:
        log_conf = _expect(cluster["cluster_log_conf"], dict, f"{field}.cluster_log_conf")
        if "dbfs" in log_conf:
            dbfs = _expect(log_conf["dbfs"], dict, f"{field}.cluster_log_conf.dbfs")
            _check_dbfs(dbfs.get("destination"), f"{field}.cluster_log_conf.dbfs.destination")
    if "spark_env_vars" in cluster:
        _check_string_map(cluster["spark_env_vars"], f"{field}.spark_env_vars")
    if "spark_conf" in cluster:
        _check_string_map(cluster["spark_conf"], f"{field}.spark_conf")
    if "libraries" in cluster:  # the seed form nests libraries in new_cluster
        _check_libraries(cluster["libraries"], f"{field}.libraries")


def _check_libraries(libraries: Any, field: str) -> None:
    for index, library in enumerate(_expect(libraries, list, field)):
        where = f"{field}[{index}]"
        _expect(library, dict, where)
        if "pypi" in library:
            pypi = _expect(library["pypi"], dict, f"{where}.pypi")
            package = _expect(pypi.get("package"), str, f"{where}.pypi.package")
            if not package.strip():
                raise _fail(f"{where}.pypi.package", "must not be empty")


def _check_python_task(task: Any, field: str) -> None:
    _expect(task, dict, field)
    _expect(task.get("python_file"), str, f"{field}.python_file")
    for index, parameter in enumerate(_expect(task.get("parameters", []), list,
                                              f"{field}.parameters")):
        _expect(parameter, str, f"{field}.parameters[{index}]")


def validate(settings: Any) -> dict[str, Any]:
    """Checks public-form settings; returns them unchanged or raises InvalidParameter."""
    _expect(settings, dict, "settings")
    _check_json_values(settings, "settings")
    if "name" in settings:
        _expect(settings["name"], str, "name")
    if "new_cluster" in settings:
        _check_cluster(settings["new_cluster"], "new_cluster")
    if "existing_cluster_id" in settings:
        _expect(settings["existing_cluster_id"], str, "existing_cluster_id")
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
    if "tasks" in settings:
        keys = set()
        for index, task in enumerate(_expect(settings["tasks"], list, "tasks")):
            where = f"tasks[{index}]"
            _expect(task, dict, where)
            key = _expect(task.get("task_key"), str, f"{where}.task_key")
            if key in keys:
                raise _fail(f"{where}.task_key", f"duplicate task_key '{key}'")
            keys.add(key)
            if "new_cluster" in task:
                _check_cluster(task["new_cluster"], f"{where}.new_cluster")
            if "spark_python_task" in task:
                _check_python_task(task["spark_python_task"], f"{where}.spark_python_task")
            if "libraries" in task:
                _check_libraries(task["libraries"], f"{where}.libraries")
    return settings


def normalise(settings: Any) -> tuple[dict[str, Any], str]:
    """(public-form settings with server defaults, the form the client used)."""
    _expect(settings, dict, "settings")
    form = detect_form(settings)
    public = validate(to_public_form(settings))
    return with_server_defaults(public), form
