"""The guardrails of one stack, from its config: each rule's level and settings, and the
team's own rule files.

    workspace:guardrails:
      job-owner-tag: mandatory                      # a level: advisory, mandatory, disabled
      no-all-privileges-to-account-users:           # or the level and the rule's settings
        level: mandatory
        catalogs: [prod, "prod_*"]
    workspace:guardrailRules: [guardrails/team_rules.py]   # files of the project

A rule the stack does not name keeps its own level (the starter rules: advisory). What the
engine reads is the pack's config file (`--policy-pack-config`): `{rule: {enforcementLevel,
<setting>: value}}`, written from this by `workspace-iac guardrails`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from stacks.errors import NAMESPACE
from stacks.guardrails.rules import LEVELS, RULES

GUARDRAILS_KEY = "guardrails"
RULE_FILES_KEY = "guardrailRules"
LEVEL_KEY = "level"


class GuardrailsError(ValueError):
    """The stack's guardrails config is wrong: every problem, one line each."""


def decoded(value: Any) -> Any:
    """A config value as the engine may pass it (JSON text) or as YAML holds it."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def rule_files(values: Mapping[str, Any], project_dir: Path) -> list[Path]:
    """The team's rule files (`workspace:guardrailRules`), relative to the project; each
    must exist."""
    files = decoded(values.get(RULE_FILES_KEY)) or []
    key = f"{NAMESPACE}:{RULE_FILES_KEY}"
    if not isinstance(files, list) or not all(isinstance(f, str) for f in files):
        raise GuardrailsError(f"{key}: must be a list of Python files of the project "
                              "(e.g. [guardrails/team_rules.py])")
    paths = [(project_dir / f).resolve() for f in files]
    missing = [f for f, p in zip(files, paths, strict=True) if not p.is_file()]
    if missing:
        raise GuardrailsError(f"{key}: no such file in {project_dir}: {', '.join(missing)}")
    return paths


def problems(values: Mapping[str, Any], known: Sequence[str] | None = None) -> list[str]:
    """Every problem of `workspace:guardrails`, one line each, naming the rule and the fix."""
    rules = decoded(values.get(GUARDRAILS_KEY)) or {}
    key = f"{NAMESPACE}:{GUARDRAILS_KEY}"
    names = list(RULES) if known is None else list(known)
    if not isinstance(rules, Mapping):
        return [f"{key}: must map rule names to a level ({', '.join(LEVELS)}) or to "
                "{level: ..., <setting>: ...}"]
    found = []
    for name, chosen in rules.items():
        where = f"{key}.{name}"
        if name not in names:
            found.append(f"{where}: no such rule; the rules are {', '.join(names)}")
            continue
        level = chosen.get(LEVEL_KEY) if isinstance(chosen, Mapping) else chosen
        if isinstance(chosen, Mapping) and LEVEL_KEY not in chosen:
            level = RULES[name].level if name in RULES else None
        if level not in LEVELS:
            found.append(f"{where}: the level must be one of {', '.join(LEVELS)}, got {level!r}")
        if isinstance(chosen, Mapping) and name in RULES:
            unknown = sorted(set(chosen) - {LEVEL_KEY} - set(RULES[name].settings))
            if unknown:
                allowed = ", ".join([LEVEL_KEY, *RULES[name].settings])
                found.append(f"{where}: unknown setting {', '.join(unknown)}; "
                             f"the rule takes {allowed}")
    return found


def pack_config(values: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The pack's config file for the stack (`--policy-pack-config`): every registered
    rule's level and settings."""
    found = problems(values)
    if found:
        raise GuardrailsError("\n".join(found))
    chosen = decoded(values.get(GUARDRAILS_KEY)) or {}
    config: dict[str, dict[str, Any]] = {}
    for name, rule in RULES.items():
        given = chosen.get(name, rule.level)
        if isinstance(given, Mapping):
            level = given.get(LEVEL_KEY, rule.level)
            extra = {k: v for k, v in given.items() if k != LEVEL_KEY}
        else:
            level, extra = given, {}
        config[name] = {"enforcementLevel": level, **rule.settings, **extra}
    return config
