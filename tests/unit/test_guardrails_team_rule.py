"""A team's own guardrail, tested as docs/guardrails.md shows a team to test its rules: load
the file for the test only, then check props as the stack declares them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from stacks.guardrails.pack import with_rule_files
from stacks.guardrails.rules import RULES, check
from stacks.guardrails.settings import pack_config
from stacks.pulumi_cli import REPO_ROOT

TEAM_RULES = REPO_ROOT / "examples" / "guardrails" / "team_rules.py"
SCHEDULED = {"name": "nightly", "tags": {"owner": "data"},
             "schedule": {"quartz_cron_expression": "0 0 2 * * ?", "timezone_id": "UTC"}}


@pytest.fixture
def team_rules() -> Iterator[None]:
    with with_rule_files([str(TEAM_RULES)]):
        yield


def test_a_scheduled_job_without_a_timeout_breaks_the_teams_rule(team_rules: None) -> None:
    assert check("Job", SCHEDULED) == {"job-timeout": [
        "the scheduled job has no `timeout_seconds`: set the job's `timeout_seconds` "
        "(e.g. 14400 for four hours)"]}
    assert check("Job", {**SCHEDULED, "timeout_seconds": 3600}) == {}
    assert check("Job", {"name": "by-hand", "tags": {"owner": "data"}}) == {}


def test_the_stack_sets_the_teams_rule_level(team_rules: None) -> None:
    config = pack_config({"guardrails": {"job-timeout": "mandatory"}})
    assert config["job-timeout"] == {"enforcementLevel": "mandatory"}


def test_the_rule_is_the_stacks_only_while_loaded() -> None:
    with with_rule_files([str(TEAM_RULES)]):
        assert "job-timeout" in RULES
    assert "job-timeout" not in RULES
