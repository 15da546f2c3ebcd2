"""Fails unless every real stack's GitHub environments exist with their protection rules: the
first job of the pull-request, deploy and drift workflows (.github/workflows/, job
`environments`), which every job holding credentials waits for.

    python3 -m tools.ci_environments --default-branch main dev staging prod
    python3 -m tools.ci_environments --default-branch main --environments deploy dev staging prod

GitHub creates an environment the first time a job names it, with no protection rule at all,
and a job there still gets an OIDC token naming that environment, which a federation trust
set up for it accepts. So before a preview runs with credentials, for each stack:

- `preview-<stack>` (the previews) must exist with required reviewers and "Prevent
  self-review" on: no run of a pull request's code gets its credentials until someone other
  than the author has approved it.
- `deploy-<stack>` (the deploys, .github/workflows/deploy.yml) must exist with the same, and deploy
  only from the default branch: a pull request that adds a workflow of its own naming it is
  refused by GitHub before the job starts.
- `drift-<stack>` (the nightly drift report, .github/workflows/drift.yml; checked with
  `--environments drift`) must exist and run only from the default branch: it holds only
  read-only credentials and runs only the default branch's code on a schedule, so it needs
  no reviewer (nobody would be there at night to approve), but a pull request's workflow
  naming it must not get its OIDC token.
- `PULUMI_BACKEND_URL` must not be a repository or organization variable (this job runs in
  no environment, so it sees only those): it belongs to each `preview-<stack>` environment,
  so an environment GitHub created unprotected holds nothing.

A pull request can change this workflow too, so this check guards the setup against a
mistake, not against the pull request: that is the environments' own rules' job (README.md,
"Setting up the environments"). Only the standard library: the job runs before any setup.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from typing import Any

PREVIEW = "preview-{stack}"
DEPLOY = "deploy-{stack}"
DRIFT = "drift-{stack}"
# Per kind of environment: its name, whether it needs required reviewers, whether it may
# run from the default branch only.
KINDS = {
    "preview": (PREVIEW, True, False),
    "deploy": (DEPLOY, True, True),
    "drift": (DRIFT, False, True),
}
DEFAULT_KINDS = ("preview", "deploy")
SETUP = 'docs/ci-previews.md, "Setting up the environments"'


def environment_problems(name: str, environment: Mapping[str, Any] | None, *,
                         branch_policies: Sequence[Mapping[str, Any]] = (),
                         default_branch: str, deploy: bool,
                         reviewed: bool = True) -> list[str]:
    """What keeps environment `name` (GitHub's answer to GET .../environments/{name}, None
    when it does not exist) from holding credentials; for a deploy (or drift) environment
    also its deployment branch policies (GET .../deployment-branch-policies). `reviewed`:
    it must have required reviewers (not a drift environment's)."""
    if environment is None:
        needs = "required reviewers" if reviewed else f"deployments from {default_branch} only"
        return [f"environment {name} does not exist: create it with {needs} "
                f"before anything trusts it ({SETUP})"]
    problems = []
    rules = environment.get("protection_rules") or []
    reviewing = [rule for rule in rules if rule.get("type") == "required_reviewers"
                 and rule.get("reviewers")]
    if reviewed and not reviewing:
        problems.append(f"environment {name} has no required reviewers: add some, so that no "
                        f"job gets its credentials unapproved ({SETUP})")
    elif reviewed and not all(rule.get("prevent_self_review") for rule in reviewing):
        problems.append(f"environment {name} lets whoever pushed the change approve its run: "
                        f"turn on \"Prevent self-review\" ({SETUP})")
    if deploy:
        policy = environment.get("deployment_branch_policy") or {}
        branches = [(p.get("name"), p.get("type", "branch")) for p in branch_policies]
        if (not policy.get("custom_branch_policies") or policy.get("protected_branches")
                or branches != [(default_branch, "branch")]):
            problems.append(f"environment {name} may deploy from other branches than "
                            f"{default_branch}: set \"Deployment branches and tags\" to "
                            f"\"Selected branches and tags\" with {default_branch} alone "
                            f"({SETUP})")
    return problems


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # a redirect is answered as the error it then is; the token stays here


class GitHub:
    """The few GET requests of GitHub's REST API this check makes, with the job's token."""

    def __init__(self, api_url: str, repository: str, token: str) -> None:
        self.base = f"{api_url.rstrip('/')}/repos/{repository}"
        self.token = token
        self.opener = urllib.request.build_opener(_NoRedirects)

    def get(self, path: str) -> Any | None:
        """The JSON answer, or None for 404."""
        request = urllib.request.Request(f"{self.base}/{path}", headers={
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self.token}",
        })
        try:
            with self.opener.open(request, timeout=30) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return None
            raise SystemExit(f"GitHub answered {error.code} to GET {path}: the job needs "
                             f"`permissions: actions: read`") from None

    def environment(self, name: str) -> Mapping[str, Any] | None:
        return self.get(f"environments/{name}")

    def branch_policies(self, name: str) -> list[Mapping[str, Any]]:
        answer = self.get(f"environments/{name}/deployment-branch-policies?per_page=100")
        return list((answer or {}).get("branch_policies") or [])


def problems(github: GitHub, stacks: Sequence[str], default_branch: str,
             repository_backend_url: str,
             kinds: Sequence[str] = DEFAULT_KINDS) -> list[str]:
    found = []
    if repository_backend_url:
        found.append("PULUMI_BACKEND_URL is a repository or organization variable: delete it "
                     "there and set it as a variable of each preview-<stack> environment, so "
                     f"an environment GitHub creates unprotected holds nothing ({SETUP})")
    for stack in stacks:
        for kind in kinds:
            template, reviewed, deploy = KINDS[kind]
            name = template.format(stack=stack)
            environment = github.environment(name)
            policies = github.branch_policies(name) if deploy and environment else []
            found += environment_problems(name, environment, branch_policies=policies,
                                          default_branch=default_branch, deploy=deploy,
                                          reviewed=reviewed)
    return found


def main(argv: Sequence[str] | None = None, env: Mapping[str, str] = os.environ) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--default-branch", required=True)
    parser.add_argument("--environments", default=",".join(DEFAULT_KINDS),
                        help="the kinds to check, comma-separated, of "
                        f"{', '.join(KINDS)} (default: %(default)s)")
    parser.add_argument("stacks", nargs="+")
    args = parser.parse_args(argv)
    kinds = [kind.strip() for kind in args.environments.split(",") if kind.strip()]
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown or not kinds:
        parser.error(f"--environments {args.environments}: give some of {', '.join(KINDS)}")
    github = GitHub(env["GITHUB_API_URL"], env["GITHUB_REPOSITORY"], env["GITHUB_TOKEN"])
    found = problems(github, args.stacks, args.default_branch,
                     env.get("REPOSITORY_BACKEND_URL", ""), kinds)
    for problem in found:
        print(f"::error::{problem}")
    if not found:
        print(f"environments of {', '.join(args.stacks)}: protected")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
