"""Jobs and their runs, with access control, kept in SQLite.

The rules live beside this module: job_settings (each field), job_format (canonical storage,
legacy shapes and defaults per API version), job_graph (how tasks refer to each other),
job_update (jobs/update), job_runs (run outcomes and states over time), job_permissions.
What needs the rest of the workspace is checked here: an `existing_cluster_id` must name one
of its clusters, a `run_as` principal one of its users, groups or active service principals,
and a `run_as` service principal one the caller may run as (its user role, from the
access_control area's rule sets).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any

from workspace_emulator import clock
from workspace_emulator.errors import InvalidParameter, NotFound, PermissionDenied
from workspace_emulator.platform import paging
from workspace_emulator.platform.areas.compute.clusters.model import Clusters
from workspace_emulator.platform.areas.jobs.jobs import (
    job_files,
    job_format,
    job_graph,
    job_permissions,
    job_runs,
    job_submit,
    job_update,
)
from workspace_emulator.platform.areas.jobs.jobs.job_format import MULTI_TASK, StoredSettings
from workspace_emulator.platform.areas.jobs.jobs.job_permissions import RANK, AclEntry
from workspace_emulator.platform.directory import Caller, Directory
from workspace_emulator.platform.rendered import RenderedView
from workspace_emulator.storage import Database, ReservedIds, from_json, to_json

JOB_ID_START = 1_000_000_000_001
JOB_ID_BLOCK = 64  # job ids reserved per write of their counter
RUN_ID_START = 2_000_000_000_001
NO_JOB = 0  # the runs table's job_id of a one-time run (runs/submit), which has no job
MAX_IDEMPOTENCY_TOKEN = 64
DEFAULT_PAGE, MAX_PAGE = 20, 100
DEFAULT_RUNS_PAGE, MAX_RUNS_PAGE = 20, 25
# Jobs 2.2 returns at most this many entries of each array of one job or run per response.
ARRAY_PAGE = 100
PAGED_JOB_ARRAYS = ("tasks", "job_clusters", "environments", "parameters")
PAGED_RUN_ARRAYS = ("tasks",)
ARRAY_PAGING_VERSION = "2.2"
JOBS_PAGE_TOKEN, ARRAYS_PAGE_TOKEN, RUNS_PAGE_TOKEN = "offset", "arrays", "runs"
RUN_AS_PRINCIPALS = {"user_name": ("user", "UserName"),
                     "service_principal_name": ("service_principal", "ServicePrincipalName"),
                     "group_name": ("group", "GroupName")}
LIST_PARAMETERS = ("python_params", "jar_params", "spark_submit_params", "dbt_commands")
MAP_PARAMETERS = ("notebook_params", "python_named_params", "sql_params", "job_parameters")


def _check_run_parameters(parameters: dict[str, Any]) -> None:
    for name in LIST_PARAMETERS:
        value = parameters.get(name)
        if value is not None and not (
                isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise InvalidParameter(f"{name} must be a list of strings")
    for name in MAP_PARAMETERS:
        value = parameters.get(name)
        if value is not None and not (
                isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
            raise InvalidParameter(f"{name} must be an object of string values")


def _page_bounds(limit: int | None, offset: int | None, page_token: str | None, kind: str,
                 default: int, maximum: int, zero_means_maximum: bool = False
                 ) -> tuple[int, int]:
    if limit is None or (limit == 0 and not zero_means_maximum):
        limit = default
    elif limit == 0:
        limit = maximum
    if not 1 <= limit <= maximum:
        raise InvalidParameter(f"limit must be between 1 and {maximum}, got {limit}")
    if page_token:
        offset = paging.decode_token(kind, page_token)
    offset = offset or 0
    if offset < 0:
        raise InvalidParameter(f"offset must not be negative, got {offset}")
    return limit, offset


def _paging_fields(has_more: bool, limit: int, offset: int, kind: str) -> dict[str, Any]:
    fields: dict[str, Any] = {"has_more": has_more}
    if has_more:
        fields["next_page_token"] = paging.encode_token(kind, offset + limit)
    if offset > 0:
        fields["prev_page_token"] = paging.encode_token(kind, max(0, offset - limit))
    return fields


LIST_VIEWS_KEPT = 2048
PAGES_KEPT = 256


TABLES = """
CREATE TABLE IF NOT EXISTS jobs (job_id INTEGER PRIMARY KEY, name_lower TEXT NOT NULL,
    doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS jobs_by_name ON jobs (name_lower);
CREATE TABLE IF NOT EXISTS runs (run_id INTEGER PRIMARY KEY, job_id INTEGER NOT NULL,
    doc TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS runs_by_job ON runs (job_id);
CREATE TABLE IF NOT EXISTS run_idempotency (token TEXT PRIMARY KEY, run_id INTEGER NOT NULL);
"""


class Jobs:
    def __init__(
        self, db: Database, directory: Directory, clusters: Clusters,
        transition_seconds: float, base_url: str, workspace_id: int,
        notebook_problem: Callable[[str], str | None] | None = None,
        may_run_as: Callable[[str, Caller], bool] | None = None,
        file_checks: job_files.FileChecks | None = None,
        pipeline_problem: Callable[[str], str | None] | None = None,
    ) -> None:
        self._db = db
        # Why a pipeline task's update of the pipeline of an id fails (areas/pipelines: no
        # such pipeline, a source it loads missing); None: every one succeeds.
        self._pipeline_problem = pipeline_problem
        # Whether the caller may set a job's run_as to the service principal of an
        # application id (areas/access_control); None: anyone may.
        self._may_run_as = may_run_as
        # Why a notebook task cannot run the notebook at a path (None: it can), from the
        # workspace's file tree (areas/workspace_objects); None: every notebook is there.
        self._notebook_problem = notebook_problem
        # Whether the files a task's cluster and libraries name are there (job_files.py);
        # None: every one is.
        self._file_checks = file_checks
        self._directory = directory
        self._clusters = clusters
        self._transition_ms = int(transition_seconds * 1000)
        self._base_url = base_url
        self._workspace_id = workspace_id
        # A listed job's view, by its stored text: decoding and rendering each job of a page
        # was most of a list's own work. Keyed by the text, an entry can never be stale.
        self._list_views: dict[tuple[str, str, bool], RenderedView] = {}
        # A whole page as last listed, kept while no job changes: a deployment lists the
        # same page (a job looked up by name) far more often than it writes a job.
        self._job_changes = db.changes_to("jobs")
        self._job_ids = ReservedIds(db, "job_id", JOB_ID_START, JOB_ID_BLOCK)
        self._pages_at = -1
        self._pages: dict[tuple[Any, ...], RenderedView] = {}

    # storage

    def _load(self, conn: sqlite3.Connection, job_id: int) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM jobs WHERE job_id = ?", (job_id,)).fetchone()
        if row is None:
            raise NotFound(f"Job {job_id} does not exist.")
        return from_json(row["doc"])

    def _save(self, conn: sqlite3.Connection, doc: dict[str, Any]) -> None:
        conn.execute(
            "INSERT INTO jobs (job_id, name_lower, doc) VALUES (?, ?, ?) ON CONFLICT(job_id)"
            " DO UPDATE SET name_lower = excluded.name_lower, doc = excluded.doc",
            (doc["job_id"], doc["settings"]["name"].lower(), to_json(doc)),
        )

    @staticmethod
    def _with_settings(doc: dict[str, Any], stored: StoredSettings) -> dict[str, Any]:
        doc = {k: v for k, v in doc.items() if k not in ("settings_form", "legacy_layout")}
        doc.update(settings=stored.settings, format=stored.format)
        if stored.layout is not None:
            doc["legacy_layout"] = stored.layout.to_doc()
        return doc

    def _authorised(
        self, conn: sqlite3.Connection, job_id: int, caller: Caller, needed: str
    ) -> dict[str, Any]:
        doc = self._load(conn, job_id)
        if job_permissions.effective_rank(self._acl(doc), caller) < RANK[needed]:
            raise PermissionDenied(
                f"{caller.application_id} does not have {needed} permission on job {job_id}."
            )
        return doc

    @staticmethod
    def _acl(doc: dict[str, Any]) -> list[AclEntry]:
        return [AclEntry.from_doc(entry) for entry in doc["acl"]]

    def _may_view(self, job_doc: dict[str, Any] | None, caller: Caller) -> bool:
        # Runs of a deleted job stay readable, as they were before the job went.
        return job_doc is None or job_permissions.effective_rank(
            self._acl(job_doc), caller) >= RANK["CAN_VIEW"]

    # what needs the rest of the workspace

    def _checked(self, stored: StoredSettings, caller: Caller,
                 run_as_set: bool = True) -> StoredSettings:
        """The settings, judged; `run_as_set`: the request sets run_as (an update that
        leaves it as it is needs no role on its principal)."""
        settings = stored.settings
        job_graph.check(settings)
        for task in settings.get("tasks") or []:
            cluster_id = task.get("existing_cluster_id")
            if cluster_id is not None and not self._clusters.exists(cluster_id):
                raise InvalidParameter(
                    f"Cluster {cluster_id} does not exist (existing_cluster_id of task "
                    f"'{task['task_key']}'); name a cluster of this workspace."
                )
        if "run_as" in settings:
            self._check_run_as(settings["run_as"])
            if run_as_set:
                self._check_may_run_as(settings["run_as"], caller)
        return stored

    def _check_may_run_as(self, run_as: dict[str, Any], caller: Caller) -> None:
        name = run_as.get("service_principal_name")
        if name is None or self._may_run_as is None or self._may_run_as(name, caller):
            return
        raise PermissionDenied(
            f"{caller.application_id} cannot set run_as.service_principal_name to {name}: "
            "that needs the service principal user role (roles/servicePrincipal.user) on "
            f"service principal {name}, which {caller.application_id} does not hold; "
            "grant it in the principal's access-control rule set.")

    def _check_run_as(self, run_as: dict[str, Any]) -> None:
        field = next(name for name in RUN_AS_PRINCIPALS if run_as.get(name) is not None)
        kind, label = RUN_AS_PRINCIPALS[field]
        name = run_as[field]
        if kind == "service_principal":
            principal = self._directory.find_service_principal(name)
            known = principal is not None and principal.application_id == name \
                and principal.active
        else:
            known = self._directory.principal_exists(kind, name)
        if not known:
            raise InvalidParameter(
                f"Principal: {label}({name}) does not exist; run_as.{field} must name "
                f"{'an active' if kind == 'service_principal' else 'a'} "
                f"{kind.replace('_', ' ')} of this workspace."
            )

    # views

    @staticmethod
    def _run_as_user_name(doc: dict[str, Any], settings: dict[str, Any]) -> str:
        run_as = settings.get("run_as") or {}
        return next((run_as[name] for name in RUN_AS_PRINCIPALS if run_as.get(name)),
                    doc["creator_user_name"])

    def _render(self, doc: dict[str, Any], version: str, expand_tasks: bool = True,
                array_page: int = 0) -> dict[str, Any]:
        stored = job_format.upgraded(doc)
        settings = job_format.render(stored, version)
        shown: dict[str, Any] = {
            "job_id": doc["job_id"],
            "creator_user_name": doc["creator_user_name"],
            "run_as_user_name": self._run_as_user_name(doc, stored.settings),
            "created_time": doc["created_time"],
        }
        if not expand_tasks:
            for name in job_format.KEYED_ARRAYS:
                settings.pop(name, None)
        elif version == ARRAY_PAGING_VERSION:
            settings, more = paging.page_of_arrays(settings, PAGED_JOB_ARRAYS, array_page,
                                                   ARRAY_PAGE)
            if more:
                shown["next_page_token"] = paging.encode_token(ARRAYS_PAGE_TOKEN,
                                                               array_page + 1)
        shown["settings"] = settings
        return shown

    def _run_page_url(self, job_id: int | None) -> Callable[[int], str]:
        if job_id is None:
            return lambda run_id: f"{self._base_url}/?o={self._workspace_id}#run/{run_id}"
        return lambda run_id: (f"{self._base_url}/?o={self._workspace_id}#job/{job_id}"
                               f"/run/{run_id}")

    # jobs

    def create(self, settings: Any, access_control_list: Any, caller: Caller,
               version: str) -> int:
        stored = self._checked(job_format.from_request(settings, version), caller)
        owner = AclEntry("service_principal", caller.application_id, job_permissions.OWNER)
        acl = [owner]
        if access_control_list is not None:
            requested = job_permissions.parse_request(access_control_list, self._directory)
            acl = job_permissions.patched(acl, requested)
        with self._db.write() as conn:
            job_id = self._job_ids.take(conn)
            self._save(conn, self._with_settings({
                "job_id": job_id, "created_time": clock.now_ms(),
                "creator_user_name": caller.application_id,
                "acl": [entry.to_doc() for entry in acl],
            }, stored))
        self._job_ids.taken(job_id)
        return job_id

    def get(self, job_id: int, caller: Caller, version: str, page_token: str | None = None
            ) -> dict[str, Any]:
        array_page = 0
        if page_token and version == ARRAY_PAGING_VERSION:
            array_page = paging.decode_token(ARRAYS_PAGE_TOKEN, page_token)
        with self._db.read() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_VIEW")
        return self._render(doc, version, array_page=array_page)

    def page(
        self, caller: Caller, version: str, limit: int | None = None,
        offset: int | None = None, name: str | None = None, page_token: str | None = None,
        expand_tasks: bool = False,
    ) -> RenderedView:
        """A page of the jobs the caller may view, newest first (shared: not to be changed)."""
        limit, offset = _page_bounds(limit, offset, page_token, JOBS_PAGE_TOKEN, DEFAULT_PAGE,
                                     MAX_PAGE)
        name_lower = name.lower() if name else None
        # Admins see every job; what anyone else sees depends on who they are.
        key = (None if caller.is_admin else caller, version, limit, offset, name_lower,
               expand_tasks)
        changes = self._job_changes.count
        if changes != self._pages_at or len(self._pages) >= PAGES_KEPT:
            self._pages.clear()
            self._pages_at = changes
        page = self._pages.get(key)
        if page is None:
            texts = self._listed_texts(caller, limit, offset, name_lower)
            fields = _paging_fields(len(texts) > limit, limit, offset, JOBS_PAGE_TOKEN)
            page = self._pages[key] = RenderedView({
                "jobs": [self._list_view(text, version, expand_tasks) for text in texts[:limit]],
                **fields,
            })
        return page

    def _listed_texts(self, caller: Caller, limit: int, offset: int,
                      name_lower: str | None) -> list[str]:
        """The stored texts of up to `limit + 1` jobs from `offset` (one more tells whether
        there are more)."""
        where, params = ("WHERE name_lower = ?", [name_lower]) if name_lower else ("", [])
        with self._db.read() as conn:
            if caller.is_admin:
                rows = conn.execute(
                    f"SELECT doc FROM jobs {where} ORDER BY job_id DESC LIMIT ? OFFSET ?",
                    [*params, limit + 1, offset],
                ).fetchall()
                return [row["doc"] for row in rows]
            rows = conn.execute(f"SELECT doc FROM jobs {where} ORDER BY job_id DESC",
                                params).fetchall()
        visible = [row["doc"] for row in rows if self._may_view(from_json(row["doc"]), caller)]
        return visible[offset:offset + limit + 1]

    def _list_view(self, text: str, version: str, expand_tasks: bool) -> RenderedView:
        """A job as a list shows it, with its JSON (shared: the caller must not change it)."""
        key = (text, version, expand_tasks)
        shown = self._list_views.get(key)
        if shown is None:
            view = self._render(from_json(text), version, expand_tasks=expand_tasks)
            if expand_tasks and version == ARRAY_PAGING_VERSION:
                view["has_more"] = view.pop("next_page_token", None) is not None
            if len(self._list_views) >= LIST_VIEWS_KEPT:
                self._list_views.clear()
            shown = self._list_views[key] = RenderedView(view)
        return shown

    def reset(self, job_id: int, new_settings: Any, caller: Caller, version: str) -> None:
        stored = self._checked(job_format.from_request(new_settings, version), caller)
        with self._db.write() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_MANAGE")
            self._save(conn, self._with_settings(doc, stored))

    def update(self, job_id: int, new_settings: Any, fields_to_remove: Any, caller: Caller,
               version: str) -> None:
        with self._db.write() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_MANAGE")
            stored = job_update.updated(job_format.upgraded(doc), new_settings,
                                        fields_to_remove, version)
            run_as_set = isinstance(new_settings, dict) and "run_as" in new_settings
            self._save(conn, self._with_settings(
                doc, self._checked(stored, caller, run_as_set)))

    def delete(self, job_id: int, caller: Caller) -> None:
        with self._db.write() as conn:
            self._authorised(conn, job_id, caller, "CAN_MANAGE")
            conn.execute("DELETE FROM jobs WHERE job_id = ?", (job_id,))

    # permissions

    def permissions(self, job_id: int, caller: Caller) -> dict[str, Any]:
        with self._db.read() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_VIEW")
        return job_permissions.render(job_id, self._acl(doc), self._directory)

    def change_permissions(
        self, job_id: int, access_control_list: Any, caller: Caller, replace_all: bool
    ) -> dict[str, Any]:
        requested = job_permissions.parse_request(access_control_list, self._directory)
        with self._db.write() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_MANAGE")
            combine = job_permissions.replaced if replace_all else job_permissions.patched
            acl = combine(self._acl(doc), requested)
            doc["acl"] = [entry.to_doc() for entry in acl]
            self._save(conn, doc)
        return job_permissions.render(job_id, acl, self._directory)

    # runs

    @staticmethod
    def _check_idempotency_token(token: Any) -> None:
        if token is not None and not (isinstance(token, str)
                                      and 0 < len(token) <= MAX_IDEMPOTENCY_TOKEN):
            raise InvalidParameter(
                f"idempotency_token must be 1 to {MAX_IDEMPOTENCY_TOKEN} characters long")

    def _run_of_token(self, conn: sqlite3.Connection, token: str | None
                      ) -> dict[str, Any] | None:
        """The run an idempotency token started already, if any."""
        if token is None:
            return None
        row = conn.execute("SELECT run_id FROM run_idempotency WHERE token = ?",
                           (token,)).fetchone()
        return None if row is None else self._load_run(conn, row["run_id"])

    def run_now(
        self, job_id: int, parameters: dict[str, Any], idempotency_token: str | None,
        caller: Caller,
    ) -> dict[str, int]:
        self._check_idempotency_token(idempotency_token)
        _check_run_parameters(parameters)
        given = {kind: parameters[kind] for kind in job_runs.RUN_PARAMETER_KINDS
                 if parameters.get(kind) is not None}
        with self._db.write() as conn:
            doc = self._authorised(conn, job_id, caller, "CAN_MANAGE_RUN")
            earlier = self._run_of_token(conn, idempotency_token)
            if earlier is not None:
                return {"run_id": earlier["run_id"], "number_in_job": earlier["number_in_job"]}
            run_id = self._db.next_value(conn, "run_id", RUN_ID_START)
            number = self._db.next_value(conn, f"runs_of_job:{job_id}", 1)
            stored = job_format.upgraded(doc)
            run = {
                "run_id": run_id, "job_id": job_id, "number_in_job": number,
                "run_name": stored.settings["name"], "creator_user_name": caller.application_id,
                "start_time": clock.now_ms(), "transition_ms": self._transition_ms,
                "format": stored.format,
                "plan": job_runs.plan(stored.settings, given,
                                      lambda: self._db.next_value(conn, "run_id", RUN_ID_START),
                                      self._notebook_problem,
                                      self._run_as_user_name(doc, stored.settings),
                                      self._file_checks, self._pipeline_problem),
                "overriding_parameters": given,
                "job_parameters": job_runs.job_parameters(stored.settings, given),
            }
            self._insert_run(conn, run, job_id, idempotency_token)
        return {"run_id": run_id, "number_in_job": number}

    @staticmethod
    def _insert_run(conn: sqlite3.Connection, run: dict[str, Any], job_id: int,
                    idempotency_token: str | None) -> None:
        conn.execute("INSERT INTO runs (run_id, job_id, doc) VALUES (?, ?, ?)",
                     (run["run_id"], job_id, to_json(run)))
        if idempotency_token is not None:
            conn.execute("INSERT INTO run_idempotency (token, run_id) VALUES (?, ?)",
                         (idempotency_token, run["run_id"]))

    def submit(self, body: dict[str, Any], caller: Caller) -> dict[str, int]:
        """A one-time run (runs/submit): no job; its tasks planned as a job's. The caller
        owns it; `access_control_list` gives others access to it."""
        token = body.get("idempotency_token")
        self._check_idempotency_token(token)
        run_name, settings = job_submit.settings_of(body)
        self._checked(StoredSettings(settings, MULTI_TASK), caller)
        acl = [AclEntry("service_principal", caller.application_id, job_permissions.OWNER)]
        if body.get("access_control_list") is not None:
            acl = job_permissions.patched(acl, job_permissions.parse_request(
                body["access_control_list"], self._directory))
        run_as = self._run_as_user_name({"creator_user_name": caller.application_id},
                                        settings)
        with self._db.write() as conn:
            earlier = self._run_of_token(conn, token)
            if earlier is not None:
                return {"run_id": earlier["run_id"]}
            run_id = self._db.next_value(conn, "run_id", RUN_ID_START)
            run = {
                "run_id": run_id, "job_id": None, "number_in_job": run_id,
                "run_type": job_runs.SUBMIT_RUN, "run_name": run_name,
                "creator_user_name": caller.application_id,
                "start_time": clock.now_ms(), "transition_ms": self._transition_ms,
                "format": MULTI_TASK,
                "plan": job_runs.plan(settings, {},
                                      lambda: self._db.next_value(conn, "run_id", RUN_ID_START),
                                      self._notebook_problem, run_as, self._file_checks,
                                      self._pipeline_problem),
                "acl": [entry.to_doc() for entry in acl],
                **{name: settings[name] for name in job_runs.SHOWN_RUN_SETTINGS
                   if name in settings},
            }
            self._insert_run(conn, run, NO_JOB, token)
        return {"run_id": run_id}

    @staticmethod
    def _load_run(conn: sqlite3.Connection, run_id: int) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise NotFound(f"Run {run_id} does not exist.")
        return from_json(row["doc"])

    def _job_of_run(self, conn: sqlite3.Connection, run: dict[str, Any]
                    ) -> dict[str, Any] | None:
        if run.get("job_id") is None:
            return None
        row = conn.execute("SELECT doc FROM jobs WHERE job_id = ?", (run["job_id"],)).fetchone()
        return None if row is None else from_json(row["doc"])

    def _run_rank(self, conn: sqlite3.Connection, run: dict[str, Any], caller: Caller) -> int:
        """The caller's permission rank on a run: a one-time run's own access list, else its
        job's (a run of a deleted job stays viewable, as it was before the job went)."""
        if "acl" in run:
            return job_permissions.effective_rank(self._acl(run), caller)
        job = self._job_of_run(conn, run)
        return RANK["CAN_MANAGE_RUN"] if job is None else \
            job_permissions.effective_rank(self._acl(job), caller)

    def _run_view(self, run: dict[str, Any], now_ms: int, version: str, with_tasks: bool,
                  array_page: int = 0) -> dict[str, Any]:
        shown = job_runs.view(run, now_ms, self._run_page_url(run.get("job_id")), with_tasks)
        if with_tasks and version == ARRAY_PAGING_VERSION:
            shown, more = paging.page_of_arrays(shown, PAGED_RUN_ARRAYS, array_page,
                                                ARRAY_PAGE)
            if more:
                shown["next_page_token"] = paging.encode_token(ARRAYS_PAGE_TOKEN,
                                                               array_page + 1)
        return shown

    def get_run(self, run_id: int, caller: Caller, version: str,
                page_token: str | None = None) -> dict[str, Any]:
        array_page = 0
        if page_token and version == ARRAY_PAGING_VERSION:
            array_page = paging.decode_token(ARRAYS_PAGE_TOKEN, page_token)
        with self._db.read() as conn:
            run = self._load_run(conn, run_id)
            rank = self._run_rank(conn, run, caller)
        if rank < RANK["CAN_VIEW"]:
            raise PermissionDenied(
                f"{caller.application_id} does not have CAN_VIEW permission on run {run_id}.")
        return self._run_view(run, clock.now_ms(), version, True, array_page)

    def list_runs(
        self, caller: Caller, version: str, job_id: int | None = None,
        active_only: bool = False, completed_only: bool = False, limit: int | None = None,
        offset: int | None = None, page_token: str | None = None, expand_tasks: bool = False,
        start_time_from: int | None = None, start_time_to: int | None = None,
        run_type: str | None = None,
    ) -> dict[str, Any]:
        """Newest first (by start time); only runs of jobs the caller may view."""
        if active_only and completed_only:
            raise InvalidParameter("active_only and completed_only cannot both be true")
        if run_type is not None and run_type not in job_runs.RUN_TYPES:
            raise InvalidParameter(f"run_type must be one of {', '.join(job_runs.RUN_TYPES)}, "
                                   f"got {run_type}")
        limit, offset = _page_bounds(limit, offset, page_token, RUNS_PAGE_TOKEN,
                                     DEFAULT_RUNS_PAGE, MAX_RUNS_PAGE, zero_means_maximum=True)
        with self._db.read() as conn:
            if job_id is not None:
                self._authorised(conn, job_id, caller, "CAN_VIEW")
                rows = conn.execute("SELECT doc FROM runs WHERE job_id = ?",
                                    (job_id,)).fetchall()
                runs = [from_json(row["doc"]) for row in rows]
            else:
                visible: dict[int, bool] = {}
                runs = []
                for row in conn.execute("SELECT doc FROM runs").fetchall():
                    run = from_json(row["doc"])
                    if run.get("job_id") is None:  # a one-time run has its own access list
                        if self._run_rank(conn, run, caller) >= RANK["CAN_VIEW"]:
                            runs.append(run)
                        continue
                    if run["job_id"] not in visible:
                        visible[run["job_id"]] = self._may_view(self._job_of_run(conn, run),
                                                                caller)
                    if visible[run["job_id"]]:
                        runs.append(run)
        now = clock.now_ms()
        runs = [
            run for run in runs
            if (not active_only or job_runs.is_active(run, now))
            and (not completed_only or not job_runs.is_active(run, now))
            and (start_time_from is None or run["start_time"] >= start_time_from)
            and (start_time_to is None or run["start_time"] <= start_time_to)
            and run_type in (None, run.get("run_type", job_runs.JOB_RUN))
        ]
        runs.sort(key=lambda run: (run["start_time"], run["run_id"]), reverse=True)
        fields = _paging_fields(len(runs) > offset + limit, limit, offset, RUNS_PAGE_TOKEN)
        shown = []
        for run in runs[offset:offset + limit]:
            view = self._run_view(run, now, version, expand_tasks)
            if expand_tasks and version == ARRAY_PAGING_VERSION:
                view["has_more"] = view.pop("next_page_token", None) is not None
            shown.append(view)
        return {"runs": shown, **fields}

    def _cancel(self, conn: sqlite3.Connection, run: dict[str, Any], now_ms: int) -> None:
        if job_runs.is_active(run, now_ms):
            run["canceled_at"] = now_ms
            conn.execute("UPDATE runs SET doc = ? WHERE run_id = ?",
                         (to_json(run), run["run_id"]))

    def cancel_run(self, run_id: int, caller: Caller) -> None:
        """Ends an active run as CANCELED; a run that has ended is left as it is."""
        with self._db.write() as conn:
            run = self._load_run(conn, run_id)
            if "acl" in run:
                if self._run_rank(conn, run, caller) < RANK["CAN_MANAGE_RUN"]:
                    raise PermissionDenied(f"{caller.application_id} does not have "
                                           f"CAN_MANAGE_RUN permission on run {run_id}.")
            elif self._job_of_run(conn, run) is not None:
                self._authorised(conn, run["job_id"], caller, "CAN_MANAGE_RUN")
            self._cancel(conn, run, clock.now_ms())

    def cancel_all_runs(self, job_id: int | None, all_queued_runs: bool, caller: Caller
                        ) -> None:
        if job_id is None:
            if not all_queued_runs:
                raise InvalidParameter("Give job_id, or all_queued_runs: true.")
            return  # runs here never wait in a queue
        with self._db.write() as conn:
            self._authorised(conn, job_id, caller, "CAN_MANAGE_RUN")
            now = clock.now_ms()
            for row in conn.execute("SELECT doc FROM runs WHERE job_id = ?",
                                    (job_id,)).fetchall():
                self._cancel(conn, from_json(row["doc"]), now)
