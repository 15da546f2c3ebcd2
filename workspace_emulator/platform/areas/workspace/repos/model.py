"""Repos (Git folders): the initial data gives each the branches its remote has and each
branch's head.

Checking out a branch moves the repo's head to that branch's commit; a branch the remote
does not have is refused. The remotes the initial data names are the Git host the emulator
knows: a repo can be created from any of them (at its first branch, as a clone checks out
the remote's default branch); an unknown URL cannot be cloned. A remote the initial data
marks `"private": true` is cloned only by a caller holding a Git credential for the repo's
provider (areas/git_credentials), as the service needs one to reach a private remote.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from workspace_emulator.errors import AlreadyExists, InvalidParameter, NotFound
from workspace_emulator.storage import Database, from_json, to_json

PAGE_SIZE = 2
PUBLIC_FIELDS = ("id", "path", "url", "provider", "branch", "head_commit_id", "sparse_checkout")
REPO_ID_START = 3_100_000_000_000_001
# The service's providers, matched without regard to case and answered in this spelling.
PROVIDERS = ("gitHub", "bitbucketCloud", "gitLab", "azureDevOpsServices", "gitHubEnterprise",
             "bitbucketServer", "gitLabEnterpriseEdition", "awsCodeCommit")
# A repo under /Repos sits one folder down: /Repos/<folder>/<name>.
REPOS_FOLDER_PATH = re.compile(r"^/Repos/[^/]+/[^/]+$")


def _repository_name(url: str) -> str:
    """The last segment of a remote's URL without `.git`: what a clone names its folder."""
    name = url.rstrip("/").rsplit("/", 1)[-1]
    return name.removesuffix(".git") or "repo"


def _view(doc: dict[str, Any]) -> dict[str, Any]:
    return {key: doc[key] for key in PUBLIC_FIELDS if key in doc}


TABLES = """
CREATE TABLE IF NOT EXISTS repos (id INTEGER PRIMARY KEY, doc TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS git_remotes (url TEXT PRIMARY KEY, doc TEXT NOT NULL);
"""


class Repos:
    def __init__(self, db: Database,
                 has_git_credential: Callable[[str, str], bool] | None = None) -> None:
        self._db = db
        # (principal id, Git provider) -> whether the principal holds a credential for it
        self._has_git_credential = has_git_credential or (lambda principal, provider: False)

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
        remote = {"branches": branches, "tags": doc["remote_tags"]}
        if spec.get("private"):
            remote["private"] = True  # a clone needs the caller's Git credential
        conn.execute("INSERT OR IGNORE INTO git_remotes (url, doc) VALUES (?, ?)",
                     (doc["url"], to_json(remote)))

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

    def exists(self, repo_id: str) -> bool:
        """Whether there is a repo of `repo_id`, the id as a path names it."""
        if not repo_id.isdigit():
            return False
        with self._db.read() as conn:
            return conn.execute("SELECT 1 FROM repos WHERE id = ?",
                                (int(repo_id),)).fetchone() is not None

    def paths(self) -> dict[str, int]:
        """Each repo's workspace path and its id."""
        with self._db.read() as conn:
            rows = conn.execute("SELECT doc FROM repos").fetchall()
        return {doc["path"]: doc["id"] for doc in map(from_json, (row["doc"] for row in rows))}
    def create(self, body: dict[str, Any], caller_user_name: str,
               caller_id: str = "") -> dict[str, Any]:
        """A clone of a known remote. Without a `path` (clients such as the CLI and
        workflow operators leave it out) the repo goes to the caller's own folder,
        `/Repos/<userName>/<repository name>`."""
        url, path = body.get("url"), body.get("path")
        if not isinstance(url, str) or not url:
            raise InvalidParameter("'url' is required")
        provider = _provider(body.get("provider"))
        if path is None:
            path = f"/Repos/{caller_user_name}/{_repository_name(url)}"
        if not isinstance(path, str) or not path.startswith("/"):
            raise InvalidParameter("'path' must be an absolute workspace path")
        path = path.rstrip("/")
        if path.startswith("/Repos/") and not REPOS_FOLDER_PATH.match(path):
            raise InvalidParameter(
                f"Invalid repo path {path}: a repo in /Repos must be at /Repos/<folder>/<name>.")
        patterns = _sparse_patterns(body.get("sparse_checkout"))
        with self._db.write() as conn:
            row = conn.execute("SELECT doc FROM git_remotes WHERE url = ?", (url,)).fetchone()
            if row is None:
                raise InvalidParameter(
                    f"Unable to clone the remote repository {url}: it does not exist or "
                    "cannot be reached with the configured Git credentials.")
            if any(d["path"] == path for d in self._all(conn)):
                raise AlreadyExists(f"Path ({path}) already exists.")
            remote = from_json(row["doc"])
            if remote.get("private") and not self._has_git_credential(caller_id, provider):
                raise InvalidParameter(
                    f"Unable to clone the remote repository {url}: it is private, and you "
                    f"have no Git credential for {provider}; add one (POST "
                    "/api/2.0/git-credentials) and try again.")
            branch, head = next(iter(remote["branches"].items()))
            doc = {
                "id": self._db.next_value(conn, "repo_id", REPO_ID_START), "path": path,
                "url": url, "provider": provider, "branch": branch, "head_commit_id": head,
                "remote_branches": remote["branches"], "remote_tags": remote["tags"],
            }
            if patterns is not None:
                doc["sparse_checkout"] = {"patterns": patterns}
            conn.execute("INSERT INTO repos (id, doc) VALUES (?, ?)", (doc["id"], to_json(doc)))
        return _view(doc)

    def delete(self, repo_id: int) -> None:
        with self._db.write() as conn:
            self._load(conn, repo_id)
            conn.execute("DELETE FROM repos WHERE id = ?", (repo_id,))

    @staticmethod
    def _all(conn) -> list[dict[str, Any]]:
        return [from_json(row["doc"]) for row in conn.execute("SELECT doc FROM repos")]

    def update(self, repo_id: int, body: dict[str, Any]) -> dict[str, Any]:
        """Checks out a branch or tag, changes the sparse checkout patterns, or both."""
        sparse = body.get("sparse_checkout")
        if sparse is not None:
            patterns = _sparse_patterns(sparse)
            with self._db.write() as conn:
                doc = self._load(conn, repo_id)
                if "sparse_checkout" not in doc:
                    raise InvalidParameter(
                        f"Repo {repo_id} was created without sparse checkout; its patterns "
                        "cannot be set.")
                doc["sparse_checkout"] = {"patterns": patterns}
                conn.execute("UPDATE repos SET doc = ? WHERE id = ?", (to_json(doc), repo_id))
            if body.get("branch") is None and body.get("tag") is None:
                return _view(doc)
        return self.checkout(repo_id, body.get("branch"), body.get("tag"))

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


def _provider(value: Any) -> str:
    spelled = {p.lower(): p for p in PROVIDERS}
    if not isinstance(value, str) or value.lower() not in spelled:
        raise InvalidParameter(
            f"Invalid Git provider {value!r}; one of {', '.join(PROVIDERS)}.")
    return spelled[value.lower()]


def _sparse_patterns(value: Any) -> list[str] | None:
    if value is None:
        return None
    patterns = value.get("patterns") if isinstance(value, dict) else None
    if not isinstance(patterns, list) or not all(isinstance(p, str) and p for p in patterns):
        raise InvalidParameter("'sparse_checkout.patterns' must be a list of non-empty strings")
    return patterns
