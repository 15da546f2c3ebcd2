"""M8: the pull-request workflow's first job (tools/ci_environments.py) fails unless each
real stack's environments exist with required reviewers and self-review prevented, the
deploy environments restricted to the default branch, and the backend's address is no
repository variable. Its answers are GitHub's, served here over loopback HTTP."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from tools.ci_environments import environment_problems, main

REVIEWERS = {"type": "required_reviewers", "prevent_self_review": True,
             "reviewers": [{"type": "Team", "reviewer": {"slug": "platform"}}]}
RESTRICTED = {"protected_branches": False, "custom_branch_policies": True}
MAIN_ONLY = [{"name": "main", "type": "branch"}]


def problems(environment: Mapping[str, Any] | None, *, deploy: bool = False,
             policies: list[dict[str, str]] = MAIN_ONLY) -> list[str]:
    return environment_problems("deploy-dev" if deploy else "preview-dev", environment,
                                branch_policies=policies, default_branch="main", deploy=deploy)


def test_protected_environments_pass() -> None:
    assert problems({"protection_rules": [REVIEWERS]}) == []
    assert problems({"protection_rules": [{"type": "wait_timer", "wait_timer": 5}, REVIEWERS],
                     "deployment_branch_policy": RESTRICTED}, deploy=True) == []


def test_a_missing_environment_fails() -> None:
    """GitHub would create it unprotected for the first job that names it."""
    [problem] = problems(None)
    assert problem.startswith("environment preview-dev does not exist: create it with "
                          "required reviewers before anything trusts it")


def test_an_environment_without_reviewers_fails() -> None:
    for rules in ([], [{"type": "wait_timer", "wait_timer": 30}],
                  [{**REVIEWERS, "reviewers": []}]):
        [problem] = problems({"protection_rules": rules})
        assert problem.startswith("environment preview-dev has no required reviewers")


def test_self_review_must_be_prevented() -> None:
    for rule in ({**REVIEWERS, "prevent_self_review": False},
                 {k: v for k, v in REVIEWERS.items() if k != "prevent_self_review"}):
        [problem] = problems({"protection_rules": [rule]})
        assert "lets whoever pushed the change approve its run" in problem
        assert '"Prevent self-review"' in problem


@pytest.mark.parametrize("policy, branches", [
    (None, MAIN_ONLY),  # all branches
    ({"protected_branches": True, "custom_branch_policies": False}, []),
    (RESTRICTED, [{"name": "*", "type": "branch"}]),
    (RESTRICTED, [*MAIN_ONLY, {"name": "release/*", "type": "branch"}]),
    (RESTRICTED, [{"name": "main", "type": "tag"}]),
])
def test_a_deploy_environment_must_deploy_from_the_default_branch_alone(
        policy: dict[str, bool] | None, branches: list[dict[str, str]]) -> None:
    environment = {"protection_rules": [REVIEWERS], "deployment_branch_policy": policy}
    [problem] = problems(environment, deploy=True, policies=branches)
    assert problem.startswith("environment deploy-dev may deploy from other branches than "
                              "main: set \"Deployment branches and tags\"")
    # a preview environment runs pull requests' branches: no such rule
    assert problems(environment) == []


class FakeGitHub(BaseHTTPRequestHandler):
    environments: dict[str, Any] = {}
    seen: list[tuple[str, str]] = []

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        self.seen.append((self.path, self.headers.get("Authorization", "")))
        prefix = "/repos/team/infra/environments/"
        name, _, rest = self.path.removeprefix(prefix).partition("/")
        environment = self.environments.get(name)
        if not self.path.startswith(prefix) or environment is None:
            self.send_response(404)
            self.end_headers()
            return
        body = ({"branch_policies": environment.get("policies", [])}
                if rest.startswith("deployment-branch-policies") else environment)
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(body).encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def github() -> Iterator[str]:
    FakeGitHub.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeGitHub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def run(api: str, capsys: pytest.CaptureFixture[str], backend: str = "") -> tuple[int, str]:
    env = {"GITHUB_API_URL": api, "GITHUB_REPOSITORY": "team/infra",
           "GITHUB_TOKEN": "job-token", "REPOSITORY_BACKEND_URL": backend}
    code = main(["--default-branch", "main", "dev", "prod"], env)
    return code, capsys.readouterr().out


def protected() -> dict[str, Any]:
    preview = {"protection_rules": [REVIEWERS]}
    deploy = {**preview, "deployment_branch_policy": RESTRICTED, "policies": MAIN_ONLY}
    return {f"{kind}-{stack}": (deploy if kind == "deploy" else preview)
            for kind in ("preview", "deploy") for stack in ("dev", "prod")}


def test_the_job_passes_when_every_environment_is_protected(
        github: str, capsys: pytest.CaptureFixture[str]) -> None:
    FakeGitHub.environments = protected()
    assert run(github, capsys) == (0, "environments of dev, prod: protected\n")
    asked = {path for path, _ in FakeGitHub.seen}
    assert "/repos/team/infra/environments/preview-prod" in asked
    assert "/repos/team/infra/environments/deploy-dev/deployment-branch-policies?per_page=100" \
        in asked
    assert {token for _, token in FakeGitHub.seen} == {"Bearer job-token"}


def test_the_job_fails_naming_each_environment_that_is_missing_or_open(
        github: str, capsys: pytest.CaptureFixture[str]) -> None:
    environments = protected()
    del environments["preview-prod"]
    environments["deploy-dev"] = {**environments["deploy-dev"], "deployment_branch_policy": None}
    FakeGitHub.environments = environments
    code, out = run(github, capsys, backend="s3://state")
    lines = out.splitlines()
    assert code == 1 and len(lines) == 3 and all(ln.startswith("::error::") for ln in lines)
    assert lines[0].startswith("::error::PULUMI_BACKEND_URL is a repository or organization "
                               "variable")
    assert lines[1].startswith("::error::environment deploy-dev may deploy from other branches")
    assert lines[2].startswith("::error::environment preview-prod does not exist")


def test_a_drift_environment_needs_no_reviewer_but_the_default_branch_alone() -> None:
    """The nightly drift report runs the default branch's code with read-only credentials on
    a schedule: nobody would approve it at night, but no other branch may get its token."""
    restricted = {"protection_rules": [], "deployment_branch_policy": RESTRICTED}
    assert environment_problems("drift-dev", restricted, branch_policies=MAIN_ONLY,
                                default_branch="main", deploy=True, reviewed=False) == []
    [problem] = environment_problems("drift-dev", {"protection_rules": []},
                                     branch_policies=[], default_branch="main", deploy=True,
                                     reviewed=False)
    assert problem.startswith("environment drift-dev may deploy from other branches than main")
    [missing] = environment_problems("drift-dev", None, default_branch="main", deploy=True,
                                     reviewed=False)
    assert missing.startswith("environment drift-dev does not exist: create it with "
                              "deployments from main only")


def test_the_job_checks_the_kinds_of_environments_it_is_given(
        github: str, capsys: pytest.CaptureFixture[str]) -> None:
    FakeGitHub.environments = {"drift-dev": {"protection_rules": [],
                                             "deployment_branch_policy": RESTRICTED,
                                             "policies": MAIN_ONLY}}
    env = {"GITHUB_API_URL": github, "GITHUB_REPOSITORY": "team/infra",
           "GITHUB_TOKEN": "job-token", "REPOSITORY_BACKEND_URL": ""}
    assert main(["--default-branch", "main", "--environments", "drift", "dev"], env) == 0
    assert capsys.readouterr().out == "environments of dev: protected\n"
    assert {path.split("/")[5] for path, _ in FakeGitHub.seen} == {"drift-dev"}
    assert main(["--default-branch", "main", "--environments", "deploy", "dev"], env) == 1
    assert capsys.readouterr().out.startswith("::error::environment deploy-dev does not exist")
    with pytest.raises(SystemExit):
        main(["--default-branch", "main", "--environments", "nightly", "dev"], env)
