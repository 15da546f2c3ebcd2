"""A team's own guardrail (docs/guardrails.md): every scheduled job has a timeout, so a stuck
run cannot hold its cluster all night. The stack names this file in its config:

    workspace:guardrailRules: [guardrails/team_rules.py]
    workspace:guardrails:
      job-timeout: mandatory
"""

from stacks.guardrails.rules import rule


@rule(
    "job-timeout",
    kinds=["Job"],
    description="Every scheduled job has a timeout.",
    fix="set the job's `timeout_seconds` (e.g. 14400 for four hours)",
)
def job_timeout(props, settings):
    if props.get("schedule") and not props.get("timeout_seconds"):
        return ["the scheduled job has no `timeout_seconds`"]
    return []
