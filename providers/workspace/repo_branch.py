"""RepoBranch: which branch an existing repo (Git folder) of the workspace has checked out.

The repo is named by id or by workspace path and is not created or deleted here. Create
records the branch it replaced (`previous_branch`); delete checks that branch out again
(`on_delete="restore"`, the default) or leaves the repo as it is (`"leave"`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from providers.client import InvalidParameter, NotFound
from providers.core import import_ids
from providers.core.ids import Int64Id
from providers.core.kind import Adoption, DrillChange, declare
from providers.core.lifecycle import Spec, WorkspaceProvider, undone_on_failure
from providers.workspace.git import ref_name_problem, same_workspace_path
from providers.workspace.repos_api import REPOS_PATH, ReposApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient

REPO_PATH_PREFIXES = ("/Repos/", "/Workspace/")


class RepoBranchModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    repo_path: str | None = None
    # Validated after repo_path (field order) so the exactly-one rule can see both.
    repo_id: Int64Id | None = Field(default=None, validate_default=True)
    branch: str
    on_delete: Literal["restore", "leave"] = "restore"

    @field_validator("repo_path")
    @classmethod
    def _repo_path_form(cls, value: str | None) -> str | None:
        if value is None:
            return None
        trimmed = value.rstrip("/")
        if not any(trimmed.startswith(p) and len(trimmed) > len(p) for p in REPO_PATH_PREFIXES):
            raise ValueError("must be the repo's workspace path, starting /Repos/ or /Workspace/")
        return trimmed

    @field_validator("repo_id")
    @classmethod
    def _exactly_one_repo(cls, value: str | None, info: ValidationInfo) -> str | None:
        if "repo_path" not in info.data:
            return value  # repo_path itself failed and is reported
        if (value is None) == (info.data["repo_path"] is None):
            raise ValueError("give exactly one of repo_id or repo_path")
        return value

    @field_validator("branch")
    @classmethod
    def _branch_is_ref_name(cls, value: str) -> str:
        problem = ref_name_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class RepoBranchProvider(WorkspaceProvider):
    args_model = RepoBranchModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"repo_id", "repo_path"})

    def must_delete_first(self, changed: list[str]) -> bool:
        # The new repo may be the old one under another name (id vs path). Restoring the old
        # resource's branch after the new one has set its branch would undo the new one.
        return True

    def create_object(self, client: WorkspaceClient, args: RepoBranchModel, spec: Spec):
        repo_id = args.repo_id or self._resolve_path(client, str(args.repo_path))
        repo = ReposApi(client).get(repo_id)
        previous = repo.get("branch")
        if previous != args.branch:
            record = {"previous_branch": previous, "on_delete": "restore"}
            with undone_on_failure(lambda: self.delete_object(client, repo_id, record)):
                repo = self._checkout(client, repo_id, args.branch)
        computed = {"previous_branch": previous, "head_commit_id": repo.get("head_commit_id")}
        return repo_id, self._spec_of(repo, spec), computed

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        repo = ReposApi(client).get(id_)
        like = recorded if "branch" in recorded else {"repo_id": id_}
        return self._spec_of(repo, like), self._computed(recorded, repo)

    def update_object(self, client, id_, recorded, args, spec):
        repo = ReposApi(client).get(id_)
        if repo.get("branch") != args.branch:
            repo = self._checkout(client, id_, args.branch)
        return self._spec_of(repo, spec), self._computed(recorded, repo)

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        previous = recorded.get("previous_branch")
        if recorded.get("on_delete", "restore") != "restore" or not previous:
            return
        try:
            repo = ReposApi(client).get(id_)
            if repo.get("branch") != previous:
                self._checkout(client, id_, previous)
        except NotFound:
            return
        except InvalidParameter as error:
            error.message += (
                f' (restoring the previous branch {previous!r}; set on_delete="leave" to '
                "delete without restoring it)"
            )
            error.args = (str(error),)
            raise

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _checkout(client: WorkspaceClient, repo_id: str, branch: str) -> dict:
        """Check out `branch`; the repo read back (its new head commit)."""
        ReposApi(client).update_branch(repo_id, branch)
        return ReposApi(client).get(repo_id)

    @staticmethod
    def _resolve_path(client: WorkspaceClient, path: str) -> str:
        candidates = [path]
        if path.startswith("/Workspace/Repos/"):
            candidates.append(path.removeprefix("/Workspace"))
        for prefix in candidates:
            for repo in ReposApi(client).list(prefix):
                if same_workspace_path(repo.get("path", ""), path):
                    return str(repo["id"])
        raise NotFound(
            status=404,
            code="RESOURCE_DOES_NOT_EXIST",
            message=f"no repo at path {path!r}",
            method="GET",
            path=REPOS_PATH,
        )

    @staticmethod
    def _spec_of(repo: Mapping[str, Any], like: Mapping[str, Any]) -> Spec:
        """The repo in spec form, naming it the way the user did. `on_delete` is not
        observable: the recorded choice stands."""
        spec: Spec = {}
        if "repo_path" in like:
            path = repo.get("path", "")
            spec["repo_path"] = (
                like["repo_path"] if same_workspace_path(path, like["repo_path"]) else path
            )
        else:
            spec["repo_id"] = str(repo["id"])
        if repo.get("branch"):
            spec["branch"] = repo["branch"]
        spec["on_delete"] = like.get("on_delete", "restore")
        return spec

    @staticmethod
    def _computed(recorded: Mapping[str, Any], repo: Mapping[str, Any]) -> dict:
        return {
            "previous_branch": recorded.get("previous_branch"),
            "head_commit_id": repo.get("head_commit_id"),
        }


def _repos(client: Any) -> Any:
    return ((str(r["id"]), str(r.get("path", ""))) for r in ReposApi(client).list())


# A remote branch of the emulator's initial repo (workspace_emulator/initial_data.json).
DRILL_BRANCH = "release/2024.06"


KIND = declare(
    name="RepoBranch",
    provider=RepoBranchProvider,
    outputs={"previous_branch": str, "head_commit_id": str},
    config_key="repoBranches",
    identity=("repo_path", "repo_id"),
    doc="docs/repo-branch.md",
    summary="the checked-out branch of an existing repo",
    import_id="repo id",
    import_id_rule=import_ids.numeric,
    stack_output=("repo_branches", lambda resource: resource.branch),
    adoption=Adoption(
        objects=_repos,
        refused="a repo's checked-out branch is adopted with the repo itself (its Repo "
        "item's `branch`); a RepoBranch beside it would manage the same setting twice. To "
        "manage only the branch of a repo no stack should own, leave the repo out of "
        "adoption and declare {repo_id, branch} in repoBranches yourself, with the repo "
        "id as its import id",
    ),
    drill=DrillChange(lambda item: {**item, "branch": DRILL_BRANCH}),
)
