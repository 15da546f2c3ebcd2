"""Bench program: N workspace objects of mixed kinds behind one WorkspaceAuth.

Config: `bench:count` (N), `bench:applicationIds` and the `workspace:*` connection settings
of the stack program.
Kinds cycle job, job permissions (on the job just before), secret scope, service principal,
so every N holds about N/4 of each; these four kinds need no objects already in the
workspace, so they scale freely.
"""

import dataclasses

import pulumi

from providers import (
    AccessControlArgs,
    Job,
    JobArgs,
    JobPermissions,
    JobPermissionsArgs,
    SecretScope,
    SecretScopeArgs,
    ServicePrincipal,
    ServicePrincipalArgs,
    WorkspaceAuth,
)
from stacks.config import auth_args

bench = pulumi.Config("bench")
count = bench.require_int("count")
# Service principals need applications registered with the identity provider; the bench
# driver registers one per principal.
application_ids = iter(bench.require_object("applicationIds"))
auth = auth_args()
# `bench:rateLimit` overrides the client's calls per second (0: no limit) for comparisons.
rate_limit = bench.get_float("rateLimit")
if rate_limit is not None:
    auth = dataclasses.replace(auth, rate_limit_per_second=rate_limit)
connection = WorkspaceAuth("workspace", auth).connection
stack = pulumi.get_stack()

last_job: Job | None = None
for index in range(count):
    name = f"bench-{index:04d}"
    kind = index % 4
    if kind == 1 and last_job is not None:
        JobPermissions(
            name,
            JobPermissionsArgs(
                job_id=last_job.job_id,
                access_controls=[
                    AccessControlArgs(
                        group_name="data-engineers", permission_level="CAN_MANAGE_RUN"
                    )
                ],
            ),
            connection=connection,
        )
    elif kind == 2:
        scope = f"{pulumi.get_project()}-{stack}-{name}"
        SecretScope(name, SecretScopeArgs(name=scope), connection=connection)
    elif kind == 3:
        ServicePrincipal(
            name,
            ServicePrincipalArgs(application_id=next(application_ids), display_name=name),
            connection=connection,
        )
    else:
        # A multi-task job: five tasks in a chain on one shared job cluster, scheduled.
        tasks = [
            {
                "task_key": f"step_{step}",
                "job_cluster_key": "shared",
                "spark_python_task": {"python_file": f"dbfs:/jobs/bench_{step}.py"},
                "max_retries": 1,
                **({"depends_on": [{"task_key": f"step_{step - 1}"}]} if step else {}),
            }
            for step in range(5)
        ]
        last_job = Job(
            name,
            JobArgs(
                name=name,
                job_clusters=[
                    {
                        "job_cluster_key": "shared",
                        "new_cluster": {
                            "spark_version": "13.3.x-scala2.12",
                            "node_type_id": "Standard_DS3_v2",
                            "num_workers": 1,
                        },
                    }
                ],
                tasks=tasks,
                schedule={"quartz_cron_expression": "0 0 2 * * ?", "timezone_id": "UTC"},
            ),
            connection=connection,
        )
