"""The guardrails as a policy pack of Pulumi's policy SDK: one resource-validation policy per
registered rule (stacks/guardrails/rules.py), run by the engine on every resource of a
preview or an update (`pulumi preview --policy-pack DIR --policy-pack-config FILE`, what
`workspace-iac guardrails` prints).

The pack's directory is written by that command (`write_pack`): its PulumiPolicy.yaml and a
`__main__.py` that calls `serve` with the team's rule files; the engine starts it through the
analyzer plugin `pulumi-analyzer-policy-python` (the package's console script,
stacks/guardrails/analyzer.py) in the project's virtualenv.
"""

from __future__ import annotations

import runpy
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from stacks.guardrails.rules import ADVISORY, DISABLED, MANDATORY, RULES, Rule, kind_of

PACK_NAME = "workspace-guardrails"


def policy(rule: Rule) -> Any:
    """The rule as a ResourceValidationPolicy: each violation reported under its resource,
    naming the rule (the engine shows the policy's name) and the fix."""
    from pulumi_policy import EnforcementLevel, PolicyConfigSchema, ResourceValidationPolicy

    def validate(args: Any, report_violation: Any) -> None:
        kind = kind_of(args.resource_type)
        if kind is None:
            return
        settings = {key: value for key, value in (args.get_config() or {}).items()
                    if key in rule.settings}
        for message in rule.violations(kind, args.props, settings):
            report_violation(message)

    levels = {ADVISORY: EnforcementLevel.ADVISORY, MANDATORY: EnforcementLevel.MANDATORY,
              DISABLED: EnforcementLevel.DISABLED}
    return ResourceValidationPolicy(
        name=rule.name,
        description=rule.description,
        validate=validate,
        enforcement_level=levels[rule.level],
        config_schema=PolicyConfigSchema(properties={
            key: {"type": json_type(default)} for key, default in rule.settings.items()
        }) if rule.settings else None,
    )


def json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, list):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return "string"


def load_rule_files(files: Sequence[str]) -> None:
    """Runs each team rule file, whose `@rule` functions register themselves."""
    for file in files:
        runpy.run_path(file, run_name=f"guardrails_{Path(file).stem}")


@contextmanager
def with_rule_files(files: Sequence[str]) -> Iterator[None]:
    """The registered rules with those of the team's files, for the block only (a command or
    a test that loads a stack's rules leaves the next stack the starter rules)."""
    before = dict(RULES)
    try:
        load_rule_files(files)
        yield
    finally:
        RULES.clear()
        RULES.update(before)


def serve(rule_files: Sequence[str] = ()) -> None:
    """Runs the pack for the engine (the pack's `__main__.py`): every starter rule and every
    rule of the team's files."""
    from pulumi_policy import EnforcementLevel, PolicyPack

    load_rule_files(rule_files)
    PolicyPack(name=PACK_NAME, policies=[policy(r) for r in RULES.values()],
               enforcement_level=EnforcementLevel.ADVISORY)
