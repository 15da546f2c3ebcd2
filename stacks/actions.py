"""The stack's actions from config: clusters held RUNNING or TERMINATED, and job runs.

    workspace:clusterStates:
      - name: etl-cluster-up             # the resource name
        cluster_name: etl-nightly        # or cluster_id: 0101-120000-etl00002
        state: RUNNING                   # or TERMINATED
        timeout_seconds: 1200            # optional
    workspace:jobRuns:
      - name: nightly-etl-smoke
        job: nightly-etl                 # a job of this stack, or job_id: <an existing job>
        python_params: ["--date", "2024-06-01"]
        trigger: "1"                     # change it to run again
        timeout_seconds: 3600            # optional

A cluster named by `cluster_name` is found with the cluster lookup (a GET at preview too).
`problems` judges both lists; `stacks.config.validate` calls it with the rest of the config,
before the program registers anything (and `python -m stacks.config` checks files offline).
Job runs start after the stack's cluster states are reached. See docs/actions.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
import pydantic

from providers.cluster_state import ClusterState, ClusterStateArgs, ClusterStateModel
from providers.job import Job
from providers.job_run import JobRun, JobRunArgs, JobRunModel
from providers.lifecycle import UNKNOWN, check_failures
from providers.lookups import get_cluster
from stacks.config import (
    NAMESPACE,
    decoded_list,
    field_names,
    item_path,
    name_problem,
    namespace_values,
    suggestion,
)

CLUSTER_STATES = "clusterStates"
JOB_RUNS = "jobRuns"
# Per list: the kind's model, the keys that belong to the stack (the resource name and
# references), and the one-of pair naming the target (stack reference, direct id).
LISTS: dict[str, tuple[type[pydantic.BaseModel], tuple[str, str]]] = {
    CLUSTER_STATES: (ClusterStateModel, ("cluster_name", "cluster_id")),
    JOB_RUNS: (JobRunModel, ("job", "job_id")),
}


def problems(values: Mapping[str, Any], job_names: set[str]) -> list[str]:
    """Every problem of the two lists, one line each, without a call to the workspace."""
    found: list[str] = []
    for key, (model, (reference, direct)) in LISTS.items():
        items, list_problems = decoded_list(values, key)
        found += list_problems
        seen: dict[str, int] = {}
        for index, item in enumerate(items):
            where = f"{NAMESPACE}:{key}[{index}]"
            if problem := name_problem(key, index, item, seen):
                found.append(problem)
            if (reference in item) == (direct in item):
                found.append(f"{where}: give {reference} or {direct} (one of them)")
            elif reference == "job" and "job" in item and item["job"] not in job_names:
                hint = suggestion(str(item["job"]), job_names) or (
                    f" (jobs declared: {', '.join(sorted(job_names)) or 'none'})"
                )
                found.append(f"{where}.job: no job named {item['job']!r} in {NAMESPACE}:jobs{hint}")
            elif reference == "cluster_name" and not isinstance(item.get("cluster_name", ""), str):
                found.append(f"{where}.cluster_name: must be text")
            inputs = {k: v for k, v in item.items() if k not in ("name", reference)}
            inputs.setdefault(direct, UNKNOWN)  # known once the reference is resolved
            for failure in check_failures(model, inputs):
                reason = failure.reason
                if reason == "Extra inputs are not permitted":
                    unknown = failure.property.rsplit(".", 1)[-1]
                    choices = field_names(model, ("name", reference)) - {"deployment_tag"}
                    reason = f"unknown key{suggestion(unknown, choices)}"
                found.append(f"{where}.{item_path(failure.property)}: {reason}")
    return found


def declare_actions(connection: pulumi.Input[dict], jobs: Mapping[str, Job]) -> dict[str, dict]:
    """The stack's ClusterState and JobRun resources (by list, then by name); exports their
    outcome when any are declared."""
    values, _ = namespace_values()  # judged by stacks.config.validate (see `problems`)
    cluster_states: dict[str, ClusterState] = {}
    for item in decoded_list(values, CLUSTER_STATES)[0]:
        cluster_id = item.get("cluster_id")
        if cluster_id is None:
            found_cluster = get_cluster(connection, name=item["cluster_name"])
            cluster_id = found_cluster.apply(lambda cluster: cluster["cluster_id"])
        hold = ClusterStateArgs(
            cluster_id=cluster_id, state=item["state"], timeout_seconds=item.get("timeout_seconds")
        )
        cluster_states[item["name"]] = ClusterState(item["name"], hold, connection=connection)

    after_clusters = pulumi.ResourceOptions(depends_on=list(cluster_states.values()))
    job_runs: dict[str, JobRun] = {}
    for item in decoded_list(values, JOB_RUNS)[0]:
        # The job's id, not its job_id output: the id stays known in a preview that updates
        # the job, so the run does not preview as replaced.
        job_id = jobs[item["job"]].id.apply(int) if "job" in item else item["job_id"]
        run = JobRunArgs(
            job_id=job_id,
            python_params=item.get("python_params"),
            trigger=None if item.get("trigger") is None else str(item["trigger"]),
            timeout_seconds=item.get("timeout_seconds"),
        )
        job_runs[item["name"]] = JobRun(
            item["name"], run, connection=connection, opts=after_clusters
        )

    if cluster_states:
        pulumi.export("cluster_states", {name: c.state for name, c in cluster_states.items()})
    if job_runs:
        pulumi.export(
            "job_runs",
            {
                name: {
                    "run_id": r.run_id,
                    "result_state": r.result_state,
                    "run_page_url": r.run_page_url,
                }
                for name, r in job_runs.items()
            },
        )
    return {CLUSTER_STATES: cluster_states, JOB_RUNS: job_runs}
