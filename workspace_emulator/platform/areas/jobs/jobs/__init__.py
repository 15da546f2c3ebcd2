"""Jobs under /api/2.0, /api/2.1 and /api/2.2 (model.py stores jobs and runs; job_settings
checks fields, job_format stores the canonical form and shows each version's, job_graph the
task rules, job_update, job_submit the body of a one-time run, job_runs outcomes and states
over time, job_permissions the access control rules that every object type's permissions
share)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from workspace_emulator.errors import InvalidParameter, NotFound
from workspace_emulator.platform.area import Area, AreaContext, Mount
from workspace_emulator.platform.areas.compute.clusters.model import Clusters
from workspace_emulator.platform.areas.identity.access_control.model import RuleSets
from workspace_emulator.platform.areas.jobs.jobs import job_files, routes
from workspace_emulator.platform.areas.jobs.jobs.model import TABLES, Jobs
from workspace_emulator.platform.areas.pipelines.pipelines.model import Pipelines
from workspace_emulator.platform.areas.unity_catalog.files.model import VolumeFiles
from workspace_emulator.platform.areas.workspace.dbfs.model import Dbfs
from workspace_emulator.platform.areas.workspace.workspace_objects.model import WorkspaceObjects
from workspace_emulator.platform.fidelity import simulated, stateful

VERSIONS = ("2.0", "2.1", "2.2")


def _file_exists(volumes: VolumeFiles, dbfs: Dbfs, workspace: WorkspaceObjects
                 ) -> Callable[[str], bool | None]:
    """Whether a file is at a path a task's library or init script names: `/Volumes/...`
    (also as `dbfs:/Volumes/...`) in a volume, `dbfs:/...` in DBFS, another absolute path
    in the workspace (a workspace file, with or without `/Workspace`); None for the paths
    the emulator holds no files at (cloud storage URLs)."""

    def exists(path: str) -> bool | None:
        in_volume = path.removeprefix("dbfs:")
        if in_volume.startswith("/Volumes/"):
            try:
                volumes.file(in_volume)
            except (NotFound, InvalidParameter):
                return False
            return True
        if path.startswith("dbfs:/"):
            return dbfs.exists(path)
        if path.startswith("/"):
            try:
                return workspace.get_status(path).get("object_type") == "FILE"
            except (NotFound, InvalidParameter):
                return False
        return None

    return exists


def _cluster_spec(clusters: Clusters) -> Callable[[str], Mapping[str, Any] | None]:
    def spec(cluster_id: str) -> Mapping[str, Any] | None:
        return clusters.get(cluster_id) if clusters.exists(cluster_id) else None

    return spec


def _open(context: AreaContext) -> Jobs:
    settings = context.settings
    clusters, workspace = context.state(Clusters), context.state(WorkspaceObjects)
    checks = job_files.FileChecks(
        _file_exists(context.state(VolumeFiles), context.state(Dbfs), workspace),
        _cluster_spec(clusters))
    return Jobs(context.db, context.directory, clusters,
                settings.transition_seconds, settings.base_url, settings.workspace_id,
                workspace.notebook_problem, context.state(RuleSets).may_run_as, checks,
                context.state(Pipelines).task_problem)


AREA = Area(
    name="jobs",
    open=_open,
    tables=TABLES,
    routers=tuple(Mount(routes.router, f"/api/{version}") for version in VERSIONS),
    route_priority=10,  # the providers' busiest area
    support={
        "POST /jobs/create": stateful("settings validated (task graph, clusters, run_as: "
                                      "a service principal needs its user role); 2.2 "
                                      "adds queue"),
        "GET /jobs/get": stateful("the form each version shows; 2.2 pages arrays by 100"),
        "GET /jobs/list": stateful("newest first; limit/offset/page_token, name, "
                                   "expand_tasks"),
        "POST /jobs/reset": stateful("replaces all settings; run_as as create"),
        "POST /jobs/update": stateful("merges tasks/job_clusters by key; fields_to_remove; "
                                      "a run_as it sets as create"),
        "POST /jobs/delete": stateful("CAN_MANAGE needed"),
        "POST /jobs/run-now": simulated("idempotency_token honoured; '--fail' makes a task "
                                        "fail, and so does a notebook task's missing "
                                        "notebook; a missing library file or init script "
                                        "(volume, DBFS, workspace) INTERNAL_ERROR"),
        "POST /jobs/runs/submit": simulated("a one-time run (run_type SUBMIT_RUN, no job): "
                                            "tasks checked as a job's, run as run-now's; "
                                            "idempotency_token honoured; its own access "
                                            "list"),
        "GET /jobs/runs/get": simulated("PENDING -> RUNNING -> TERMINATED, tasks level by "
                                        "level; job_parameters with defaults and values"),
        "GET /jobs/runs/list": simulated("active_only/completed_only, run_type, newest "
                                         "first, paged"),
        "POST /jobs/runs/cancel": simulated("ends the run and its tasks CANCELED"),
        "POST /jobs/runs/cancel-all": simulated("every active run of a job, or all queued"),
    },
    not_served={"Jobs": ("POST /jobs/runs/delete",
                         "GET /jobs/runs/export", "GET /jobs/runs/get-output",
                         "POST /jobs/runs/repair")},
)
