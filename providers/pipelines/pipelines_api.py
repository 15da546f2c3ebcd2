"""The pipelines area of the REST API (`/api/2.0/pipelines`): pipelines (create, get, edit,
delete, list), their updates (start, get, list, stop) and their event log, as the official
SDK's `pipelines` module calls them."""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from providers.client.calls import Calls
from providers.client.errors import WorkspaceError, is_gone

PIPELINES_PATH = "/api/2.0/pipelines"
# Module-level: inside the class `list` names its method.
Objects = list[dict[str, Any]]
LIST_PAGE_SIZE = 100  # the most `list` returns per page
EVENTS_PAGE_SIZE = 100


def name_filter(name: str) -> str:
    """The `list` filter that selects pipelines named `name`: `LIKE` with the pattern's
    wildcards (`%`, `_`) as they are, so callers compare the names exactly afterwards."""
    return "name LIKE '{}'".format(name.replace("'", "''"))


class PipelinesApi:
    """Pipelines and their updates, over an existing client."""

    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"PipelinesApi({self.client!r})"

    # --- pipelines ----------------------------------------------------------------
    def create(self, settings: Mapping[str, Any]) -> str:
        """Create a pipeline; its id. Not repeated after a lost answer (a second one would
        be made, or refused as a duplicate name): callers look for the one they may have
        made instead."""
        body = self.client.post(PIPELINES_PATH, copy.deepcopy(dict(settings)))
        return str(body["pipeline_id"])

    def get(self, pipeline_id: str) -> dict[str, Any]:
        """The pipeline: `pipeline_id`, `spec`, `state`, `creator_user_name`, `run_as`,
        `last_modified`, `latest_updates`, ..."""
        return self.client.get(f"{PIPELINES_PATH}/{pipeline_id}")

    def edit(
        self,
        pipeline_id: str,
        settings: Mapping[str, Any],
        expected_last_modified: int | None = None,
    ) -> None:
        """Replace the pipeline's whole spec with `settings` (what it leaves out is cleared).
        With `expected_last_modified`, the service refuses the edit where the pipeline was
        changed since that time."""
        body: dict[str, Any] = {**copy.deepcopy(dict(settings)), "id": pipeline_id}
        if expected_last_modified is not None:
            body["expected_last_modified"] = int(expected_last_modified)
        self.client.put(f"{PIPELINES_PATH}/{pipeline_id}", body)

    def delete(self, pipeline_id: str) -> bool:
        """Delete the pipeline: True, or False when it was already gone."""
        try:
            self.client.delete(f"{PIPELINES_PATH}/{pipeline_id}")
        except WorkspaceError as error:
            if is_gone(error):
                return False
            raise
        return True

    def list(self, filter_: str | None = None) -> Iterator[dict[str, Any]]:
        """Every pipeline (`pipeline_id`, `name`, `state`, ...; no spec) the filter selects,
        page by page."""
        params: dict[str, Any] = {"max_results": LIST_PAGE_SIZE}
        if filter_ is not None:
            params["filter"] = filter_
        yield from self._paged(PIPELINES_PATH, params, "statuses", keep=tuple(params))

    def named(self, name: str) -> Objects:
        """The pipelines named exactly `name`, as `list` gives them."""
        return [p for p in self.list(name_filter(name)) if p.get("name") == name]

    # --- updates ------------------------------------------------------------------
    def start_update(
        self,
        pipeline_id: str,
        *,
        full_refresh: bool | None = None,
        refresh_selection: Sequence[str] | None = None,
        full_refresh_selection: Sequence[str] | None = None,
        validate_only: bool | None = None,
    ) -> str:
        """Start an update of the pipeline; its id. The service refuses a start while
        another update is active. Not repeated after a lost answer (it would start a
        second update)."""
        given: dict[str, Any] = {
            "full_refresh": full_refresh,
            "refresh_selection": None if refresh_selection is None else list(refresh_selection),
            "full_refresh_selection": (
                None if full_refresh_selection is None else list(full_refresh_selection)
            ),
            "validate_only": validate_only,
        }
        body = {name: value for name, value in given.items() if value is not None}
        return str(self.client.post(f"{PIPELINES_PATH}/{pipeline_id}/updates", body)["update_id"])

    def get_update(self, pipeline_id: str, update_id: str) -> dict[str, Any]:
        """The update (`update_id`, `state`, `full_refresh`, `creation_time`, ...)."""
        answer = self.client.get(f"{PIPELINES_PATH}/{pipeline_id}/updates/{update_id}")
        return answer.get("update") or {}

    def list_updates(self, pipeline_id: str) -> Objects:
        """The pipeline's updates, newest first (the first page)."""
        answer = self.client.get(f"{PIPELINES_PATH}/{pipeline_id}/updates")
        return answer.get("updates") or []

    def stop(self, pipeline_id: str) -> None:
        """Cancel the active update, if any (a no-op otherwise)."""
        self.client.post(f"{PIPELINES_PATH}/{pipeline_id}/stop", idempotent=True)

    def events(self, pipeline_id: str, filter_: str | None = None) -> Iterator[dict[str, Any]]:
        """The pipeline's events, newest first, page by page."""
        params: dict[str, Any] = {"max_results": EVENTS_PAGE_SIZE}
        if filter_ is not None:
            params["filter"] = filter_
        # An events page token stands for the filter: the service refuses both together.
        yield from self._paged(
            f"{PIPELINES_PATH}/{pipeline_id}/events", params, "events", keep=("max_results",)
        )

    # --- paging -------------------------------------------------------------------
    def _paged(
        self, path: str, base: dict[str, Any], field: str, keep: tuple[str, ...]
    ) -> Iterator[dict[str, Any]]:
        """Every item of a list call; the later pages ask with the `keep` parameters of the
        first beside the page token."""
        params, seen = dict(base), set()
        while True:
            page = self.client.get(path, params)
            yield from page.get(field) or []
            token = page.get("next_page_token")
            if not token or token in seen:
                return
            seen.add(token)
            params = {**{k: v for k, v in base.items() if k in keep}, "page_token": token}
