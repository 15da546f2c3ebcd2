"""The rules that tie a job's tasks together, and the order they run in.

Checked on the settings a job will have after a create, reset or update (so an update that
removes a task others depend on is refused too). Messages follow the service's wording
("Invalid dependency graph, ...", "Job cluster 'x' is not defined in field 'job_clusters'")
and add the field path.

A task's type is the field whose name ends in `_task` (notebook_task, spark_python_task,
...): every task type of the public API is named so, and a type this emulator has never
heard of is accepted the same way.
"""

from __future__ import annotations

from typing import Any

from workspace_emulator.errors import InvalidParameter

TASK_TYPE_SUFFIX = "_task"


def task_type(task: dict[str, Any]) -> str | None:
    return next((name for name in task if name.endswith(TASK_TYPE_SUFFIX)), None)


def dependencies(task: dict[str, Any]) -> list[str]:
    return [dependency["task_key"] for dependency in task.get("depends_on") or []]


def unique_keys(items: list[dict[str, Any]], key: str, field: str) -> dict[str, int]:
    first_index: dict[str, int] = {}
    for index, item in enumerate(items):
        value = item[key]
        if value in first_index:
            raise InvalidParameter(
                f"{key} '{value}' is not unique: {field}[{first_index[value]}] and "
                f"{field}[{index}] both use it; give each entry its own {key}."
            )
        first_index[value] = index
    return first_index


def check_task_types(tasks: list[dict[str, Any]]) -> None:
    """Tasks given in the multi-task form must each say what they run."""
    for index, task in enumerate(tasks):
        if task_type(task) is None:
            raise InvalidParameter(
                f"Task '{task['task_key']}' (tasks[{index}]) has no task type; give one field "
                "whose name ends in '_task', such as notebook_task or spark_python_task."
            )


def _cycle(tasks: list[dict[str, Any]]) -> list[str] | None:
    """One dependency cycle as a path of task keys (first key repeated at the end)."""
    depends = {task["task_key"]: dependencies(task) for task in tasks}
    done: set[str] = set()
    for root in depends:
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            key, next_child = stack.pop()
            if next_child == 0:
                if key in done:
                    continue
                path.append(key)
                on_path.add(key)
            children = depends[key]
            if next_child < len(children):
                stack.append((key, next_child + 1))
                child = children[next_child]
                if child in on_path:
                    return path[path.index(child):] + [child]
                if child not in done:
                    stack.append((child, 0))
            else:
                path.pop()
                on_path.discard(key)
                done.add(key)
    return None


def check(settings: dict[str, Any]) -> None:
    """Task keys and job cluster keys unique, dependencies on tasks of this job and without
    cycles, job_cluster_key naming one of the job's clusters."""
    tasks = settings.get("tasks") or []
    task_keys = unique_keys(tasks, "task_key", "tasks")
    cluster_keys = unique_keys(settings.get("job_clusters") or [], "job_cluster_key",
                                "job_clusters")
    for index, task in enumerate(tasks):
        key = task["task_key"]
        for position, dependency in enumerate(dependencies(task)):
            if dependency == key:
                raise InvalidParameter(
                    f"Invalid dependency graph, task '{key}' can not reference itself "
                    f"(tasks[{index}].depends_on[{position}])."
                )
            if dependency not in task_keys:
                raise InvalidParameter(
                    f"Invalid dependency graph, task '{key}' depends on '{dependency}', which "
                    f"is not a task of this job (tasks[{index}].depends_on[{position}]"
                    ".task_key); add that task or remove the dependency."
                )
        cluster_key = task.get("job_cluster_key")
        if cluster_key is not None and cluster_key not in cluster_keys:
            raise InvalidParameter(
                f"Job cluster '{cluster_key}' is not defined in field 'job_clusters' "
                f"(tasks[{index}].job_cluster_key); define it there or name another one."
            )
    cycle = _cycle(tasks)
    if cycle:
        path = " -> ".join(f"'{key}'" for key in cycle)
        raise InvalidParameter(
            f"Invalid dependency graph, the tasks depend on each other in a cycle: {path}; "
            "remove one of these dependencies."
        )


def levels(tasks: list[dict[str, Any]]) -> dict[str, int]:
    """Each task's depth: 0 without dependencies, else one more than its deepest dependency.
    Tasks of one level run side by side. The graph must have passed `check`."""
    depends = {task["task_key"]: dependencies(task) for task in tasks}
    depth: dict[str, int] = {}

    def level_of(key: str) -> int:
        stack = [key]
        while stack:
            current = stack[-1]
            pending = [d for d in depends[current] if d not in depth]
            if pending:
                stack.extend(pending)
                continue
            stack.pop()
            depth[current] = 1 + max((depth[d] for d in depends[current]), default=-1)
        return depth[key]

    for key in depends:
        level_of(key)
    return depth
