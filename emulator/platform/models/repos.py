"""Repos (Git folders): the initial data gives each the branches its remote has and each
branch's head.

Checking out a branch moves the repo's head to that branch's commit; a branch the remote
does not have is refused.
"""

from __future__ import annotations

from typing import Any

from emulator.errors import InvalidParameter, NotFound
from emulator.storage import Database, from_json, to_json

PAGE_SIZE = 2
PUBLIC_FIELDS = ("id", "path", "url", "provider", "branch", "head_commit_id")


def _view(doc: dict[str, Any]) -> dict[str, Any]:
    return {key: doc[key] for key in PUBLIC_FIELDS if key in doc}


class Repos:
    def __init__(self, db: Database) -> None:
        self._db = db

    def add_initial(self, conn, spec: dict[str, Any]) -> None:
        branches = dict(spec["remote_branches"])
        branch = spec.get("branch") or next(iter(branches))
        if branch not in branches:
            raise InvalidParameter(
                f"Initial-data repo {spec['id']}: branch {branch} not on the remote")
        doc = {
            "id": int(spec["id"]), "path": spec["path"], "url": spec["url"],
            "provider": spec.get("provider", "gitHub"), "branch": branch,
            "head_commit_id": branches[branch], "remote_branches": branches,
            "remote_tags": dict(spec.get("remote_tags", {})),
        }
        conn.execute("INSERT INTO repos (id, doc) VALUES (?, ?)", (doc["id"], to_json(doc)))

    def page(self, path_prefix: str | None = None, page_token: str | None = None
             ) -> dict[str, Any]:
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM repos").fetchall()
        docs = sorted((from_json(row["doc"]) for row in rows), key=lambda d: (d["path"], d["id"]))
        if path_prefix and path_prefix.rstrip("/") not in ("", "/Workspace"):
            docs = [d for d in docs if d["path"].startswith(path_prefix)]
        start = 0
        if page_token:
            start = next((i for i, d in enumerate(docs) if str(d["id"]) == page_token), -1)
            if start < 0:
                raise InvalidParameter(f"Invalid next_page_token '{page_token}'")
        page = docs[start:start + PAGE_SIZE]
        result: dict[str, Any] = {"repos": [_view(d) for d in page]}
        if start + PAGE_SIZE < len(docs):
            result["next_page_token"] = str(docs[start + PAGE_SIZE]["id"])
        return result

    def _load(self, conn, repo_id: int) -> dict[str, Any]:
        row = conn.execute("SELECT doc FROM repos WHERE id = ?", (repo_id,)).fetchone()
        if row is None:
            raise NotFound(f"Repo {repo_id} does not exist.")
        return from_json(row["doc"])

    def get(self, repo_id: int) -> dict[str, Any]:
        with self._db.read() as conn:
            return _view(self._load(conn, repo_id))

    def paths(self) -> dict[str, int]:
        """Each repo's workspace path and its id."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM repos").fetchall()
        return {doc["path"]: doc["id"] for doc in map(from_json, (row["doc"] for row in rows))}

    def checkout(self, repo_id: int, branch: Any = None, tag: Any = None) -> dict[str, Any]:
        if (branch is None) == (tag is None):
            raise InvalidParameter("Give exactly one of 'branch' or 'tag'.")
        ref, kind = (branch, "branch") if branch is not None else (tag, "tag")
        if not isinstance(ref, str) or not ref:
            raise InvalidParameter(f"'{kind}' must be a non-empty string")
        with self._db.write() as conn:
            doc = self._load(conn, repo_id)
            refs = doc["remote_branches"] if kind == "branch" else doc["remote_tags"]
            if ref not in refs:
                raise InvalidParameter(
                    f"The {kind} '{ref}' does not exist on the remote of repo {repo_id} "
                    f"({doc['url']})."
                )
            doc["head_commit_id"] = refs[ref]
            if kind == "branch":
                doc["branch"] = ref
            else:
                doc.pop("branch", None)
            conn.execute("UPDATE repos SET doc = ? WHERE id = ?", (to_json(doc), repo_id))
        return _view(doc)
