"""The repos area of the REST API (Git folders): create, list, read, check out a branch or
tag (the legacy form with POST, the public form with PATCH), change the sparse checkout
patterns, delete."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

from providers.client.calls import Calls

REPOS_PATH = "/api/2.0/repos"
# Names the class's own `list` method would shadow in its annotations.
Patterns = list[str]


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

    def create(
        self, url: str, provider: str, path: str, sparse_checkout: Patterns | None = None
    ) -> dict[str, Any]:
        """Clone `url` at `path` (its default branch); the repo made. Not repeated after a
        lost answer (a second repo at the path is refused)."""
        body: dict[str, Any] = {"url": url, "provider": provider, "path": path}
        if sparse_checkout is not None:
            body["sparse_checkout"] = {"patterns": sparse_checkout}
        return self.client.post(REPOS_PATH, body)

    def update(
        self,
        repo_id: int | str,
        *,
        branch: str | None = None,
        tag: str | None = None,
        sparse_checkout: Patterns | None = None,
    ) -> None:
        """Check out `branch` or `tag`, or set the sparse checkout patterns (of a repo made
        with sparse checkout). Read the repo for the head commit it moved to."""
        body: dict[str, Any] = {}
        if branch is not None:
            body["branch"] = branch
        if tag is not None:
            body["tag"] = tag
        if sparse_checkout is not None:
            body["sparse_checkout"] = {"patterns": sparse_checkout}
        method = self.client.wire.repo_update_method
        self.client.request(method, _path(repo_id), body, idempotent=True)

    def delete(self, repo_id: int | str) -> None:
        self.client.delete(_path(repo_id))

    def update_branch(self, repo_id: int | str, branch: str) -> None:
        """Check out `branch`. The public service answers with an empty body: read the repo
        for the head commit it moved to."""
        method = self.client.wire.repo_update_method
        self.client.request(method, _path(repo_id), {"branch": branch}, idempotent=True)


def _path(repo_id: int | str) -> str:
    return f"{REPOS_PATH}/{quote(str(repo_id), safe='')}"
