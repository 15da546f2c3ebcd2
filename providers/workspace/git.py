"""Git remotes and refs as the Git folder and Git credential kinds read them: the providers the
service knows, ref names, workspace paths of Git folders."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    pass


# The service's spelling of each Git provider (it matches them without regard to case).
GIT_PROVIDERS = (
    "gitHub",
    "bitbucketCloud",
    "gitLab",
    "azureDevOpsServices",
    "gitHubEnterprise",
    "bitbucketServer",
    "gitLabEnterpriseEdition",
    "awsCodeCommit",
)


def ref_name_problem(name: str) -> str | None:
    """Why `name` is not a valid git branch name, or None."""
    if not name:
        return "must not be empty"
    if REF_FORBIDDEN.search(name):
        return (
            "must be a git branch name: no spaces, control characters, '~', '^', ':', "
            "'?', '*', '[', '\\', '..', '@{' or '//'"
        )
    if name == "@" or name.startswith(("-", "/")) or name.endswith(("/", ".")):
        return "must be a git branch name: not '@', no leading '-' or '/', no trailing '/' or '.'"
    for part in name.split("/"):
        if part.startswith(".") or part.endswith(".lock"):
            return "must be a git branch name: no part may start with '.' or end with '.lock'"
    return None


def same_workspace_path(a: str, b: str) -> bool:
    """/Repos/x and /Workspace/Repos/x name the same folder."""
    return a.removeprefix("/Workspace") == b.removeprefix("/Workspace")


# What `git check-ref-format --branch` refuses anywhere in a name.
REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//")
