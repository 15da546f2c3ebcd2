"""Repo: a Git folder this stack makes, checked out at a branch or tag, and deletes.

(`RepoBranch` is for repos made elsewhere: it only moves their branch.)

The service clones the remote's default branch; a declared branch or tag is checked out
after. A branch, a tag and the sparse checkout patterns change in place; the URL, the
provider, the path and whether the checkout is sparse at all cannot change: those replace
the repo. The path is the natural key: a create refused because a repo of the same remote
is at the path already (left by an interrupted earlier create) adopts that repo.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from providers.client import AlreadyExists
from providers.core import import_ids
from providers.core.create_or_adopt import create_or_adopt
from providers.core.kind import DrillChange, declare
from providers.core.lifecycle import KeyedDiffResult, Spec, WorkspaceProvider, undone_on_failure
from providers.core.validators import no_duplicates, not_blank
from providers.workspace.git import GIT_PROVIDERS, ref_name_problem, same_workspace_path
from providers.workspace.repos_api import ReposApi

if TYPE_CHECKING:
    from providers.client import WorkspaceClient


def _git_provider(value: str) -> str:
    spelled = {p.lower(): p for p in GIT_PROVIDERS}
    if value.lower() not in spelled:
        raise ValueError(f"must be one of {', '.join(GIT_PROVIDERS)}")
    return spelled[value.lower()]


def _remote_url(value: str) -> str:
    """The remote's https:// URL. The URL is kept in the stack's state and shown in previews
    and the pull-request summary, so it never carries credentials (the workspace's Git
    credential for the provider authenticates the clone), and never plain http://. A
    refusal never quotes the URL."""
    scheme, _, rest = value.partition("://")
    if scheme.lower() == "http":
        raise ValueError("must use https://: plain http:// sends the repository's traffic "
                         "unprotected")
    if scheme != "https" or len(value) < 12:
        raise ValueError("must be the remote's HTTPS URL, e.g. https://github.com/org/project.git")
    authority = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    if "@" in authority:
        raise ValueError(
            "must not carry credentials (user:token@): they would be kept in the stack's state "
            "and shown in previews; give the workspace a Git credential for the provider "
            "instead"
        )
    return value


def _repo_path(value: str) -> str:
    trimmed = value.rstrip("/")
    parts = trimmed.split("/")
    if trimmed.startswith("/Repos/"):
        if len(parts) != 4 or not all(parts[2:]):
            raise ValueError("a repo under /Repos must be at /Repos/<folder>/<name>")
    elif not trimmed.startswith("/Workspace/") or len(parts) < 4:
        raise ValueError("must be a workspace path: /Repos/<folder>/<name> or /Workspace/...")
    return trimmed


def _ref(value: str) -> str:
    problem = ref_name_problem(value)
    if problem:
        raise ValueError(problem)
    return value


class SparseCheckoutModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    patterns: Annotated[
        list[Annotated[str, AfterValidator(not_blank)]], AfterValidator(no_duplicates)
    ] = Field(min_length=1, description="the folders (cone patterns) to check out")


class RepoModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: Annotated[str, AfterValidator(_remote_url)]
    provider: Annotated[str, AfterValidator(_git_provider)]
    path: Annotated[str, AfterValidator(_repo_path)]
    branch: Annotated[str, AfterValidator(_ref)] | None = None
    # Validated after branch (field order), so it can see whether a branch was given too.
    tag: Annotated[str, AfterValidator(_ref)] | None = None
    sparse_checkout: SparseCheckoutModel | None = None

    @field_validator("tag")
    @classmethod
    def _branch_or_tag(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None and info.data.get("branch") is not None:
            raise ValueError("give branch or tag, not both")
        return value


class RepoProvider(WorkspaceProvider):
    args_model = RepoModel
    replace_keys: ClassVar[frozenset[str]] = frozenset({"url", "provider", "path"})

    def must_delete_first(self, changed: list[str]) -> bool:
        # Two repos cannot share a path.
        return "path" not in changed

    def diff(self, _id, olds, news, old_inputs=None) -> KeyedDiffResult:
        result = super().diff(_id, olds, news, old_inputs)
        # Patterns change in place; turning sparse checkout on or off replaces the repo.
        if "sparse_checkout" in result.changed_keys and (
            bool(self._recorded_spec(olds).get("sparse_checkout"))
            != bool(news.get("sparse_checkout"))
        ):
            result.replaces = sorted({*(result.replaces or []), "sparse_checkout"})
            result.delete_before_replace = self.must_delete_first(result.changed_keys)
        return result

    def create_object(self, client: WorkspaceClient, args: RepoModel, spec: Spec):
        patterns = args.sparse_checkout.patterns if args.sparse_checkout else None

        def create() -> dict[str, Any]:
            return ReposApi(client).create(args.url, args.provider, args.path, patterns)

        try:
            made, _adopted = create_or_adopt(create, lambda: self._at_path(client, args))
        except AlreadyExists as error:
            found = self._at_path(client, args)
            if found is None:
                error.message += " (the repo there has another remote: import it or pick a path)"
                error.args = (str(error),)
                raise
            made = found
        repo_id = str(made["id"])
        with undone_on_failure(lambda: ReposApi(client).delete(repo_id)):
            # The create's answer (or the listing's entry) tells the branch: no read first.
            repo = self._converge(client, repo_id, made, spec, None)
        return repo_id, self._spec_of(repo, spec), {"head_commit_id": repo.get("head_commit_id")}

    def read_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]):
        repo = ReposApi(client).get(id_)
        return self._spec_of(repo, recorded), {"head_commit_id": repo.get("head_commit_id")}

    def update_object(self, client, id_, recorded, args, spec):
        repo = self._converge(client, id_, ReposApi(client).get(id_), spec, recorded.get("tag"))
        return self._spec_of(repo, spec), {"head_commit_id": repo.get("head_commit_id")}

    def delete_object(self, client: WorkspaceClient, id_: str, recorded: Mapping[str, Any]) -> None:
        ReposApi(client).delete(id_)

    # --- helpers ------------------------------------------------------------------
    @staticmethod
    def _at_path(client: WorkspaceClient, args: RepoModel) -> dict | None:
        """The repo of the declared remote at the declared path, if there is one."""
        for repo in ReposApi(client).list(args.path):
            if same_workspace_path(repo.get("path", ""), args.path):
                return repo if repo.get("url") == args.url else None
        return None

    @staticmethod
    def _converge(
        client: WorkspaceClient,
        repo_id: str,
        repo: Mapping[str, Any],
        spec: Spec,
        current_tag: str | None,
    ) -> Mapping[str, Any]:
        """Checks out the declared branch or tag and sets the declared patterns, where the
        repo differs; the repo read back after a change. `current_tag`: the tag checked out
        last (the service does not tell; a repo on a branch is on no tag)."""
        change: dict[str, Any] = {}
        if "branch" in spec and repo.get("branch") != spec["branch"]:
            change["branch"] = spec["branch"]
        if "tag" in spec and (repo.get("branch") or spec["tag"] != current_tag):
            change["tag"] = spec["tag"]
        wanted = (spec.get("sparse_checkout") or {}).get("patterns")
        if wanted is not None and (repo.get("sparse_checkout") or {}).get("patterns") != wanted:
            change["sparse_checkout"] = wanted
        if not change:
            return repo
        ReposApi(client).update(repo_id, **change)
        return ReposApi(client).get(repo_id)

    @staticmethod
    def _spec_of(repo: Mapping[str, Any], like: Mapping[str, Any]) -> Spec:
        """The repo in spec form. The service does not say which tag a detached repo is on:
        while it is on no branch, the declared tag stands."""
        path = repo.get("path", "")
        declared_path = like.get("path")
        spec: Spec = {
            "url": repo.get("url"),
            "provider": repo.get("provider"),
            "path": declared_path
            if declared_path and same_workspace_path(path, declared_path)
            else path,
        }
        if repo.get("branch"):
            spec["branch"] = repo["branch"]
        elif like.get("tag"):
            spec["tag"] = like["tag"]
        if repo.get("sparse_checkout"):
            spec["sparse_checkout"] = {"patterns": list(repo["sparse_checkout"].get("patterns"))}
        return spec


# A branch of the emulator's initial repo (workspace_emulator/initial_data.json).
DRILL_BRANCH = "develop"


def _drill_change(repo: dict[str, Any]) -> dict[str, Any]:
    """From a tag (or a branch) to another branch: a checkout, an update in place."""
    repo.pop("tag", None)
    return {**repo, "branch": DRILL_BRANCH}


KIND = declare(
    name="Repo",
    provider=RepoProvider,
    outputs={"head_commit_id": str},
    config_key="repos",
    identity=("path",),
    doc="docs/repo.md",
    summary="a Git folder made by the stack: remote, path, branch or tag, sparse checkout",
    import_id="repo id",
    import_id_rule=import_ids.numeric,
    # A private remote is cloned with the deploying principal's Git credential.
    after=("gitCredentials",),
    stack_output=("repos", lambda resource: resource.id),
    inventory=lambda client: (
        (str(r["id"]), str(r.get("path", ""))) for r in ReposApi(client).list()
    ),
    drill=DrillChange(_drill_change),
)
