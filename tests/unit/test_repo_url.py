"""A Repo's `url` ends up in state and in the pull-request comment: `check` and the stack's
config check refuse credentials in it and plain http://, naming the field and the fix
(docs/repo.md)."""

from __future__ import annotations

import copy

import pytest

from providers.workspace.repo import RepoProvider
from stacks.config import file_values
from stacks.config_rules import problems
from stacks.pulumi_cli import REPO_ROOT

INPUTS = {"url": "https://github.com/example-org/data-pipelines.git", "provider": "gitHub",
          "path": "/Repos/platform/data-pipelines"}
CREDENTIALS = (
    "must not carry credentials (user:token@): they would be kept in the stack's state and "
    "shown in previews; give the workspace a Git credential for the provider instead"
)
HTTP = "must use https://: plain http:// sends the repository's traffic unprotected"


def failures(url: str) -> dict[str, str]:
    return {f.property: f.reason for f in RepoProvider.input_failures({**INPUTS, "url": url})}


@pytest.mark.parametrize(
    "url",
    [
        "https://alice:ghp_s3cr3tT0ken@github.com/example-org/data-pipelines.git",
        "https://ghp_s3cr3tT0ken@github.com/example-org/data-pipelines.git",
        "https://alice:@github.com/example-org/data-pipelines.git",
        "https://@github.com/example-org/data-pipelines.git",
    ],
)
def test_credentials_in_the_url_are_refused_without_showing_them(url: str) -> None:
    found = failures(url)
    assert found == {"url": CREDENTIALS}
    assert "s3cr3t" not in found["url"]


@pytest.mark.parametrize(
    "url", ["http://github.com/example-org/data-pipelines.git", "HTTP://github.com/org/x.git"]
)
def test_plain_http_is_refused(url: str) -> None:
    assert failures(url) == {"url": HTTP}


@pytest.mark.parametrize(
    "url",
    [
        "https://github.com/example-org/data-pipelines.git",
        "https://dev.azure.com/org/project/_git/repo",
        "https://gitlab.example.net:8443/group/sub/project.git",
    ],
)
def test_https_urls_without_credentials_are_accepted(url: str) -> None:
    assert failures(url) == {}


def test_the_config_check_names_the_url() -> None:
    values = copy.deepcopy(file_values(REPO_ROOT / "Pulumi.local.yaml")[0])
    values["repos"][0]["url"] = "https://alice:ghp_s3cr3tT0ken@github.com/org/x.git"
    found = problems(values, {"clientSecret"})
    assert found == [f"workspace:repos[0].url: {CREDENTIALS}"]
