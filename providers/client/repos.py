"""The repos area of the REST API (Git folders): list, read, and check out a branch, which
the seed form does with POST and the public form with PATCH."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

REPOS_PATH = "/api/2.0/repos"


class ReposApi:
    def __init__(self, client: Calls) -> None:
        self.client = client

    def __repr__(self) -> str:
        return f"ReposApi({self.client!r})"

    def list(self, path_prefix: str | None = None) -> Iterator[dict[str, Any]]:
        """Every repo (under `path_prefix`, when given), page by page."""
        params: dict[str, Any] = {} if path_prefix is None else {"path_prefix": path_prefix}
        while True:
            page = self.client.get(REPOS_PATH, params)
            yield from page.get("repos") or []
            token = page.get("next_page_token")
            if not token:
                return
            params = {**params, "next_page_token": token}

    def get(self, repo_id: int | str) -> dict[str, Any]:
        return self.client.get(_path(repo_id))

    def update_branch(self, repo_id: int | str, branch: str) -> None:
        """Check out `branch`. The public service answers with an empty body: read the repo
        for the head commit it moved to."""
        method = self.client.wire.repo_update_method
        self.client.request(method, _path(repo_id), {"branch": branch}, idempotent=True)


def _path(repo_id: int | str) -> str:
    return f"{REPOS_PATH}/{quote(str(repo_id), safe='')}"
