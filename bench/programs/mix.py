"""The bench's mix of workspace objects, declared once for every program that deploys it:
bench/programs/ours (the workspace kinds, against the emulator) and bench/programs/floor_same
(dynamic resources that only echo their inputs).

Kinds cycle job, job permissions (on the job just before), secret scope, service principal,
so every N holds about N/4 of each; these four kinds need no objects already in the
workspace, so they scale freely. A job has five tasks in a chain on one shared job cluster,
and a schedule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

JOB = "Job"
JOB_PERMISSIONS = "JobPermissions"
SECRET_SCOPE = "SecretScope"
SERVICE_PRINCIPAL = "ServicePrincipal"
# In the order they cycle: index i holds KINDS[i % 4].
KINDS = (JOB, JOB_PERMISSIONS, SECRET_SCOPE, SERVICE_PRINCIPAL)
TASKS_PER_JOB = 5

# Makes one resource: build(kind, name, inputs). What it returns for a job must have a
# `job_id` attribute (an Output): the input of the job permissions declared next.
Build = Callable[[str, str, dict[str, Any]], Any]


def kind_at(index: int) -> str:
    return KINDS[index % len(KINDS)]


def name_at(index: int) -> str:
    return f"bench-{index:04d}"


def principals_in(count: int) -> int:
    """How many service principals a mix of `count` holds (each needs an application id)."""
    return sum(1 for index in range(count) if kind_at(index) == SERVICE_PRINCIPAL)


def job_inputs(name: str) -> dict[str, Any]:
    tasks = [
        {
            "task_key": f"step_{step}",
            "job_cluster_key": "shared",
            "spark_python_task": {"python_file": f"dbfs:/jobs/bench_{step}.py"},
            "max_retries": 1,
            **({"depends_on": [{"task_key": f"step_{step - 1}"}]} if step else {}),
        }
        for step in range(TASKS_PER_JOB)
    ]
    return {
        "name": name,
        "job_clusters": [
            {
                "job_cluster_key": "shared",
                "new_cluster": {
                    "spark_version": "13.3.x-scala2.12",
                    "node_type_id": "Standard_DS3_v2",
                    "num_workers": 1,
                },
            }
        ],
        "tasks": tasks,
        "schedule": {"quartz_cron_expression": "0 0 2 * * ?", "timezone_id": "UTC"},
    }


def declare(count: int, scope_prefix: str, application_ids: Iterator[str], build: Build) -> None:
    """Declares the mix of `count` resources through `build`.

    A scope is named `<scope_prefix>-<resource name>` (scope names are workspace-wide);
    each service principal takes the next of `application_ids`.
    """
    last_job: Any = None
    for index in range(count):
        kind, name = kind_at(index), name_at(index)
        if kind == JOB:
            last_job = build(kind, name, job_inputs(name))
        elif kind == JOB_PERMISSIONS:
            access = [{"group_name": "data-engineers", "permission_level": "CAN_MANAGE_RUN"}]
            build(kind, name, {"job_id": last_job.job_id, "access_controls": access})
        elif kind == SECRET_SCOPE:
            build(kind, name, {"name": f"{scope_prefix}-{name}"})
        else:
            inputs = {"application_id": next(application_ids), "display_name": name}
            build(kind, name, inputs)
