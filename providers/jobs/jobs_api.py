"""The jobs area of the REST API: one call per operation, in the connection's wire form.

The public form speaks Jobs 2.2 (`/api/2.2/jobs/...`), the legacy form Jobs 2.0
(`/api/2.0/jobs/...`). Settings go in and come out in the canonical multi-task shape
whatever the form: `job_wire` lifts a legacy single-task job read back, and lowers a
lifted one to the legacy form's nesting on the way out.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from providers.client.calls import Calls
from providers.client.connection import WireForm
from providers.client.errors import WorkspaceError, is_gone
from providers.jobs.job_wire import lift, to_wire

JOBS_PATHS = {WireForm.PUBLIC: "/api/2.2/jobs", WireForm.LEGACY: "/api/2.0/jobs"}
LIST_PAGE_SIZE = 100
RUNS_PAGE_SIZE = 25  # the most runs/list returns per page
# The arrays of a job that Jobs 2.2 `get` returns 100 at a time, the rest on later pages.
PAGED_JOB_ARRAYS = ("tasks", "job_clusters", "parameters", "environments")
# Likewise for a run (a for-each task's run pages its iterations instead of its tasks).
PAGED_RUN_ARRAYS = ("job_clusters", "job_parameters", "repair_history")


class JobsApi:
    """Jobs and their runs, over an existing client."""

    def __init__(self, client: Calls) -> None:
        self.client = client
        self.form = client.wire.form
        self.base = JOBS_PATHS[self.form]

    def __repr__(self) -> str:
        return f"JobsApi({self.client!r})"

    # --- jobs ---------------------------------------------------------------------
    def create(self, settings: Mapping[str, Any]) -> int:
        """Create a job; its id. Not repeated after a lost answer (it would make a second
        job): callers look for the job they may have made instead."""
        body = self.client.post(f"{self.base}/create", to_wire(settings, self.form))
        return int(body["job_id"])

    def get(self, job_id: int) -> dict[str, Any]:
        """The job (`job_id`, `settings`, `creator_user_name`, ...), its settings in the
        canonical shape, every page of its tasks, clusters, parameters and environments."""
        path, params = f"{self.base}/get", {"job_id": int(job_id)}
        job = self.client.get(path, params)
        settings = job.setdefault("settings", {})
        for page in self._next_pages(path, params, job):
            more = page.get("settings") or {}
            for name in PAGED_JOB_ARRAYS:
                settings.setdefault(name, []).extend(more.get(name) or [])
        for name in PAGED_JOB_ARRAYS:
            if settings.get(name) == []:
                del settings[name]
        job.pop("has_more", None)
        job["settings"] = lift(settings)
        return job

    def list(self, name: str | None = None, expand_tasks: bool = False) -> Iterator[dict[str, Any]]:
        """Every job (named `name`, when given), page by page. Without `expand_tasks` the
        service leaves tasks and clusters out; with it, Jobs 2.2 lists at most 100 of each
        (`has_more` says so): `get` has them all."""
        params: dict[str, Any] = {"limit": LIST_PAGE_SIZE}
        if name is not None:
            params["name"] = name
        if expand_tasks:
            params["expand_tasks"] = "true"
        for job in self._list(f"{self.base}/list", params, "jobs"):
            yield _lifted(job)

    def list_pages(self, pages: int) -> tuple[Sequence[dict[str, Any]], bool]:
        """The jobs (without tasks) of the first `pages` pages, and whether the workspace
        holds more. The pages are fetched back to back."""
        found: list[dict[str, Any]] = []
        for items, more in self._pages(f"{self.base}/list", {"limit": LIST_PAGE_SIZE}, "jobs"):
            found.extend(_lifted(job) for job in items)
            pages -= 1
            if more and pages <= 0:
                return found, True
        return found, False

    def update(
        self,
        job_id: int,
        new_settings: Mapping[str, Any],
        fields_to_remove: Sequence[str] = (),
    ) -> None:
        """Change some settings: top-level fields in `new_settings` replace the job's, its
        `tasks` and `job_clusters` replace those of the same key and add the others;
        `fields_to_remove` names top-level fields and `tasks/<key>`, `job_clusters/<key>`.
        The body goes out in the canonical shape in either form."""
        body: dict[str, Any] = {
            "job_id": int(job_id),
            "new_settings": copy.deepcopy(dict(new_settings)),
        }
        if fields_to_remove:
            body["fields_to_remove"] = list(fields_to_remove)
        self.client.post(f"{self.base}/update", body, idempotent=True)

    def reset(self, job_id: int, new_settings: Mapping[str, Any]) -> None:
        """Replace every setting of the job."""
        body = {"job_id": int(job_id), "new_settings": to_wire(new_settings, self.form)}
        self.client.post(f"{self.base}/reset", body, idempotent=True)

    def delete(self, job_id: int) -> bool:
        """Delete the job: True, or False when it was already gone."""
        try:
            self.client.post(f"{self.base}/delete", {"job_id": int(job_id)}, idempotent=True)
        except WorkspaceError as error:
            if is_gone(error):
                return False
            raise
        return True

    # --- runs ---------------------------------------------------------------------
    def run_now(
        self,
        job_id: int,
        *,
        job_parameters: Mapping[str, str] | None = None,
        python_params: Sequence[str] | None = None,
        python_named_params: Mapping[str, str] | None = None,
        notebook_params: Mapping[str, str] | None = None,
        jar_params: Sequence[str] | None = None,
        spark_submit_params: Sequence[str] | None = None,
        sql_params: Mapping[str, str] | None = None,
        dbt_commands: Sequence[str] | None = None,
        pipeline_params: Mapping[str, Any] | None = None,
        only: Sequence[str] | None = None,
        idempotency_token: str | None = None,
    ) -> dict[str, Any]:
        """Start a run: `{run_id, number_in_job}`. Only the parameters given are sent. With a
        token the service starts at most one run per token, so the call is then repeated
        after a lost answer."""
        given: dict[str, Any] = {
            "job_parameters": job_parameters,
            "python_params": python_params,
            "python_named_params": python_named_params,
            "notebook_params": notebook_params,
            "jar_params": jar_params,
            "spark_submit_params": spark_submit_params,
            "sql_params": sql_params,
            "dbt_commands": dbt_commands,
            "pipeline_params": pipeline_params,
            "only": only,
            "idempotency_token": idempotency_token,
        }
        body: dict[str, Any] = {"job_id": int(job_id)}
        for name, value in given.items():
            if value is None:
                continue
            if isinstance(value, Mapping):
                body[name] = dict(value)
            elif isinstance(value, str):
                body[name] = value
            else:
                body[name] = list(value)
        return self.client.post(
            f"{self.base}/run-now", body, idempotent=idempotency_token is not None
        )

    def get_run(self, run_id: int) -> dict[str, Any]:
        """The run, with every page of its tasks (or a for-each task's iterations), clusters,
        parameters and repair history."""
        path, params = f"{self.base}/runs/get", {"run_id": int(run_id)}
        run = self.client.get(path, params)
        # A for-each task's run pages its iterations; a job's run pages its tasks.
        paged = ("iterations",) if run.get("iterations") else ("tasks",)
        for page in self._next_pages(path, params, run):
            for name in (*paged, *PAGED_RUN_ARRAYS):
                if page.get(name):
                    run.setdefault(name, []).extend(page[name])
        run.pop("has_more", None)
        return run

    def list_runs(
        self,
        job_id: int | None = None,
        *,
        active_only: bool = False,
        completed_only: bool = False,
    ) -> Iterator[dict[str, Any]]:
        """The runs of a job (of every job without `job_id`), newest first, page by page."""
        params: dict[str, Any] = {"limit": RUNS_PAGE_SIZE}
        if job_id is not None:
            params["job_id"] = int(job_id)
        if active_only:
            params["active_only"] = "true"
        if completed_only:
            params["completed_only"] = "true"
        yield from self._list(f"{self.base}/runs/list", params, "runs")

    def cancel_run(self, run_id: int) -> None:
        """Ask the run to stop; cancelling a finished run changes nothing."""
        self.client.post(f"{self.base}/runs/cancel", {"run_id": int(run_id)}, idempotent=True)

    # --- paging -------------------------------------------------------------------
    def _next_pages(
        self, path: str, params: dict[str, Any], first: dict[str, Any]
    ) -> Iterator[dict[str, Any]]:
        """The pages after `first` of one object (Jobs 2.2 `next_page_token` at its root)."""
        token = first.pop("next_page_token", None)
        seen: set[str] = set()
        while token and token not in seen:
            seen.add(token)
            page = self.client.get(path, {**params, "page_token": token})
            yield page
            token = page.get("next_page_token")

    def _list(self, path: str, base: dict[str, Any], field: str) -> Iterator[dict[str, Any]]:
        """Every item of a list call."""
        for items, _more in self._pages(path, base, field):
            yield from items

    def _pages(
        self, path: str, base: dict[str, Any], field: str
    ) -> Iterator[tuple[Sequence[dict[str, Any]], bool]]:
        """The items of a list call page by page, each with whether another page follows;
        by page token, or by offset where none is given."""
        params, offset = dict(base), 0
        while True:
            page = self.client.get(path, params)
            items = page.get(field) or []
            token = page.get("next_page_token")
            more = bool(items) and bool(token or page.get("has_more"))
            yield items, more
            if not more:
                return
            offset += len(items)
            params = {**base, **({"page_token": token} if token else {"offset": offset})}


def _lifted(job: dict[str, Any]) -> dict[str, Any]:
    if isinstance(job.get("settings"), Mapping):
        job["settings"] = lift(job["settings"])
    return job
